/**
 * Porch's names for what it keeps in git (porch-lifecycle.md §7.1, §7.4): the refs of each
 * lifecycle, workspace names, revision numbers, and the PackageRevision names `porchctl` shows. A
 * sync writes these names so that Porch, registered on the same repositories, reads the packages as
 * its own.
 */
import { pathProblem } from '../krm/package-paths';

/** The workspace prefix of the PackageVariant controller's drafts (`newWorkspaceName`). */
export const VARIANT_WORKSPACE_PREFIX = 'packagevariant-';

export const draftBranch = (pkgpath: string, workspace: string): string => `drafts/${pkgpath}/${workspace}`;
export const proposedBranch = (pkgpath: string, workspace: string): string => `proposed/${pkgpath}/${workspace}`;
export const deletionProposedBranch = (pkgpath: string, revision: number): string => `deletionProposed/${pkgpath}/v${revision}`;
/** A published revision's lightweight tag. */
export const publishedTag = (pkgpath: string, revision: number): string => `${pkgpath}/v${revision}`;

/** `porchctl rpkg get`'s NAME: `<repository>.<package path, dots for slashes>.<workspace>`. */
export function packageRevisionName(repository: string, pkgpath: string, workspace: string): string {
  return `${repository}.${pkgpath.split('/').join('.')}.${workspace}`;
}

/**
 * The largest revision number sync reads or writes: a Kubernetes API integer (int32), which every
 * Porch client holds; a tag beyond it is one sync cannot read as Porch's clients would.
 */
export const MAX_REVISION = 2_147_483_647;

/**
 * Porch's `Revision2Int` of a ref's last segment: `v3` and `3` are 3; anything else -1; a number
 * above MAX_REVISION undefined (unreadable: the caller names the ref).
 */
export function revisionOfRef(ref: string): number | undefined {
  const last = ref.slice(ref.lastIndexOf('/') + 1);
  const digits = last.startsWith('v') ? last.slice(1) : last;
  if (!/^\d+$/.test(digits)) return -1;
  const value = digits.length > 10 ? Infinity : Number(digits);
  return value <= MAX_REVISION ? value : undefined;
}

/**
 * The next `packagevariant-<N>` workspace of a package: one more than the largest N among its
 * workspaces of that form, a suffix that is not a number counting as 0 (Porch's `newWorkspaceName`).
 */
export function nextVariantWorkspace(workspaces: Iterable<string>): string {
  let largest = 0;
  for (const workspace of workspaces) {
    if (!workspace.startsWith(VARIANT_WORKSPACE_PREFIX)) continue;
    const suffix = workspace.slice(VARIANT_WORKSPACE_PREFIX.length);
    const n = /^\d+$/.test(suffix) && suffix.length <= 9 ? Number(suffix) : 0;
    if (n > largest) largest = n;
  }
  return `${VARIANT_WORKSPACE_PREFIX}${largest + 1}`;
}

/** A ref of a repository as Porch's listing reads it (`listPackageRevisions`). */
export type PorchRef =
  | { readonly kind: 'draft' | 'proposed'; readonly pkgpath: string; readonly workspace: string }
  | { readonly kind: 'deletion-proposed'; readonly pkgpath: string; readonly revision: number }
  | { readonly kind: 'tag'; readonly pkgpath: string; readonly version: string };

const BRANCH_KINDS: readonly (readonly [string, 'draft' | 'proposed'])[] = [
  ['drafts/', 'draft'],
  ['proposed/', 'proposed'],
];

/** Whether `pkgpath` lies in the Repository's `spec.git.directory` (empty: the whole repository). */
export function inDirectory(pkgpath: string, directory: string): boolean {
  return directory === '' || pkgpath.startsWith(`${directory}/`);
}

/**
 * Splits `a/b/c` at its last slash; undefined without one, with an empty side, or with a package
 * path that cannot be one: a ref's name comes from the repository, and the path reaches trees,
 * commits and messages (the one path check, krm/package-paths.ts).
 */
function splitLast(name: string): [string, string] | undefined {
  const slash = name.lastIndexOf('/');
  if (slash <= 0 || slash === name.length - 1) return undefined;
  const [pkgpath, last] = [name.slice(0, slash), name.slice(slash + 1)];
  return pathProblem(pkgpath) === undefined && !/[\u0000-\u001f\u007f]/.test(last) ? [pkgpath, last] : undefined;
}

/**
 * What a full ref name (`refs/heads/...`, `refs/tags/...`) is to Porch, for packages under
 * `directory`; undefined for refs Porch does not read as package revisions (the branch itself, a
 * release tag without a slash, anything elsewhere).
 */
export function readPorchRef(ref: string, directory: string): PorchRef | undefined {
  if (ref.startsWith('refs/tags/')) {
    const parts = splitLast(ref.slice('refs/tags/'.length));
    return parts && inDirectory(parts[0], directory) ? { kind: 'tag', pkgpath: parts[0], version: parts[1] } : undefined;
  }
  if (!ref.startsWith('refs/heads/')) return undefined;
  const branch = ref.slice('refs/heads/'.length);
  for (const [prefix, kind] of BRANCH_KINDS) {
    if (!branch.startsWith(prefix)) continue;
    const parts = splitLast(branch.slice(prefix.length));
    return parts && inDirectory(parts[0], directory) ? { kind, pkgpath: parts[0], workspace: parts[1] } : undefined;
  }
  if (branch.startsWith('deletionProposed/')) {
    const parts = splitLast(branch.slice('deletionProposed/'.length));
    if (!parts || !inDirectory(parts[0], directory)) return undefined;
    const revision = revisionOfRef(parts[1]);
    return revision !== undefined && revision > 0 && parts[1].startsWith('v') ? { kind: 'deletion-proposed', pkgpath: parts[0], revision } : undefined;
  }
  return undefined;
}
