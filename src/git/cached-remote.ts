/**
 * A whole repository as sync works on it: every branch and tag fetched into its cache entry
 * (cache-entry.ts) in one fetch, read from there (refs from the entry's files, commit messages,
 * files at commits and package trees through its one long-lived `cat-file`), new commits written
 * there in one `git fast-import`, and refs moved on the repository in one atomic push, each leased
 * on the value the fetch saw: four git processes a repository, however many packages it holds.
 * Everything read is the repository's: refs and paths are only compared and checked, never handed
 * to git as anything but an operand.
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
import { isObjectName } from './object-reader';
import { readRefs } from './ref-files';
import { listPaths, lookUp, readManyTrees } from './tree-read';

/** Where this program keeps a repository's refs in its entry, apart from the update's. */
const MIRROR = 'refs/package-variant/sync/';
const STAGED = 'refs/package-variant/staged/';

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
function readCommit(text: string): CommitFacts {
  const body = text.indexOf('\n\n');
  const headers = (body < 0 ? text : text.slice(0, body)).split('\n');
  const parents = headers.filter((line) => line.startsWith('parent ')).map((line) => line.slice('parent '.length));
  return { parents, message: body < 0 ? '' : text.slice(body + 2) };
}

/** The most commits read along one draft's chain: far more than any draft Porch or sync writes. */
const MAX_CHAIN = 1000;

/** A push the repository turned down because a ref is no longer what the fetch saw. */
export class StaleRefError extends GitError {}

/** The identities of a run's commits, by the run's options (its environment): one `git var` a run. */
const identities = new WeakMap<CacheOptions, Promise<{ author: string; committer: string }>>();

/** Of the objects that are tags, what each tags (one level, as `for-each-ref` reads `%(*objectname)`). */
async function taggedObjects(entry: CacheEntry, objects: readonly string[]): Promise<Map<string, string>> {
  const reader = entry.objects();
  const types = await reader.info(objects);
  const tags = objects.filter((_, i) => types[i]?.type === 'tag');
  const found = await reader.contents(tags);
  const tagged = new Map<string, string>();
  tags.forEach((tag, i) => {
    const target = /^object ([0-9a-f]+)\n/.exec(found[i]?.bytes?.toString('latin1') ?? '')?.[1];
    if (target !== undefined && isObjectName(target)) tagged.set(tag, target);
  });
  return tagged;
}

export class CachedRemote {
  private peeling?: Promise<ReadonlyMap<string, string>>;

  private constructor(
    private readonly options: CacheOptions,
    private readonly entry: CacheEntry,
    /** Every ref of the repository as fetched, by full name: what each names, tags not peeled. */
    readonly fetched: ReadonlyMap<string, string>,
  ) {}

  /** Fetches every branch and tag of the repository (refs it no longer has are dropped) and lists them; nothing is read yet. */
  static async open(repo: string, location: RepositoryLocation, options: CacheOptions): Promise<CachedRemote> {
    const entry = new CacheEntry(repo, location, options);
    await entry.fetch(['--prune'], [`+refs/heads/*:${MIRROR}heads/*`, `+refs/tags/*:${MIRROR}tags/*`]);
    const fetched = new Map<string, string>();
    for (const [name, object] of readRefs(entry.dir, MIRROR)) fetched.set(`refs/${name.slice(MIRROR.length)}`, object);
    return new CachedRemote(options, entry, fetched);
  }

  /** Every ref of the repository as fetched, tags peeled to their commit: read once, through the entry's `cat-file`. */
  refs(): Promise<ReadonlyMap<string, string>> {
    this.peeling ??= (async () => {
      const tagged = await taggedObjects(this.entry, [...new Set(this.fetched.values())]);
      return new Map([...this.fetched].map(([ref, object]) => [ref, tagged.get(object) ?? object]));
    })();
    return this.peeling;
  }

  get about(): string {
    return this.entry.about;
  }

  /** Commit messages, by commit. */
  async messages(commits: readonly string[]): Promise<ReadonlyMap<string, string>> {
    const unique = [...new Set(commits)].filter((c) => isObjectName(c));
    const objects = await this.entry.objects().contents(unique);
    const messages = new Map<string, string>();
    unique.forEach((commit, i) => {
      const object = objects[i];
      if (object?.type === 'commit') messages.set(commit, readCommit(object.bytes!.toString('utf8')).message);
    });
    return messages;
  }

  /**
   * The commits on the first-parent chain of each tip, read through the entry's one `cat-file`: a
   * chain ends before a commit of `stops` (the branch, the tags: history every draft shares), after a
   * commit `ends` (the one that starts a revision), or at MAX_CHAIN commits, so a long or hostile
   * history costs a bounded walk.
   */
  async firstParentChains(tips: readonly string[], stops: ReadonlySet<string>, ends: (commit: CommitFacts) => boolean): Promise<ReadonlyMap<string, CommitFacts>> {
    const reader = this.entry.objects();
    const commits = new Map<string, CommitFacts>();
    let frontier = [...new Set(tips)].filter(isObjectName);
    for (let depth = 0; frontier.length > 0 && depth < MAX_CHAIN; depth += 1) {
      const wanted = [...new Set(frontier)].filter((c) => !stops.has(c) && !commits.has(c));
      const objects = await reader.contents(wanted);
      frontier = [];
      wanted.forEach((name, i) => {
        const object = objects[i];
        if (object?.type !== 'commit') return;
        const facts = readCommit(object.bytes!.toString('utf8'));
        commits.set(name, facts);
        const parent = facts.parents[0];
        if (parent !== undefined && isObjectName(parent) && !ends(facts)) frontier.push(parent);
      });
    }
    return commits;
  }

  /** The bytes of files at commits (`commit:path`); undefined where there is no file. */
  async files(specs: readonly { readonly commit: string; readonly path: string }[]): Promise<(Buffer | undefined)[]> {
    const reader = this.entry.objects();
    const found = await lookUp(reader, specs);
    const objects = await reader.contents(found.flatMap((entry) => (entry ? [entry.object] : [])));
    let next = 0;
    return found.map((entry) => {
      if (!entry) return undefined;
      const object = objects[next++];
      return object?.type === 'blob' ? object.bytes : undefined;
    });
  }

  /** Ends the entry's reading process: nothing more is read from this repository. */
  close(): Promise<void> {
    return this.entry.close();
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
      await this.entry.git(['-c', 'fastimport.unpackLimit=0', 'fast-import', '--quiet', '--done', `--export-marks=${marks}`], { input: fastImportStream(commits, identities, prefix) });
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
