/**
 * Upstream packages from git, as kpt's update fetches them: the refs listed with `git ls-remote`,
 * a ref resolved as kpt resolves it (a tag named after the package directory first, then a branch,
 * then a tag), and only the commits needed fetched (shallow) into the repository's cache entry
 * (cache-entry.ts). Files are read from git's objects into memory: nothing is checked out, and
 * nothing is written to the package. Every path read from a tree is checked as a path of the
 * package (krm/package-paths.ts) before anything is merged.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathProblem } from '../krm/package-paths';
import { quoteBytes } from '../package/path-text';
import { ReadBudget } from '../package/read-limits';
import { directoriesOf, PackageTree, type TreeFile } from '../package/tree';
import { CacheEntry, type CacheOptions } from './cache-entry';
import type { RepositoryLocation } from './remote-url';
import { GitError } from './run-git';

/** A package directory as a Kptfile records it (`/pkg`, `pkg/`, `/`), as a path in the repository. */
export function repoDirectory(directory: string | undefined): string {
  return (directory ?? '').replace(/^\/+|\/+$/g, '');
}

const FULL_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const SHORT_SHA = /^[0-9a-f]{4,39}$/;

export function isFullSha(value: string): boolean {
  return FULL_SHA.test(value);
}

export interface ResolvedRef {
  /** The ref kpt records in `upstreamLock.git.ref` (a package tag `dir/ref` when there is one). */
  readonly ref: string;
  /** The object the ref names, recorded in `upstreamLock.git.commit`. */
  readonly commit: string;
}

export class GitSource {
  private refs?: Promise<{ heads: Map<string, string>; tags: Map<string, string> }>;
  private readonly entry: CacheEntry;

  constructor(
    /** What the Kptfile records, for messages. */
    readonly repo: string,
    location: RepositoryLocation,
    options: CacheOptions,
  ) {
    this.entry = new CacheEntry(repo, location, options);
  }

  private remoteRefs(): Promise<{ heads: Map<string, string>; tags: Map<string, string> }> {
    this.refs ??= (async () => {
      const heads = new Map<string, string>();
      const tags = new Map<string, string>();
      const out = (await this.entry.git(['ls-remote', '--heads', '--tags', '--refs'], { operands: [this.entry.location.url], transfer: true })).toString('utf8');
      for (const line of out.split('\n')) {
        const match = /^([0-9a-f]+)\trefs\/(heads|tags)\/(.+)$/.exec(line);
        if (match && FULL_SHA.test(match[1]!)) (match[2] === 'heads' ? heads : tags).set(match[3]!, match[1]!);
      }
      return { heads, tags };
    })();
    return this.refs;
  }

  /** kpt's resolution: `<package dir>/<ref>` tags, longest directory first, then the ref as a branch or tag. */
  async resolve(ref: string, directory: string | undefined): Promise<ResolvedRef> {
    const { heads, tags } = await this.remoteRefs();
    let name = ref;
    const parts = repoDirectory(directory).split('/').filter(Boolean);
    for (let n = parts.length; n > 0; n -= 1) {
      const packageRef = `${parts.slice(0, n).join('/')}/${ref}`;
      if (tags.has(packageRef)) {
        name = packageRef;
        break;
      }
    }
    const bare = name.replace(/^refs\/(heads|tags)\//, '');
    const commit = heads.get(bare) ?? tags.get(bare);
    if (commit) return { ref: name, commit };
    if (FULL_SHA.test(ref)) return { ref, commit: ref };
    if (SHORT_SHA.test(ref)) return { ref, commit: await this.expandShortSha(ref) };
    throw new GitError(`unknown ref ${JSON.stringify(ref)}: ${this.repo} has no branch or tag of that name`, true);
  }

  /** A short commit name needs the history: everything is fetched, as kpt does for refs it cannot resolve. */
  private async expandShortSha(short: string): Promise<string> {
    await this.entry.fetch([], ['+refs/heads/*:refs/package-variant/heads/*', '+refs/tags/*:refs/package-variant/tags/*']);
    // Only the repository's own commits are candidates, not whatever else the entry holds.
    const reachable = (await this.entry.git(['rev-list', '--glob=refs/package-variant/heads', '--glob=refs/package-variant/tags'])).toString('utf8');
    const found = reachable.split('\n').filter((commit) => commit.startsWith(short));
    if (found.length === 0) throw new GitError(`unknown ref "${short}": no commit of ${this.repo} starts with it`, true);
    if (found.length > 1) throw new GitError(`the ref "${short}" is ambiguous: ${found.length} commits of ${this.repo} start with it`, true);
    return found[0]!;
  }

  /** Commits this cache fetched carry a ref of their own; looking for it needs no git process. */
  private has(commit: string): boolean {
    const ref = `refs/package-variant/commits/${commit}`;
    if (existsSync(join(this.entry.dir, ref))) return true;
    const packed = join(this.entry.dir, 'packed-refs');
    return existsSync(packed) && readFileSync(packed, 'utf8').includes(` ${ref}\n`);
  }

  /** Fetches the commits the cache does not hold yet, each alone and shallow. */
  async fetch(commits: readonly string[]): Promise<void> {
    for (const commit of commits) if (!FULL_SHA.test(commit)) throw new GitError(`${JSON.stringify(commit)} is not a commit name (40 hexadecimal digits)`, false);
    await this.entry.prepare();
    const missing = [...new Set(commits)].filter((c) => !this.has(c));
    if (missing.length === 0) return;
    try {
      await this.entry.fetch(['--depth=1'], missing.map((c) => `+${c}:refs/package-variant/commits/${c}`));
    } catch (error) {
      if (!(error instanceof GitError) || !error.exited || /fsck/i.test(error.gitMessage)) throw error;
      // A server that refuses unadvertised commits: fetch its branches and tags instead.
      await this.entry.fetch([], ['+refs/heads/*:refs/package-variant/heads/*', '+refs/tags/*:refs/package-variant/tags/*']);
      for (const commit of missing) {
        try {
          await this.entry.git(['update-ref'], { operands: [`refs/package-variant/commits/${commit}`, commit] });
        } catch (failure) {
          if (failure instanceof GitError && failure.exited) throw new GitError(`${this.repo} has no commit ${commit}`, true);
          throw failure;
        }
      }
    }
  }

  /** The files below each `directory` at its `commit`, read from git's objects (one `cat-file` for all). */
  async readTrees(versions: readonly { readonly commit: string; readonly directory: string | undefined }[]): Promise<PackageTree[]> {
    const listings = await Promise.all(versions.map(({ commit, directory }) => this.listTree(commit, directory)));
    const blobs = await this.readBlobs(listings.flatMap(({ entries }) => entries.map((e) => e.object)));
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
  private async listTree(commit: string, directory: string | undefined): Promise<{ entries: { path: string; mode: number; object: string }[]; links: string[] }> {
    const dir = repoDirectory(directory);
    const listing = await this.entry.git(['ls-tree', '-r', '-l', '-z'], { operands: [commit, ...(dir ? [dir] : [])] });
    const entries: { path: string; mode: number; object: string }[] = [];
    const links: string[] = [];
    const seen = new Set<string>();
    const prefix = Buffer.from(dir ? `${dir}/` : '', 'utf8');
    const refuse = (path: string, why: string) => new GitError(`${this.repo} at ${commit} holds ${path}, which cannot be a path of the package: ${why}; the version is refused`, true);
    const budget = new ReadBudget((path, problem) => new GitError(`${path} of ${this.repo} at ${commit} ${problem}`, true));
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
    if (entries.length === 0) throw new GitError(`${this.repo} has no directory "${directory ?? '/'}" at ${commit}`, true);
    return { entries, links };
  }

  /** Blob contents by object name, in one `git cat-file --batch`. */
  private async readBlobs(objects: readonly string[]): Promise<Map<string, Buffer>> {
    const unique = [...new Set(objects)];
    const out = await this.entry.git(['cat-file', '--batch'], { input: `${unique.join('\n')}\n` });
    const blobs = new Map<string, Buffer>();
    let at = 0;
    for (const object of unique) {
      const newline = out.indexOf(10, at);
      const header = out.subarray(at, newline).toString('utf8').split(' ');
      const size = Number(header[2]);
      if (header[0] !== object || !Number.isInteger(size)) throw new GitError(`git cat-file gave an unexpected answer for ${object} of ${this.entry.about}`, true);
      blobs.set(object, out.subarray(newline + 1, newline + 1 + size));
      at = newline + 1 + size + 1;
    }
    return blobs;
  }
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
