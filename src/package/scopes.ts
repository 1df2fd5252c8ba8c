/**
 * Package scopes, as kpt draws them: a package is a directory holding a Kptfile, a subpackage a
 * directory below it with its own Kptfile. Paths are relative to the root package, with `/`; the
 * root package is ''. Pure path logic, shared by the function (items' path annotations) and the
 * command (files on disk or in git).
 */

export const ROOT = '';

export const KPTFILE = 'Kptfile';

/** The directory of a relative path ('' for a file at the root). */
export function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash === -1 ? ROOT : path.slice(0, slash);
}

export function joinPath(dir: string, name: string): string {
  return dir === ROOT ? name : `${dir}/${name}`;
}

/** Whether `path` is `dir` itself or lies below it. */
export function isWithin(path: string, dir: string): boolean {
  return dir === ROOT || path === dir || path.startsWith(`${dir}/`);
}

/** `path` relative to `dir`, which holds it. */
export function relativeTo(path: string, dir: string): string {
  return dir === ROOT ? path : path === dir ? ROOT : path.slice(dir.length + 1);
}

/** The package directories of a set of file paths: the root, and every directory with a Kptfile. */
export function packageDirsOf(filePaths: Iterable<string>): Set<string> {
  const dirs = new Set<string>([ROOT]);
  for (const path of filePaths) if (path === KPTFILE || path.endsWith(`/${KPTFILE}`)) dirs.add(dirOf(path));
  return dirs;
}

/** The package a file belongs to: the deepest package directory that holds it. */
export function scopeOf(filePath: string, packageDirs: ReadonlySet<string>): string {
  let dir = dirOf(filePath);
  while (dir !== ROOT && !packageDirs.has(dir)) dir = dirOf(dir);
  return dir;
}

/** The nearest package above a subpackage. */
export function parentScope(dir: string, packageDirs: ReadonlySet<string>): string {
  return dir === ROOT ? ROOT : scopeOf(dir, packageDirs);
}

function depth(dir: string): number {
  return dir === ROOT ? 0 : dir.split('/').length;
}

/** Parents before their subpackages (kpt's order): by depth, then by name. */
export function rootFirst(dirs: Iterable<string>): string[] {
  return [...dirs].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
}
