/**
 * A package's files in memory, wherever they were read from (a directory, a git commit): the unit
 * every update step works on. Paths are relative to the package root, with `/`.
 */
import { decodeUtf8 } from '../yaml/utf8';
import { dirOf, isWithin, joinPath, relativeTo, ROOT } from './scopes';

export interface TreeFile {
  readonly bytes: Buffer;
  /** Permission bits (0o644, 0o755, ...). */
  readonly mode: number;
}

export const EXECUTABLE = 0o111;

export class PackageTree {
  /**
   * @param files every regular file
   * @param dirs every directory below the root (a directory may be empty)
   * @param links symbolic links: never followed, written or removed by an update
   * @param ignored files and directories a `.krmignore` names (src/package/package-walk.ts): not read
   * @param submodules a git tree's submodules (gitlinks): commits of other repositories, never read or written
   */
  constructor(
    readonly files: ReadonlyMap<string, TreeFile>,
    readonly dirs: ReadonlySet<string> = directoriesOf(files.keys()),
    readonly links: ReadonlySet<string> = new Set(),
    readonly ignored: ReadonlySet<string> = new Set(),
    readonly submodules: ReadonlySet<string> = new Set(),
  ) {}

  static empty(): PackageTree {
    return new PackageTree(new Map());
  }

  /** A file's text; bytes that are not UTF-8 survive as krm/utf8.ts escapes them. */
  text(path: string): string | undefined {
    const file = this.files.get(path);
    return file && decodeUtf8(file.bytes);
  }

  /** The package below `dir`, re-rooted there. */
  subtree(dir: string): PackageTree {
    if (dir === ROOT) return this;
    const pick = <T>(entries: Iterable<[string, T]>) => [...entries].filter(([p]) => p !== dir && isWithin(p, dir)).map(([p, v]) => [relativeTo(p, dir), v] as [string, T]);
    const pickPaths = (paths: Iterable<string>) => new Set(pick([...paths].map((p) => [p, p] as [string, string])).map(([p]) => p));
    return new PackageTree(new Map(pick(this.files)), pickPaths(this.dirs), pickPaths(this.links), pickPaths(this.ignored), pickPaths(this.submodules));
  }

  /** This tree with everything below `dir` replaced by `inner` (a tree rooted at `dir`). */
  withSubtree(dir: string, inner: PackageTree): PackageTree {
    if (dir === ROOT) return inner;
    const outside = <T>(entries: Iterable<[string, T]>) => [...entries].filter(([p]) => !(p !== dir && isWithin(p, dir)));
    const files = new Map(outside(this.files));
    for (const [path, file] of inner.files) files.set(joinPath(dir, path), file);
    const dirs = new Set([...this.dirs].filter((d) => d === dir || !isWithin(d, dir)));
    dirs.add(dir);
    for (const d of inner.dirs) dirs.add(joinPath(dir, d));
    const paths = (outer: Iterable<string>, within: Iterable<string>) => new Set([...[...outer].filter((p) => !isWithin(p, dir)), ...[...within].map((p) => joinPath(dir, p))]);
    return new PackageTree(files, dirs, paths(this.links, inner.links), paths(this.ignored, inner.ignored), paths(this.submodules, inner.submodules));
  }
}

/** The directories that hold the given files (what a git tree can express). */
export function directoriesOf(paths: Iterable<string>): Set<string> {
  const dirs = new Set<string>();
  for (const path of paths) {
    for (let dir = dirOf(path); dir !== ROOT && !dirs.has(dir); dir = dirOf(dir)) dirs.add(dir);
  }
  return dirs;
}

export function sameFile(a: TreeFile | undefined, b: TreeFile | undefined): boolean {
  if (!a || !b) return a === b;
  return a === b || a.bytes.equals(b.bytes);
}
