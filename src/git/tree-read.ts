/**
 * Package trees read from a repository's cache entry: the files below a directory at a commit, with
 * their modes, from git's objects. Every path is checked as a path of the package
 * (krm/package-paths.ts) before anything is read: the tree comes from a repository, which anyone may
 * have written. `readManyTrees` reads any number of versions at once, every tree of one depth in
 * one request to the entry's long-lived `cat-file` (object-reader.ts), so a sync pays one reading
 * process per repository however many packages it reads there, and an update one for its origin and
 * upstream. Paths are walked tree by tree, by object name: a path from a repository never reaches git.
 */
import { pathProblem } from '../krm/package-paths';
import { quoteBytes } from '../package/path-text';
import { ReadBudget } from '../package/read-limits';
import { directoriesOf, PackageTree, type TreeFile } from '../package/tree';
import type { CacheEntry } from './cache-entry';
import { isObjectName, type ObjectReader } from './object-reader';
import { GitError } from './run-git';

/** A package directory as a Kptfile records it (`/pkg`, `pkg/`, `/`), as a path in the repository. */
export function repoDirectory(directory: string | undefined): string {
  return (directory ?? '').replace(/^\/+|\/+$/g, '');
}

export interface Version {
  readonly commit: string;
  readonly directory: string | undefined;
}

interface Blob {
  readonly path: string;
  readonly mode: number;
  readonly object: string;
}

/**
 * One version's entries as they are listed, checked as they come: a path that cannot be a
 * package's (`..`, `.git` in any spelling, a reserved name, a name that is not UTF-8, a path twice,
 * a file where a directory is) refuses the version, naming it; blobs count against the read bounds.
 */
class CheckedListing {
  readonly blobs: Blob[] = [];
  readonly links: string[] = [];
  readonly submodules: string[] = [];
  private readonly seen = new Set<string>();
  private readonly budget: ReadBudget;

  constructor(
    private readonly entry: CacheEntry,
    private readonly version: Version,
  ) {
    this.budget = new ReadBudget((path, problem) => new GitError(`${path} of ${entry.repo} at ${version.commit} ${problem}`, true));
  }

  private refuse(path: string, why: string): GitError {
    return new GitError(`${this.entry.repo} at ${this.version.commit} holds ${path}, which cannot be a path of the package: ${why}; the version is refused`, true);
  }

  /** A name below the package's directory, as bytes; its path, checked. A directory is checked, not counted: its files are. */
  path(name: Buffer, directory = false): string {
    const path = decodeName(name);
    if (path === undefined) throw this.refuse(quoteBytes(name), 'its name is not UTF-8, and the update never renames a file');
    const why = pathProblem(path);
    if (why) throw this.refuse(JSON.stringify(path), why);
    if (directory) return path;
    if (this.seen.has(path)) throw this.refuse(JSON.stringify(path), 'the tree holds it twice');
    this.seen.add(path);
    return path;
  }

  /** A blob entry (`mode` as git writes it): a link is kept as a link, a file counts against the bounds. */
  blob(path: string, gitMode: string, object: string, size: number): void {
    if (gitMode === '120000') {
      this.links.push(path);
      return;
    }
    this.budget.spend(path, size);
    this.blobs.push({ path, mode: gitMode === '100755' ? 0o755 : 0o644, object });
  }

  /** A submodule (a gitlink, mode 160000): a commit of another repository, recorded and never read. */
  submodule(path: string): void {
    this.submodules.push(path);
  }

  /** The last checks, once every entry is in. */
  done(): void {
    for (const path of this.seen) {
      for (let at = path.lastIndexOf('/'); at > 0; at = path.lastIndexOf('/', at - 1)) {
        if (this.seen.has(path.slice(0, at))) throw this.refuse(JSON.stringify(path.slice(0, at)), 'the tree holds it both as a file and as a directory');
      }
    }
    if (this.blobs.length === 0) throw new GitError(`${this.entry.repo} has no directory "${this.version.directory ?? '/'}" at ${this.version.commit}`, true);
  }
}

async function trees(reader: ObjectReader, entry: CacheEntry, listings: readonly CheckedListing[]): Promise<PackageTree[]> {
  const blobs = await readBlobs(reader, entry, listings.flatMap(({ blobs }) => blobs.map((e) => e.object)));
  return listings.map(({ blobs: entries, links, submodules }) => {
    const files = new Map(entries.map((e) => [e.path, { bytes: blobs.get(e.object)!, mode: e.mode } as TreeFile]));
    return new PackageTree(files, directoriesOf([...files.keys(), ...links]), new Set(links), new Set(), new Set(submodules));
  });
}

interface TreeEntry {
  readonly mode: string;
  readonly name: Buffer;
  readonly object: string;
}

/** An object name as a tree entry holds it: 20 bytes of SHA-1, or 32 of SHA-256. */
const hashBytesOf = (name: string) => name.length / 2;

/** The entries of a tree object: `<mode> <name>\0<binary object name>` each. */
function treeEntries(bytes: Buffer, hashBytes: number): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (let at = 0; at < bytes.length; ) {
    const space = bytes.indexOf(32, at);
    const nul = bytes.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 1 + hashBytes > bytes.length) throw new Error('a tree object that git cannot have written');
    entries.push({ mode: bytes.subarray(at, space).toString('latin1'), name: bytes.subarray(space + 1, nul), object: bytes.subarray(nul + 1, nul + 1 + hashBytes).toString('hex') });
    at = nul + 1 + hashBytes;
  }
  return entries;
}

/** Trees by object name, parsed: each asked of git once however many paths go through it. */
async function readTreeObjects(reader: ObjectReader, names: readonly string[], into: Map<string, TreeEntry[] | undefined>): Promise<void> {
  const missing = [...new Set(names)].filter((name) => !into.has(name));
  const objects = await reader.contents(missing);
  missing.forEach((name, i) => {
    const object = objects[i];
    into.set(name, object?.type === 'tree' ? treeEntries(object.bytes!, hashBytesOf(object.name)) : undefined);
  });
}

/**
 * What each path (`''` for the root) names in its commit's tree, as `<commit>:<path>` names it: the
 * entry's object and mode, or undefined where there is none. Walked a depth a request, by names.
 */
export async function lookUp(reader: ObjectReader, specs: readonly { readonly commit: string; readonly path: string }[]): Promise<({ object: string; mode: string } | undefined)[]> {
  const roots = [...new Set(specs.map((spec) => spec.commit))].filter(isObjectName);
  const rootTrees = await reader.contents(roots.map((commit) => `${commit}^{tree}`));
  const parsed = new Map<string, TreeEntry[] | undefined>();
  const rootOf = new Map<string, string | undefined>();
  roots.forEach((commit, i) => {
    const tree = rootTrees[i];
    rootOf.set(commit, tree?.type === 'tree' ? tree.name : undefined);
    if (tree?.type === 'tree') parsed.set(tree.name, treeEntries(tree.bytes!, hashBytesOf(tree.name)));
  });
  const found: ({ object: string; mode: string } | undefined)[] = specs.map(() => undefined);
  let walking = specs.flatMap((spec, index) => {
    const root = rootOf.get(spec.commit);
    if (root === undefined) return [];
    if (spec.path === '') {
      found[index] = { object: root, mode: '40000' };
      return [];
    }
    return [{ index, tree: root, parts: spec.path.split('/').map((part) => Buffer.from(part, 'utf8')) }];
  });
  while (walking.length > 0) {
    await readTreeObjects(reader, walking.map((walk) => walk.tree), parsed);
    walking = walking.flatMap((walk) => {
      const [part, ...rest] = walk.parts;
      const entry = parsed.get(walk.tree)?.find((e) => e.name.equals(part!));
      if (!entry) return [];
      if (rest.length === 0) {
        found[walk.index] = { object: entry.object, mode: entry.mode };
        return [];
      }
      return entry.mode === '40000' ? [{ index: walk.index, tree: entry.object, parts: rest }] : [];
    });
  }
  return found;
}

/**
 * The files below each `directory` at its `commit`, for many versions at once, through the entry's
 * object reader: the trees of one depth of every version in one request, then the sizes of every
 * blob in one, then their bytes in one.
 */
export async function readManyTrees(entry: CacheEntry, versions: readonly Version[]): Promise<PackageTree[]> {
  const reader = entry.objects();
  const listings = versions.map((version) => new CheckedListing(entry, version));
  const directories = await lookUp(reader, versions.map((version) => ({ commit: version.commit, path: repoDirectory(version.directory) })));
  const noDirectory = (version: Version) => new GitError(`${entry.repo} has no directory "${version.directory ?? '/'}" at ${version.commit}`, true);
  let level = versions.map((version, index) => {
    const found = directories[index];
    if (!found) throw noDirectory(version);
    return { index, prefix: '', name: found.object };
  });
  const pendingBlobs: { index: number; path: string; mode: string; object: string }[] = [];
  while (level.length > 0) {
    const objects = await reader.contents(level.map((t) => t.name));
    const next: typeof level = [];
    level.forEach((tree, i) => {
      const object = objects[i];
      if (object?.type !== 'tree') {
        if (tree.prefix === '') throw noDirectory(versions[tree.index]!);
        return;
      }
      for (const item of treeEntries(object.bytes!, hashBytesOf(object.name))) {
        const path = listings[tree.index]!.path(tree.prefix ? Buffer.concat([Buffer.from(`${tree.prefix}/`, 'utf8'), item.name]) : item.name, item.mode === '40000');
        if (item.mode === '40000') next.push({ index: tree.index, prefix: path, name: item.object });
        else if (item.mode === '160000') listings[tree.index]!.submodule(path);
        else pendingBlobs.push({ index: tree.index, path, mode: item.mode, object: item.object });
      }
    });
    level = next;
  }
  const unique = [...new Set(pendingBlobs.map((b) => b.object))];
  const sizes = await reader.info(unique);
  const sizeOf = new Map(unique.map((object, i) => [object, sizes[i]?.size ?? 0]));
  for (const blob of pendingBlobs) listings[blob.index]!.blob(blob.path, blob.mode, blob.object, sizeOf.get(blob.object)!);
  for (const listing of listings) listing.done();
  return trees(reader, entry, listings);
}

/**
 * The paths below each directory at its commit (files, links and submodules, relative to the
 * directory; none where there is no such directory), every tree of one depth read in one request
 * to the entry's object reader, no file read. The names are the repository's and unchecked: they
 * are only compared and shown, a name that is not UTF-8 as git quotes it.
 */
export async function listPaths(entry: CacheEntry, versions: readonly Version[]): Promise<string[][]> {
  const reader = entry.objects();
  const paths: string[][] = versions.map(() => []);
  const directories = await lookUp(reader, versions.map((version) => ({ commit: version.commit, path: repoDirectory(version.directory) })));
  let level = directories.flatMap((found, index) => (found?.mode === '40000' ? [{ index, prefix: '', name: found.object }] : []));
  while (level.length > 0) {
    const objects = await reader.contents(level.map((t) => t.name));
    const next: typeof level = [];
    level.forEach((tree, i) => {
      const object = objects[i];
      if (object?.type !== 'tree') return;
      for (const item of treeEntries(object.bytes!, hashBytesOf(object.name))) {
        const name = decodeName(item.name) ?? quoteBytes(item.name);
        const path = tree.prefix ? `${tree.prefix}/${name}` : name;
        if (item.mode === '40000') next.push({ index: tree.index, prefix: path, name: item.object });
        else paths[tree.index]!.push(path);
      }
    });
    level = next;
  }
  return paths;
}

/** Blob contents by object name, in one request. */
async function readBlobs(reader: ObjectReader, entry: CacheEntry, objects: readonly string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(objects)];
  const found = await reader.contents(unique);
  const blobs = new Map<string, Buffer>();
  unique.forEach((object, i) => {
    const blob = found[i];
    if (blob?.type !== 'blob') throw new GitError(`git cat-file gave an unexpected answer for ${object} of ${entry.about}`, true);
    blobs.set(object, blob.bytes!);
  });
  return blobs;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A name from a tree, or undefined when it is not UTF-8. */
function decodeName(bytes: Buffer): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}
