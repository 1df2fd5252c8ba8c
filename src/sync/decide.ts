/**
 * What sync does for one desired downstream, from what its repository holds (porch-lifecycle.md
 * §11.5, as issue 21 decides it). The choices that depend on content (do the mutations change
 * the package?) are left to the caller as checks: a published revision is edited only when they
 * do, a draft gets another commit only when they do, a proposal is blocked only when they do.
 */
import { foreignDrafts, latestPublished, unpublished, type PackageState, type RevisionState } from './state';

/** The upstream revision a variant asks for, resolved in its repository. */
export interface ResolvedUpstream {
  /** Its ref as a Kptfile records it: the tag, `<path>/v<N>` or `<path>/<name>`. */
  readonly ref: string;
  readonly commit: string;
}

/** What the variant asks of a package it finds at its downstream. */
export interface Claim {
  /** The owner sync records: `PackageVariant/<ns>/<name>` or `PackageVariantSet/<ns>/<set>`. */
  readonly owner: string;
  /** The variant's `spec.adoptionPolicy`: take over a package no variant owns, or leave it alone (the default). */
  readonly adoption: 'adoptExisting' | 'adoptNone';
  /** `PackageVariant <ns>/<name>`, for messages. */
  readonly label: string;
}

/** The decisions that go on to content; `adopting` when the package is not (yet) recorded as the variant's. */
type Proceed =
  | { readonly kind: 'create' }
  | { readonly kind: 'upgrade'; readonly from: RevisionState }
  | { readonly kind: 'check-published'; readonly from: RevisionState }
  | { readonly kind: 'check-draft'; readonly draft: RevisionState }
  | { readonly kind: 'check-proposal'; readonly proposal: RevisionState };

export type Decision =
  | (Proceed & { readonly adopting?: true })
  | { readonly kind: 'blocked'; readonly reason: string }
  | { readonly kind: 'conflict'; readonly reason: string };

/** Whether a revision records the upstream revision asked for (its tag, at the same commit). */
export function recordsUpstream(revision: RevisionState, upstream: ResolvedUpstream): boolean {
  const lock = revision.kptfile?.lock;
  return lock !== undefined && lock.ref === upstream.ref && lock.commit === upstream.commit;
}

const describeLock = (revision: RevisionState): string => revision.kptfile?.lock?.ref || 'no upstream revision';

/** Porch's `isUpToDate`: a revision that records no upstream (made by init, or by hand) counts as current too. */
const isCurrent = (revision: RevisionState, upstream: ResolvedUpstream): boolean => revision.kptfile?.lock === undefined || recordsUpstream(revision, upstream);

/**
 * Who the repository says owns the package: the newest draft or proposal sync made, else its latest
 * published revision. A draft sync did not make says nothing: a person's copy carries the Kptfile's
 * annotations, or none.
 */
export function recordedOwner(state: PackageState): string | undefined {
  const newest = unpublished(state)[0] ?? latestPublished(state);
  return newest?.kptfile?.owner;
}

export function decide(claim: Claim, upstream: ResolvedUpstream, state: PackageState | undefined): Decision {
  if (!state || (state.revisions.length === 0 && !state.branch)) return { kind: 'create' };
  if (unpublished(state).length === 0 && !latestPublished(state) && !state.branch) {
    const others = foreignDrafts(state).map((r) => `${r.lifecycle} ${r.workspace}`);
    const foreign = others.length ? `; ${others.join(', ')} ${others.length === 1 ? 'is' : 'are'} not sync's` : '';
    return { kind: 'conflict', reason: `a package exists at ${state.pkgpath} with no published revision sync can start from and no draft it made${foreign}: publish one or remove the package, then sync again` };
  }
  const recorded = recordedOwner(state);
  if (recorded !== undefined && recorded !== claim.owner) {
    return { kind: 'conflict', reason: `a package exists at ${state.pkgpath}, owned by ${recorded}; a package another variant owns is never adopted` };
  }
  if (recorded === undefined && claim.adoption !== 'adoptExisting') {
    return { kind: 'conflict', reason: `a package exists at ${state.pkgpath} and no variant owns it; set spec.adoptionPolicy: adoptExisting on ${claim.label} to take it over` };
  }
  const decided = proceed(upstream, state);
  return recorded === undefined && decided.kind !== 'blocked' && decided.kind !== 'conflict' ? { ...decided, adopting: true } : decided;
}

/** An owned (or adopted) package: blocked by a draft behind the upstream, or what to check. */
function proceed(upstream: ResolvedUpstream, state: PackageState): Decision {
  const [newest] = unpublished(state);
  if (newest) {
    if (!isCurrent(newest, upstream)) {
      return {
        kind: 'blocked',
        reason: `${newest.lifecycle} ${newest.workspace} records ${describeLock(newest)}, not ${upstream.ref}: publish or discard it (delete its branch), then sync again to upgrade`,
      };
    }
    return newest.lifecycle === 'draft' ? { kind: 'check-draft', draft: newest } : { kind: 'check-proposal', proposal: newest };
  }
  // A package only on the branch (made by hand, or by Porch's init) is adopted from there.
  const published = latestPublished(state) ?? state.branch!;
  return isCurrent(published, upstream) ? { kind: 'check-published', from: published } : { kind: 'upgrade', from: published };
}
