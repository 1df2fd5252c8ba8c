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
import type { PackageTree } from '../package/tree';
import { CacheEntry, type CacheOptions } from './cache-entry';
import type { RepositoryLocation } from './remote-url';
import { GitError } from './run-git';
import { readManyTrees, repoDirectory } from './tree-read';

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

  /** The files below each `directory` at its `commit`, read from git's objects by one process, which then ends. */
  async readTrees(versions: readonly { readonly commit: string; readonly directory: string | undefined }[]): Promise<PackageTree[]> {
    try {
      return await readManyTrees(this.entry, versions);
    } finally {
      await this.entry.close();
    }
  }
}
