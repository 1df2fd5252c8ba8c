/**
 * A whole repository as sync works on it: every branch and tag fetched into its cache entry
 * (cache-entry.ts) in one fetch, read from there (refs, commit messages, files at commits, package
 * trees), new commits written there in one `git fast-import`, and refs moved on the repository in
 * one atomic push, each leased on the value the fetch saw. Everything read is the repository's:
 * refs and paths are only compared and checked, never handed to git as anything but an operand.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PackageTree } from '../package/tree';
import { CacheEntry, type CacheOptions } from './cache-entry';
import { fastImportStream, readMarks, type NewCommit } from './fast-import';
import type { RepositoryLocation } from './remote-url';
import { GitError } from './run-git';
import { listPaths, readManyTrees } from './tree-read';

/** Where this program keeps a repository's refs in its entry, apart from the update's. */
const MIRROR = 'refs/package-variant/sync/';
const STAGED = 'refs/package-variant/staged/';
const OBJECT_NAME = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** A commit as sync reads it: its parents and its message. */
export interface CommitFacts {
  readonly parents: readonly string[];
  readonly message: string;
}

export interface RefMove {
  readonly ref: string;
  /** The value the ref must have on the repository when it is pushed; undefined: it must not exist. */
  readonly expected: string | undefined;
  /** A commit, or null to delete the ref. */
  readonly target: string | null;
}

/** A commit's parents and message from its text as git stores it, each message line after `indent`. */
function readCommit(text: string, indent: string): CommitFacts {
  const body = text.indexOf('\n\n');
  const headers = (body < 0 ? text : text.slice(0, body)).split('\n');
  const parents = headers.filter((line) => line.startsWith('parent ')).map((line) => line.slice('parent '.length));
  const message = body < 0 ? '' : text.slice(body + 2);
  return { parents, message: indent ? message.split('\n').map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line)).join('\n') : message };
}

/** A push the repository turned down because a ref is no longer what the fetch saw. */
export class StaleRefError extends GitError {}

/** The identities of a run's commits, by the run's options (its environment): one `git var` a run. */
const identities = new WeakMap<CacheOptions, Promise<{ author: string; committer: string }>>();

export class CachedRemote {
  private constructor(
    private readonly options: CacheOptions,
    private readonly entry: CacheEntry,
    /** Every ref of the repository as fetched, by full name, tags peeled to their commit. */
    readonly refs: ReadonlyMap<string, string>,
  ) {}

  /** Fetches every branch and tag of the repository (refs it no longer has are dropped) and lists them. */
  static async open(repo: string, location: RepositoryLocation, options: CacheOptions): Promise<CachedRemote> {
    const entry = new CacheEntry(repo, location, options);
    await entry.fetch(['--prune'], [`+refs/heads/*:${MIRROR}heads/*`, `+refs/tags/*:${MIRROR}tags/*`]);
    const listing = (await entry.git(['for-each-ref', '--format=%(objectname) %(*objectname) %(refname)', MIRROR])).toString('utf8');
    const refs = new Map<string, string>();
    for (const line of listing.split('\n')) {
      const match = /^([0-9a-f]+) ([0-9a-f]*) (.+)$/.exec(line);
      if (!match) continue;
      const commit = match[2] || match[1]!;
      if (OBJECT_NAME.test(commit)) refs.set(`refs/${match[3]!.slice(MIRROR.length)}`, commit);
    }
    return new CachedRemote(options, entry, refs);
  }

  get about(): string {
    return this.entry.about;
  }

  /** Objects by name, in one `git cat-file --batch`: each with its type, or undefined when the repository has none. */
  private async objects(names: readonly string[]): Promise<({ type: string; bytes: Buffer } | undefined)[]> {
    if (names.length === 0) return [];
    const out = await this.entry.git(['cat-file', '--batch'], { input: `${names.join('\n')}\n` });
    const found: ({ type: string; bytes: Buffer } | undefined)[] = [];
    let at = 0;
    for (const name of names) {
      const newline = out.indexOf(10, at);
      const header = out.subarray(at, newline).toString('utf8');
      if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
        found.push(undefined);
        at = newline + 1;
        continue;
      }
      const [, type, sizeText] = header.split(' ');
      const size = Number(sizeText);
      if (!type || !Number.isInteger(size)) throw new GitError(`git cat-file gave an unexpected answer for ${name} of ${this.entry.about}`, true);
      found.push({ type, bytes: out.subarray(newline + 1, newline + 1 + size) });
      at = newline + 1 + size + 1;
    }
    return found;
  }

  /** Commit messages, by commit. */
  async messages(commits: readonly string[]): Promise<ReadonlyMap<string, string>> {
    const unique = [...new Set(commits)].filter((c) => OBJECT_NAME.test(c));
    const objects = await this.objects(unique);
    const messages = new Map<string, string>();
    unique.forEach((commit, i) => {
      const object = objects[i];
      if (object?.type === 'commit') messages.set(commit, readCommit(object.bytes.toString('utf8'), '').message);
    });
    return messages;
  }

  /** The commits `tips` reach and `base` does not (the branches' own commits), by name, in one `git rev-list --header`. */
  async commitsAfter(base: string, tips: readonly string[]): Promise<ReadonlyMap<string, CommitFacts>> {
    const wanted = [...new Set(tips)].filter((c) => OBJECT_NAME.test(c));
    const commits = new Map<string, CommitFacts>();
    if (wanted.length === 0 || !OBJECT_NAME.test(base)) return commits;
    const listed = await this.entry.git(['rev-list', '--stdin', '--header'], { input: `${wanted.join('\n')}\n^${base}\n` });
    // Each record: the commit's name on a line, then the commit as git stores it, its message indented by four spaces.
    for (const record of listed.toString('utf8').split('\0')) {
      const newline = record.indexOf('\n');
      const name = record.slice(0, newline);
      if (newline > 0 && OBJECT_NAME.test(name)) commits.set(name, readCommit(record.slice(newline + 1), '    '));
    }
    return commits;
  }

  /** The bytes of files at commits (`commit:path`); undefined where there is no file. */
  async files(specs: readonly { readonly commit: string; readonly path: string }[]): Promise<(Buffer | undefined)[]> {
    const objects = await this.objects(specs.map(({ commit, path }) => `${commit}:${path}`));
    return objects.map((object) => (object?.type === 'blob' ? object.bytes : undefined));
  }

  readTrees(versions: readonly { readonly commit: string; readonly directory: string }[]): Promise<PackageTree[]> {
    return readManyTrees(this.entry, versions);
  }

  listPaths(versions: readonly { readonly commit: string; readonly directory: string }[]): Promise<string[][]> {
    return listPaths(this.entry, versions);
  }

  /** The user's git identity for new commits, asked of git once a run; git's own message says how to set it when there is none. */
  private identities(): Promise<{ author: string; committer: string }> {
    const known = identities.get(this.options);
    if (known) return known;
    const ident = async (which: string) => (await this.entry.git(['var', which])).toString('utf8').trim();
    const asked = (async () => {
      try {
        return { author: await ident('GIT_AUTHOR_IDENT'), committer: await ident('GIT_COMMITTER_IDENT') };
      } catch (error) {
        if (error instanceof GitError && error.exited) {
          throw new GitError(`new commits carry your git identity, and git has none: set it with git config --global user.name NAME and git config --global user.email EMAIL (${error.gitMessage.split('\n')[0]})`, false);
        }
        throw error;
      }
    })();
    identities.set(this.options, asked);
    return asked;
  }

  /** Makes the commits in the entry, in order, in one fast-import; their names. */
  async write(commits: readonly NewCommit[]): Promise<string[]> {
    if (commits.length === 0) return [];
    const identities = await this.identities();
    const prefix = `${STAGED}${randomBytes(6).toString('hex')}/`;
    const work = mkdtempSync(join(tmpdir(), 'package-variant-marks-'));
    try {
      const marks = join(work, 'marks');
      await this.entry.git(['fast-import', '--quiet', '--done', `--export-marks=${marks}`], { input: fastImportStream(commits, identities, prefix) });
      return readMarks(readFileSync(marks, 'utf8'), commits.length);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }

  /** Moves every ref in one atomic push, each leased on its expected value: all of them, or none. */
  async push(moves: readonly RefMove[]): Promise<void> {
    if (moves.length === 0) return;
    const leases = moves.map((move) => `--force-with-lease=${move.ref}:${move.expected ?? ''}`);
    const refspecs = moves.map((move) => `${move.target ?? ''}:${move.ref}`);
    try {
      await this.entry.git(['push', '--atomic', '--no-verify', ...leases], { operands: [this.entry.location.url, ...refspecs], transfer: true });
    } catch (error) {
      if (error instanceof GitError && /stale info|fetch first|non-fast-forward|already exists/.test(error.message)) {
        throw new StaleRefError(`the refs of ${this.entry.repo} moved since sync read them (someone else pushed): nothing was pushed there; run sync again`, true, error.gitMessage);
      }
      throw error;
    }
  }
}
