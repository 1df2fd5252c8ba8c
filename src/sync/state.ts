/**
 * What a downstream repository holds for one package, as Porch would list it (porch-lifecycle.md
 * §7.3), with what sync reads from each revision's root Kptfile: its owner and deletion policy, and
 * the upstream revision it records.
 */
import type { GitLock } from '../package/kptfile-upstream';
import type { DeletionPolicy } from './ownership';

export type Lifecycle = 'draft' | 'proposed' | 'published';

/** What sync reads from a revision's root Kptfile (all of it from the repository: untrusted, only compared). */
export interface KptfileFacts {
  readonly owner?: string;
  readonly deletionPolicy?: DeletionPolicy;
  /** The upstream the Kptfile records in `upstreamLock.git`. */
  readonly lock?: GitLock;
}

export interface RevisionState {
  readonly lifecycle: Lifecycle;
  readonly workspace: string;
  /** Porch's revision number: a published revision's `v<N>`; 0 for a draft or proposal. */
  readonly revision: number;
  /** The full ref that holds it: `refs/heads/drafts/...`, `refs/heads/proposed/...`, `refs/tags/<pkg>/v<N>`. */
  readonly ref: string;
  readonly commit: string;
  /** A published revision whose deletion is proposed (`deletionProposed/<pkg>/v<N>` exists). */
  readonly deletionProposed: boolean;
  /** Undefined when the revision has no readable root Kptfile. */
  readonly kptfile?: KptfileFacts;
  /** A draft or proposal sync made (ownership.ts, madeBySync): the only ones it writes, proposes or publishes. */
  readonly madeBySync?: true;
}

export interface PackageState {
  /** The package's path in the repository, the Repository's directory included. */
  readonly pkgpath: string;
  readonly revisions: readonly RevisionState[];
  /** The package on the Repository's branch head, when it is there (Porch's placeholder revision: revision -1, the branch's name for workspace). */
  readonly branch?: RevisionState;
  /** Why sync cannot read the package as Porch would (a tag naming a revision Porch cannot hold): it is left alone. */
  readonly unreadable?: string;
}

/** Drafts and proposals, newest workspace first. */
const byWorkspace = (revisions: RevisionState[]): RevisionState[] => revisions.sort((a, b) => workspaceOrder(b.workspace) - workspaceOrder(a.workspace) || (b.workspace < a.workspace ? -1 : 1));

/** The drafts and proposals sync made, newest workspace first. */
export function unpublished(state: PackageState): RevisionState[] {
  return byWorkspace(state.revisions.filter((r) => r.lifecycle !== 'published' && r.madeBySync));
}

/** The drafts and proposals sync did not make (a person's copy, another tool's): left alone, newest workspace first. */
export function foreignDrafts(state: PackageState): RevisionState[] {
  return byWorkspace(state.revisions.filter((r) => r.lifecycle !== 'published' && !r.madeBySync));
}

/** The published revision with the highest number. */
export function latestPublished(state: PackageState): RevisionState | undefined {
  let latest: RevisionState | undefined;
  for (const r of state.revisions) if (r.lifecycle === 'published' && r.revision > 0 && (!latest || r.revision > latest.revision)) latest = r;
  return latest;
}

/** The number the package's next published revision gets: one more than the largest Porch reads among its tags (Porch's approval). */
export function nextRevision(state: PackageState | undefined): number {
  return Math.max(0, ...(state?.revisions ?? []).filter((r) => r.lifecycle === 'published').map((r) => r.revision)) + 1;
}

/** `packagevariant-12` sorts after `packagevariant-9`; other names by text. */
function workspaceOrder(workspace: string): number {
  const n = /-(\d{1,9})$/.exec(workspace);
  return n ? Number(n[1]) : 0;
}
