/**
 * Who owns a downstream package, recorded in git: Porch keeps a PackageVariant's ownership in
 * PackageRevision metadata outside git (porch-lifecycle.md §1, §11.2), which a cluster-less sync does
 * not have. The root Kptfile of every package sync writes carries two annotations under this
 * project's own prefix (a domain of the project's GitHub organisation, not Porch's): the owner and
 * the deletion policy it was created with, so that the policy holds after the variant is gone.
 *
 * A person's copy of a package (Porch's `rpkg copy` or `rpkg edit`) copies the Kptfile, annotations
 * and all, so the annotations alone cannot say which drafts are sync's. The commit that starts each
 * draft sync writes also carries a line of its own after Porch's `kpt:` annotation; a copy makes
 * commits of its own and carries none. A draft or proposal is sync's when its workspace is one of the
 * PackageVariant controller's and that commit, found on the draft's first-parent chain as Porch finds a
 * revision's first task, carries the line.
 */
import type { CommitFacts } from '../git/cached-remote';
import type { KrmResource } from '../krm/resource';
import { PackageResources } from '../package/resource-files';
import { KPTFILE } from '../package/scopes';
import type { PackageTree } from '../package/tree';
import { readAnnotations, type FirstTaskType } from './porch-commits';
import { VARIANT_WORKSPACE_PREFIX } from './porch-refs';

export const OWNER_ANNOTATION = 'package-variant.github.io/owner';
export const DELETION_POLICY_ANNOTATION = 'package-variant.github.io/deletion-policy';

export type DeletionPolicy = 'delete' | 'orphan';

/** A variant as an owner: `PackageVariant/<namespace>/<name>`, or `PackageVariantSet/<namespace>/<set>` for the variants a set makes. */
export function ownerOf(kind: 'PackageVariant' | 'PackageVariantSet', namespace: string | undefined, name: string): string {
  return `${kind}/${namespace || 'default'}/${name}`;
}

export interface Ownership {
  readonly owner: string;
  readonly deletionPolicy: DeletionPolicy;
}

/** Records `ownership` on a root Kptfile. */
export function setOwnership(kptfile: KrmResource, ownership: Ownership): void {
  kptfile.setAnnotation(OWNER_ANNOTATION, ownership.owner);
  kptfile.setAnnotation(DELETION_POLICY_ANNOTATION, ownership.deletionPolicy);
}

/** The package with `ownership` recorded on its root Kptfile (the package as it was, when it holds it already or has no Kptfile). */
export function withOwnership(tree: PackageTree, ownership: Ownership): PackageTree {
  const resources = PackageResources.read(tree);
  const kptfile = resources.items.find((item) => item.isKptfile && item.path === KPTFILE);
  if (!kptfile) return tree;
  setOwnership(kptfile, ownership);
  return kptfile.isChanged ? resources.written(resources.items) : tree;
}

/** The line that says sync made a draft: a git trailer, in the paragraph of the `kpt:` annotation. */
export const SYNC_RECORD = 'Made-by: package-variant sync';

/** A commit message that starts a draft, with sync's record after its annotation. */
export const withSyncRecord = (message: string): string => `${message}${SYNC_RECORD}\n`;

const FIRST_TASKS: ReadonlySet<string> = new Set<FirstTaskType>(['clone', 'edit', 'upgrade', 'init']);

/** Whether a commit's message records the first task of a revision (of any package). */
export const startsRevision = (message: string): boolean => readAnnotations(message).some((a) => a.task !== undefined && FIRST_TASKS.has(a.task.type));

/**
 * Whether sync made the draft or proposal of `pkgpath` in `workspace` whose tip is `tip`: `own` holds
 * the draft's first-parent chain (read back to a commit that starts a revision). From the tip along first
 * parents, commits without this revision's first task are passed over (a person may add commits to
 * sync's draft); the first that has it decides.
 */
export function madeBySync(pkgpath: string, workspace: string, tip: string, own: ReadonlyMap<string, CommitFacts>): boolean {
  if (!workspace.startsWith(VARIANT_WORKSPACE_PREFIX)) return false;
  let commit = own.get(tip);
  while (commit) {
    const first = readAnnotations(commit.message).some((a) => a.package === pkgpath && a.workspaceName === workspace && a.task !== undefined && FIRST_TASKS.has(a.task.type));
    if (first) return commit.message.split('\n').some((line) => line.trim() === SYNC_RECORD);
    const parent = commit.parents[0];
    commit = parent === undefined ? undefined : own.get(parent);
  }
  return false;
}

/** What the plan says of the drafts and proposals sync did not make (named by `nameOf`); undefined when there are none. */
export function leftAlone<R extends { readonly lifecycle: string }>(foreign: readonly R[], nameOf: (revision: R) => string): string | undefined {
  if (foreign.length === 0) return undefined;
  return `left alone, not made by sync: ${foreign.map((r) => `${r.lifecycle === 'draft' ? 'draft' : 'proposal'} ${nameOf(r)}`).join(', ')}`;
}
