/**
 * Upstream packages from git, as kpt's update fetches them: the refs listed with `git ls-remote`,
 * a ref resolved as kpt resolves it (a tag named after the package directory first, then a branch,
 * then a tag), and only the commits needed fetched (shallow) into a bare repository per remote,
 * kept in a cache directory between runs. Files are read from git's objects into memory: nothing is
 * checked out, and nothing is written to the package.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ReadBudget } from '../package/read-limits';
import { directoriesOf, PackageTree, type TreeFile } from '../package/tree';
import { git, GitError, gitQuery, type GitRun } from './run-git';

/** Where fetched repositories are kept: $PACKAGE_VARIANT_CACHE_DIR, else the XDG cache directory. */
function cacheRoot(env: NodeJS.ProcessEnv): string {
  if (env.PACKAGE_VARIANT_CACHE_DIR) return env.PACKAGE_VARIANT_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  return join(base, 'package-variant', 'repos');
}

/** A package directory as a Kptfile records it (`/pkg`, `pkg/`, `/`), as a path in the repository. */
export function repoDirectory(directory: string | undefined): string {
  return (directory ?? '').replace(/^\/+|\/+$/g, '');
}

export interface ResolvedRef {
  /** The ref kpt records in `upstreamLock.git.ref` (a package tag `dir/ref` when there is one). */
  readonly ref: string;
  /** The object the ref names, recorded in `upstreamLock.git.commit`. */
  readonly commit: string;
}

const FULL_SHA = /^[0-9a-f]{40}$/;
const SHORT_SHA = /^[0-9a-f]{4,39}$/;

export class GitSource {
  private refs?: { heads: Map<string, string>; tags: Map<string, string> };
  private readonly dir: string;
  private readonly run: GitRun;

  constructor(
    readonly repo: string,
    env: NodeJS.ProcessEnv,
  ) {
    this.dir = join(cacheRoot(env), createHash('sha256').update(repo).digest('hex').slice(0, 32));
    this.run = { env, cwd: this.dir };
  }

  private ensureRepository(): void {
    if (existsSync(join(this.dir, 'HEAD'))) return;
    mkdirSync(this.dir, { recursive: true });
    git(['init', '-q', '--bare', this.dir], { env: this.run.env });
  }

  private remoteRefs(): { heads: Map<string, string>; tags: Map<string, string> } {
    if (this.refs) return this.refs;
    const heads = new Map<string, string>();
    const tags = new Map<string, string>();
    const out = git(['ls-remote', '--heads', '--tags', '--refs', this.repo], { env: this.run.env }).toString('utf8');
    for (const line of out.split('\n')) {
      const match = /^([0-9a-f]+)\s+refs\/(heads|tags)\/(.+)$/.exec(line);
      if (match) (match[2] === 'heads' ? heads : tags).set(match[3]!, match[1]!);
    }
    this.refs = { heads, tags };
    return this.refs;
  }

  /** kpt's resolution: `<package dir>/<ref>` tags, longest directory first, then the ref as a branch or tag. */
  resolve(ref: string, directory: string | undefined): ResolvedRef {
    const { heads, tags } = this.remoteRefs();
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
    if (SHORT_SHA.test(ref)) return { ref, commit: this.expandShortSha(ref) };
    throw new GitError(`unknown ref "${ref}": ${this.repo} has no branch or tag of that name`, true);
  }

  /** A short commit name needs the history: everything is fetched, as kpt does for refs it cannot resolve. */
  private expandShortSha(short: string): string {
    this.ensureRepository();
    git(['fetch', '-q', '--no-tags', this.repo, '+refs/heads/*:refs/package-variant/heads/*', '+refs/tags/*:refs/package-variant/tags/*'], this.run);
    const full = gitQuery(['rev-parse', '--verify', '-q', `${short}^{commit}`], this.run)?.toString('utf8').trim();
    if (!full) throw new GitError(`unknown ref "${short}": no commit of ${this.repo} starts with it`, true);
    return full;
  }

  /** Commits this cache fetched carry a ref of their own; looking for it needs no git process. */
  private has(commit: string): boolean {
    const ref = `refs/package-variant/commits/${commit}`;
    if (existsSync(join(this.dir, ref))) return true;
    const packed = join(this.dir, 'packed-refs');
    return existsSync(packed) && readFileSync(packed, 'utf8').includes(` ${ref}\n`);
  }

  /** Fetches the commits the cache does not hold yet, each alone and shallow. */
  fetch(commits: readonly string[]): void {
    this.ensureRepository();
    const missing = [...new Set(commits)].filter((c) => !this.has(c));
    if (missing.length === 0) return;
    try {
      git(['fetch', '-q', '--depth=1', '--no-tags', this.repo, ...missing.map((c) => `+${c}:refs/package-variant/commits/${c}`)], this.run);
    } catch (error) {
      if (!(error instanceof GitError) || !error.exited) throw error;
      // A server that refuses unadvertised commits: fetch its branches and tags instead.
      git(['fetch', '-q', '--no-tags', this.repo, '+refs/heads/*:refs/package-variant/heads/*', '+refs/tags/*:refs/package-variant/tags/*'], this.run);
      for (const commit of missing) {
        if (gitQuery(['update-ref', `refs/package-variant/commits/${commit}`, commit], this.run) === undefined) throw new GitError(`${this.repo} has no commit ${commit}`, true);
      }
    }
  }

  /** The files below each `directory` at its `commit`, read from git's objects (one `cat-file` for all). */
  readTrees(versions: readonly { readonly commit: string; readonly directory: string | undefined }[]): PackageTree[] {
    const listings = versions.map(({ commit, directory }) => this.listTree(commit, directory));
    const blobs = readBlobs(listings.flatMap(({ entries }) => entries.map((e) => e.object)), this.run);
    return listings.map(({ entries, links }) => {
      const files = new Map(entries.map((e) => [e.path, { bytes: blobs.get(e.object)!, mode: e.mode } as TreeFile]));
      return new PackageTree(files, directoriesOf([...files.keys(), ...links]), new Set(links));
    });
  }

  /** The blobs below `directory` (within the read bounds), and its symbolic links, which are never followed. */
  private listTree(commit: string, directory: string | undefined): { entries: { path: string; mode: number; object: string }[]; links: string[] } {
    const dir = repoDirectory(directory);
    const listing = git(['ls-tree', '-r', '-l', '-z', commit, ...(dir ? ['--', dir] : [])], this.run).toString('utf8');
    const entries: { path: string; mode: number; object: string }[] = [];
    const links: string[] = [];
    const budget = new ReadBudget((path, problem) => new GitError(`${path} of ${this.repo} at ${commit} ${problem}`, true));
    for (const record of listing.split('\0')) {
      const match = /^(\d+) (\w+) ([0-9a-f]+) +(\S+)\t(.*)$/s.exec(record);
      if (!match || match[2] !== 'blob') continue;
      const full = match[5]!;
      if (dir && !full.startsWith(`${dir}/`)) continue;
      const path = dir ? full.slice(dir.length + 1) : full;
      if (match[1] === '120000') {
        links.push(path);
        continue;
      }
      budget.spend(path, Number(match[4]));
      entries.push({ path, mode: match[1] === '100755' ? 0o755 : 0o644, object: match[3]! });
    }
    if (entries.length === 0) throw new GitError(`${this.repo} has no directory "${directory ?? '/'}" at ${commit}`, true);
    return { entries, links };
  }
}

/** Blob contents by object name, in one `git cat-file --batch`. */
function readBlobs(objects: readonly string[], run: GitRun): Map<string, Buffer> {
  const unique = [...new Set(objects)];
  const out = git(['cat-file', '--batch'], { ...run, input: `${unique.join('\n')}\n` });
  const blobs = new Map<string, Buffer>();
  let at = 0;
  for (const object of unique) {
    const newline = out.indexOf(10, at);
    const header = out.subarray(at, newline).toString('utf8').split(' ');
    const size = Number(header[2]);
    if (header[0] !== object || !Number.isInteger(size)) throw new GitError(`git cat-file gave an unexpected answer for ${object}`, true);
    blobs.set(object, out.subarray(newline + 1, newline + 1 + size));
    at = newline + 1 + size + 1;
  }
  return blobs;
}
