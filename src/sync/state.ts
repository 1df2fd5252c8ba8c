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
}

export interface PackageState {
  /** The package's path in the repository, the Repository's directory included. */
  readonly pkgpath: string;
  readonly revisions: readonly RevisionState[];
  /** The package on the Repository's branch head, when it is there (Porch's placeholder revision: revision -1, the branch's name for workspace). */
  readonly branch?: RevisionState;
  /** Tags of the package whose revision number is beyond what Porch's clients read (porch-refs MAX_REVISION). */
  readonly unreadable?: readonly string[];
}

/** The owned drafts and proposals, newest workspace first. */
export function unpublished(state: PackageState): RevisionState[] {
  return state.revisions.filter((r) => r.lifecycle !== 'published').sort((a, b) => workspaceOrder(b.workspace) - workspaceOrder(a.workspace) || (b.workspace < a.workspace ? -1 : 1));
}

/** The published revision with the highest number. */
export function latestPublished(state: PackageState): RevisionState | undefined {
  let latest: RevisionState | undefined;
  for (const r of state.revisions) if (r.lifecycle === 'published' && r.revision > 0 && (!latest || r.revision > latest.revision)) latest = r;
  return latest;
}

/** `packagevariant-12` sorts after `packagevariant-9`; other names by text. */
function workspaceOrder(workspace: string): number {
  const n = /-(\d{1,9})$/.exec(workspace);
  return n ? Number(n[1]) : 0;
}
