/**
 * What sync does for one desired downstream, from what its repository holds (porch-lifecycle.md
 * §11.5, as issue 21 decides it). The choices that depend on content (do the mutations change
 * the package?) are left to the caller as checks: a published revision is edited only when they
 * do, a draft gets another commit only when they do, a proposal is blocked only when they do.
 */
import { latestPublished, unpublished, type PackageState, type RevisionState } from './state';

/** The upstream revision a variant asks for, resolved in its repository. */
export interface ResolvedUpstream {
  /** Its ref as a Kptfile records it: the tag, `<path>/v<N>` or `<path>/<name>`. */
  readonly ref: string;
  readonly commit: string;
}

export type Decision =
  | { readonly kind: 'create' }
  | { readonly kind: 'upgrade'; readonly from: RevisionState }
  | { readonly kind: 'check-published'; readonly from: RevisionState }
  | { readonly kind: 'check-draft'; readonly draft: RevisionState }
  | { readonly kind: 'check-proposal'; readonly proposal: RevisionState }
  | { readonly kind: 'blocked'; readonly reason: string }
  | { readonly kind: 'conflict'; readonly reason: string };

/** Whether a revision records the upstream revision asked for (its tag, at the same commit). */
export function recordsUpstream(revision: RevisionState, upstream: ResolvedUpstream): boolean {
  const lock = revision.kptfile?.lock;
  return lock !== undefined && lock.ref === upstream.ref && lock.commit === upstream.commit;
}

const describeLock = (revision: RevisionState): string => revision.kptfile?.lock?.ref || 'no upstream revision';

/** Who the repository says owns the package: its newest draft or proposal, else its latest published revision. */
export function recordedOwner(state: PackageState): string | undefined {
  const newest = unpublished(state)[0] ?? latestPublished(state);
  return newest?.kptfile?.owner;
}

export function decide(owner: string, upstream: ResolvedUpstream, state: PackageState | undefined): Decision {
  if (!state || (state.revisions.length === 0 && !state.onBranch)) return { kind: 'create' };
  const recorded = recordedOwner(state);
  if (recorded !== owner) {
    const holder = recorded ? `it is owned by ${recorded}` : 'no variant owns it';
    return { kind: 'conflict', reason: `a package exists at ${state.pkgpath} and ${holder}; sync only changes packages their variant created` };
  }
  const [newest] = unpublished(state);
  if (newest) {
    if (!recordsUpstream(newest, upstream)) {
      return {
        kind: 'blocked',
        reason: `${newest.lifecycle} ${newest.workspace} records ${describeLock(newest)}, not ${upstream.ref}: publish or discard it (delete its branch), then sync again to upgrade`,
      };
    }
    return newest.lifecycle === 'draft' ? { kind: 'check-draft', draft: newest } : { kind: 'check-proposal', proposal: newest };
  }
  const published = latestPublished(state);
  if (!published) return { kind: 'conflict', reason: `a package exists on the branch at ${state.pkgpath} with no published revision sync could derive from` };
  return recordsUpstream(published, upstream) ? { kind: 'check-published', from: published } : { kind: 'upgrade', from: published };
}
