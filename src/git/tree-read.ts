/**
 * Package trees read from a repository's cache entry: the files below a directory at a commit, with
 * their modes, from git's objects (one `ls-tree` a version, one `cat-file` for every blob). Every
 * path is checked as a path of the package (krm/package-paths.ts) before anything is read: the
 * tree comes from a repository, which anyone may have written.
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

/** The files below each `directory` at its `commit`, read from git's objects (one `cat-file` for all). */
export async function readTrees(entry: CacheEntry, versions: readonly { readonly commit: string; readonly directory: string | undefined }[]): Promise<PackageTree[]> {
  const listings = await Promise.all(versions.map(({ commit, directory }) => listTree(entry, commit, directory)));
  const blobs = await readBlobs(entry, listings.flatMap(({ entries }) => entries.map((e) => e.object)));
  return listings.map(({ entries, links }) => {
    const files = new Map(entries.map((e) => [e.path, { bytes: blobs.get(e.object)!, mode: e.mode } as TreeFile]));
    return new PackageTree(files, directoriesOf([...files.keys(), ...links]), new Set(links));
  });
}

/**
 * The blobs below `directory` (within the read bounds), and its symbolic links, which are never
 * followed. Every path is checked first: a version holding one that cannot be a package's (`..`,
 * `.git` in any spelling, a reserved name, a name that is not UTF-8, a path twice, a file where a
 * directory is) is refused, naming it.
 */
async function listTree(entry: CacheEntry, commit: string, directory: string | undefined): Promise<{ entries: { path: string; mode: number; object: string }[]; links: string[] }> {
  const dir = repoDirectory(directory);
  const listing = await entry.git(['ls-tree', '-r', '-l', '-z'], { operands: [commit, ...(dir ? [dir] : [])] });
  const entries: { path: string; mode: number; object: string }[] = [];
  const links: string[] = [];
  const seen = new Set<string>();
  const prefix = Buffer.from(dir ? `${dir}/` : '', 'utf8');
  const refuse = (path: string, why: string) => new GitError(`${entry.repo} at ${commit} holds ${path}, which cannot be a path of the package: ${why}; the version is refused`, true);
  const budget = new ReadBudget((path, problem) => new GitError(`${path} of ${entry.repo} at ${commit} ${problem}`, true));
  for (const record of splitRecords(listing)) {
    const tab = record.indexOf(9);
    const match = /^(\d+) (\w+) ([0-9a-f]+) +(\S+)$/.exec(record.subarray(0, tab).toString('latin1'));
    if (tab < 0 || !match) continue;
    const full = record.subarray(tab + 1);
    if (dir && !full.subarray(0, prefix.length).equals(prefix)) continue;
    const name = full.subarray(prefix.length);
    const path = decodeName(name);
    if (path === undefined) throw refuse(quoteBytes(name), 'its name is not UTF-8, and the update never renames a file');
    const why = pathProblem(path);
    if (why) throw refuse(JSON.stringify(path), why);
    if (seen.has(path)) throw refuse(JSON.stringify(path), 'the tree holds it twice');
    seen.add(path);
    if (match[2] !== 'blob') continue;
    if (match[1] === '120000') {
      links.push(path);
      continue;
    }
    budget.spend(path, Number(match[4]));
    entries.push({ path, mode: match[1] === '100755' ? 0o755 : 0o644, object: match[3]! });
  }
  for (const path of seen) {
    for (let at = path.lastIndexOf('/'); at > 0; at = path.lastIndexOf('/', at - 1)) {
      if (seen.has(path.slice(0, at))) throw refuse(JSON.stringify(path.slice(0, at)), 'the tree holds it both as a file and as a directory');
    }
  }
  if (entries.length === 0) throw new GitError(`${entry.repo} has no directory "${directory ?? '/'}" at ${commit}`, true);
  return { entries, links };
}

/** Blob contents by object name, in one `git cat-file --batch`. */
export async function readBlobs(entry: CacheEntry, objects: readonly string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(objects)];
  const out = await entry.git(['cat-file', '--batch'], { input: `${unique.join('\n')}\n` });
  const blobs = new Map<string, Buffer>();
  let at = 0;
  for (const object of unique) {
    const newline = out.indexOf(10, at);
    const header = out.subarray(at, newline).toString('utf8').split(' ');
    const size = Number(header[2]);
    if (header[0] !== object || !Number.isInteger(size)) throw new GitError(`git cat-file gave an unexpected answer for ${object} of ${entry.about}`, true);
    blobs.set(object, out.subarray(newline + 1, newline + 1 + size));
    at = newline + 1 + size + 1;
  }
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
