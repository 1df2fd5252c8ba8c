/**
 * Package trees read from a repository's cache entry: the files below a directory at a commit, with
 * their modes, from git's objects. Every path is checked as a path of the package
 * (krm/package-paths.ts) before anything is read: the tree comes from a repository, which anyone may
 * have written. Two ways in, one check: `readTrees` lists a few versions with one `ls-tree` each
 * (an update's origin and upstream); `readManyTrees` reads many versions at once, every tree of
 * one depth in one `cat-file`, so a sync pays a handful of git processes per repository however
 * many packages it reads there.
 */
import { pathProblem } from '../krm/package-paths';
import { quoteBytes } from '../package/path-text';
import { ReadBudget } from '../package/read-limits';
import { directoriesOf, PackageTree, type TreeFile } from '../package/tree';
import type { CacheEntry } from './cache-entry';
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

async function trees(entry: CacheEntry, listings: readonly CheckedListing[]): Promise<PackageTree[]> {
  const blobs = await readBlobs(entry, listings.flatMap(({ blobs }) => blobs.map((e) => e.object)));
  return listings.map(({ blobs: entries, links, submodules }) => {
    const files = new Map(entries.map((e) => [e.path, { bytes: blobs.get(e.object)!, mode: e.mode } as TreeFile]));
    return new PackageTree(files, directoriesOf([...files.keys(), ...links]), new Set(links), new Set(), new Set(submodules));
  });
}

/** The files below each `directory` at its `commit`, read from git's objects (an `ls-tree` a version, one `cat-file` for all). */
export async function readTrees(entry: CacheEntry, versions: readonly Version[]): Promise<PackageTree[]> {
  return trees(entry, await Promise.all(versions.map((version) => listTree(entry, version))));
}

/** The blobs below the version's directory (within the read bounds), and its symbolic links, which are never followed. */
async function listTree(entry: CacheEntry, version: Version): Promise<CheckedListing> {
  const dir = repoDirectory(version.directory);
  // `-t` lists directories too: an empty one's name is checked as well as a file's.
  const listing = await entry.git(['ls-tree', '-r', '-t', '-l', '-z'], { operands: [version.commit, ...(dir ? [dir] : [])] });
  const checked = new CheckedListing(entry, version);
  const prefix = Buffer.from(dir ? `${dir}/` : '', 'utf8');
  for (const record of splitRecords(listing)) {
    const tab = record.indexOf(9);
    const match = /^(\d+) (\w+) ([0-9a-f]+) +(\S+)$/.exec(record.subarray(0, tab).toString('latin1'));
    if (tab < 0 || !match) continue;
    const full = record.subarray(tab + 1);
    if (dir && !full.subarray(0, prefix.length).equals(prefix)) continue;
    const path = checked.path(full.subarray(prefix.length), match[2] === 'tree');
    if (match[2] === 'blob') checked.blob(path, match[1]!, match[3]!, Number(match[4]));
    else if (match[2] === 'commit') checked.submodule(path);
  }
  checked.done();
  return checked;
}

/** Objects by name, in one `git cat-file` (`--batch`, or `--batch-check` for headers only): type, size and, with `--batch`, the bytes. */
async function catFile(entry: CacheEntry, names: readonly string[], check: boolean): Promise<({ type: string; size: number; bytes?: Buffer } | undefined)[]> {
  if (names.length === 0) return [];
  const out = await entry.git(['cat-file', check ? '--batch-check' : '--batch'], { input: `${names.join('\n')}\n` });
  const found: ({ type: string; size: number; bytes?: Buffer } | undefined)[] = [];
  let at = 0;
  for (const name of names) {
    const newline = out.indexOf(10, at);
    const header = out.subarray(at, newline).toString('utf8');
    at = newline + 1;
    if (/ (missing|ambiguous)$/.test(header)) {
      found.push(undefined);
      continue;
    }
    const [, type, sizeText] = header.split(' ');
    const size = Number(sizeText);
    if (!type || !Number.isInteger(size) || newline < 0) throw new GitError(`git cat-file gave an unexpected answer for ${name} of ${entry.about}`, true);
    if (check) found.push({ type, size });
    else {
      found.push({ type, size, bytes: out.subarray(at, at + size) });
      at += size + 1;
    }
  }
  return found;
}

/** The entries of a tree object: `<mode> <name>\0<binary object name>` each. */
function treeEntries(bytes: Buffer, hashBytes: number): { mode: string; name: Buffer; object: string }[] {
  const entries: { mode: string; name: Buffer; object: string }[] = [];
  for (let at = 0; at < bytes.length; ) {
    const space = bytes.indexOf(32, at);
    const nul = bytes.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 1 + hashBytes > bytes.length) throw new Error('a tree object that git cannot have written');
    entries.push({ mode: bytes.subarray(at, space).toString('latin1'), name: bytes.subarray(space + 1, nul), object: bytes.subarray(nul + 1, nul + 1 + hashBytes).toString('hex') });
    at = nul + 1 + hashBytes;
  }
  return entries;
}

/**
 * The files below each `directory` at its `commit`, for many versions at once: the trees of one
 * depth of every version in one `cat-file`, then the sizes of every blob in one, then their bytes
 * in one. The same checks as `readTrees`.
 */
export async function readManyTrees(entry: CacheEntry, versions: readonly Version[]): Promise<PackageTree[]> {
  const listings = versions.map((version) => new CheckedListing(entry, version));
  let level = versions.map((version, index) => {
    const dir = repoDirectory(version.directory);
    return { index, prefix: '', name: dir ? `${version.commit}:${dir}` : `${version.commit}^{tree}` };
  });
  const pendingBlobs: { index: number; path: string; mode: string; object: string }[] = [];
  while (level.length > 0) {
    const objects = await catFile(entry, level.map((t) => t.name), false);
    const next: typeof level = [];
    level.forEach((tree, i) => {
      const object = objects[i];
      const version = versions[tree.index]!;
      if (object?.type !== 'tree') {
        if (tree.prefix === '') throw new GitError(`${entry.repo} has no directory "${version.directory ?? '/'}" at ${version.commit}`, true);
        return;
      }
      const hashBytes = /^[0-9a-f]{64}$/.test(version.commit) ? 32 : 20;
      for (const item of treeEntries(object.bytes!, hashBytes)) {
        const path = listings[tree.index]!.path(tree.prefix ? Buffer.concat([Buffer.from(`${tree.prefix}/`, 'utf8'), item.name]) : item.name, item.mode === '40000');
        if (item.mode === '40000') next.push({ index: tree.index, prefix: path, name: item.object });
        else if (item.mode === '160000') listings[tree.index]!.submodule(path);
        else pendingBlobs.push({ index: tree.index, path, mode: item.mode, object: item.object });
      }
    });
    level = next;
  }
  const sizes = await catFile(entry, [...new Set(pendingBlobs.map((b) => b.object))], true);
  const sizeOf = new Map([...new Set(pendingBlobs.map((b) => b.object))].map((object, i) => [object, sizes[i]?.size ?? 0]));
  for (const blob of pendingBlobs) listings[blob.index]!.blob(blob.path, blob.mode, blob.object, sizeOf.get(blob.object)!);
  for (const listing of listings) listing.done();
  return trees(entry, listings);
}

/**
 * The paths below each directory at its commit (files, links and submodules, relative to the
 * directory; none where there is no such directory), every tree of one depth read in one
 * `cat-file`, no file read. The names are the repository's and unchecked: they are only compared
 * and shown, a name that is not UTF-8 as git quotes it.
 */
export async function listPaths(entry: CacheEntry, versions: readonly Version[]): Promise<string[][]> {
  const paths: string[][] = versions.map(() => []);
  let level = versions.map((version, index) => ({ index, prefix: '', name: `${version.commit}:${repoDirectory(version.directory)}`, hashBytes: /^[0-9a-f]{64}$/.test(version.commit) ? 32 : 20 }));
  while (level.length > 0) {
    const objects = await catFile(entry, level.map((t) => t.name), false);
    const next: typeof level = [];
    level.forEach((tree, i) => {
      if (objects[i]?.type !== 'tree') return;
      for (const item of treeEntries(objects[i]!.bytes!, tree.hashBytes)) {
        const name = decodeName(item.name) ?? quoteBytes(item.name);
        const path = tree.prefix ? `${tree.prefix}/${name}` : name;
        if (item.mode === '40000') next.push({ ...tree, prefix: path, name: item.object });
        else paths[tree.index]!.push(path);
      }
    });
    level = next;
  }
  return paths;
}

/** Blob contents by object name, in one `git cat-file --batch`. */
export async function readBlobs(entry: CacheEntry, objects: readonly string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(objects)];
  const found = await catFile(entry, unique, false);
  const blobs = new Map<string, Buffer>();
  unique.forEach((object, i) => {
    const blob = found[i];
    if (blob?.type !== 'blob') throw new GitError(`git cat-file gave an unexpected answer for ${object} of ${entry.about}`, true);
    blobs.set(object, blob.bytes!);
  });
  return blobs;
}

/** The NUL-terminated records of `git ls-tree -z`, as bytes: a name is only decoded once it is known whole. */
function splitRecords(listing: Buffer): Buffer[] {
  const records: Buffer[] = [];
  for (let at = 0; at < listing.length; ) {
    let end = listing.indexOf(0, at);
    if (end < 0) end = listing.length;
    records.push(listing.subarray(at, end));
    at = end + 1;
  }
  return records;
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
