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
 * The largest revision Porch holds: its API declares a PackageRevision's revision `int32`, and its
 * database cache keeps it in an SQL INTEGER.
 */
export const MAX_REVISION = 2 ** 31 - 1;

/**
 * Porch's `Revision2Int` of a tag's last segment: one leading `v` dropped, then a decimal integer as
 * Go's `strconv.Atoi` reads it (a sign and leading zeros allowed): `v3`, `3` and `v03` are all 3;
 * any other name is -1. Undefined for a number Porch cannot hold (outside int32's range).
 */
export function tagRevision(version: string): number | undefined {
  const match = /^([+-]?)0*(\d+)$/.exec(version.startsWith('v') ? version.slice(1) : version);
  if (!match) return -1;
  const value = Number(match[2]);
  if (value > MAX_REVISION + (match[1] === '-' ? 1 : 0)) return undefined;
  return match[1] === '-' && value !== 0 ? -value : value;
}

/** Porch's `Revision2Int` of a ref's last segment; -1 for a name, and for a number Porch cannot hold. */
export function revisionOfRef(ref: string): number {
  return tagRevision(ref.slice(ref.lastIndexOf('/') + 1)) ?? -1;
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
