/**
 * The repository cache: a bare repository per remote, in a directory private to the user, shared by
 * every run (update's packages, sync's fleet). What it holds is not trusted: an entry is one this
 * program made (its configuration is the one it writes, checked on every use; one that is not, or
 * is half made, is made again and the run says so), made whole under another name and renamed into
 * place so that runs sharing a cold cache never see half of one. git works in it with the
 * repository's hooks, replace refs, grafts and fsmonitor turned off, objects checked on fetch, and
 * the user's GIT_DIR-style environment left out; git's own configuration and credentials hold.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ALLOWED_PROTOCOLS, type RepositoryLocation } from './remote-url';
import { ObjectReader } from './object-reader';
import { GitError, runGit, startGit, type GitTimeouts, type LongGit } from './run-git';

/** Where fetched repositories are kept: $PACKAGE_VARIANT_CACHE_DIR, else the XDG cache directory. */
export function cacheRoot(env: NodeJS.ProcessEnv): string {
  if (env.PACKAGE_VARIANT_CACHE_DIR) return env.PACKAGE_VARIANT_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  return join(base, 'package-variant', 'repos');
}

/** The cache entry of a repository, named by what git is given for it. */
export function cacheEntryPath(env: NodeJS.ProcessEnv, url: string): string {
  return join(cacheRoot(env), createHash('sha256').update(url).digest('hex').slice(0, 32));
}

/**
 * The variables that make git work on another repository than the one it is given (git rev-parse
 * --local-env-vars, and their kin): set in a git hook, or by a user's shell, they would send cache
 * work into the user's repository. git's configuration and credentials (GIT_CONFIG_*, GIT_SSH*,
 * GIT_ASKPASS, proxies) stay: they are the user's.
 */
const REPOSITORY_VARIABLES = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_INDEX_VERSION',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_IMPLICIT_WORK_TREE',
  'GIT_PREFIX',
  'GIT_QUARANTINE_PATH',
  'GIT_REPLACE_REF_BASE',
  'GIT_SHALLOW_FILE',
  'GIT_CEILING_DIRECTORIES',
  'GIT_DISCOVERY_ACROSS_FILESYSTEM',
  'GIT_GLOB_PATHSPECS',
  'GIT_NOGLOB_PATHSPECS',
  'GIT_ICASE_PATHSPECS',
];

/** The environment git runs in for cache work. */
export function cacheEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of REPOSITORY_VARIABLES) delete out[name];
  return {
    ...out,
    // Neither replace refs nor grafts may change what a commit holds.
    GIT_NO_REPLACE_OBJECTS: '1',
    // A path that cannot exist: no grafts file is read (and git has none to warn about).
    GIT_GRAFT_FILE: '/dev/null/grafts',
    // A directory from a Kptfile is a path, never pathspec magic (`:(glob)`, `:/`).
    GIT_LITERAL_PATHSPECS: '1',
    GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS.join(':'),
  };
}

/** Configuration for cache work, over whatever an entry's own file says: no hooks, no fsmonitor, objects checked, no background gc. */
const CACHE_CONFIG = [
  '-c', 'core.hooksPath=/dev/null',
  '-c', 'core.fsmonitor=false',
  '-c', 'fetch.fsckObjects=true',
  '-c', 'transfer.fsckObjects=true',
  '-c', 'gc.autoDetach=false',
];

/** An entry's configuration, as this program writes it. */
const ENTRY_CONFIG = '[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n';
/** What `git init --bare` (earlier versions made entries with it) may add on some systems. */
const CONFIG_LINE = /^\s*(?:\[core\]|repositoryformatversion = 0|filemode = (?:true|false)|bare = true|ignorecase = true|precomposeunicode = true|logallrefupdates = (?:true|false))\s*$/;

export interface CacheOptions {
  /** The user's environment: git's configuration and credentials come from it. */
  readonly env: NodeJS.ProcessEnv;
  readonly timeouts: GitTimeouts;
  /** Told what the cache repaired. */
  readonly notify: (notice: string) => void;
}

const uid = () => process.getuid?.();

/** The cache directory, made private to the user (0700) and checked to be the user's. */
function ensureRoot(root: string): void {
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    const stat = statSync(root);
    if (!stat.isDirectory()) throw new GitError(`the cache directory ${root} is not a directory`, false);
    if (uid() !== undefined && stat.uid !== uid()) throw new GitError(`the cache directory ${root} belongs to another user; set PACKAGE_VARIANT_CACHE_DIR to a directory of your own`, false);
    if ((stat.mode & 0o077) !== 0) chmodSync(root, 0o700);
  } catch (error) {
    if (error instanceof GitError) throw error;
    throw new GitError(`could not make the cache directory ${root}: ${(error as Error).message}`, false);
  }
}

/** Why a cache entry cannot be used as it is, or undefined. */
function entryProblem(dir: string): string | undefined {
  const stat = lstatSync(dir, { throwIfNoEntry: false });
  if (!stat) return undefined;
  if (!stat.isDirectory()) return 'not a directory';
  if (uid() !== undefined && stat.uid !== uid()) return "another user's";
  for (const part of ['HEAD', 'config', 'objects', 'refs']) if (!existsSync(join(dir, part))) return `incomplete (it has no ${part})`;
  const lines = readFileSync(join(dir, 'config'), 'utf8').split('\n').filter((line) => line.trim() !== '');
  if (!lines.every((line) => CONFIG_LINE.test(line))) return 'configured otherwise than package-variant configures its entries';
  return undefined;
}

/** Creates the entry whole, under a name of its own, then renames it into place: another run sees none or all of it. */
function createEntry(dir: string): void {
  const draft = mkdtempSync(`${dir}.new-`);
  try {
    writeFileSync(join(draft, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(draft, 'config'), ENTRY_CONFIG);
    for (const sub of ['objects/info', 'objects/pack', 'refs/heads', 'refs/tags']) mkdirSync(join(draft, sub), { recursive: true });
    try {
      renameSync(draft, dir);
    } catch (error) {
      // Another run made it first: its entry serves.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    }
  } finally {
    rmSync(draft, { recursive: true, force: true });
  }
}


const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** git's message when another run holds one of the entry's lock files (a shallow or ref update under way). */
const LOCKED = /Unable to create '[^']*\.lock': File exists|cannot lock ref|shallow file has changed/;

export interface GitInEntry {
  readonly operands?: readonly string[];
  readonly input?: Buffer | string;
  readonly transfer?: boolean;
}

/** A repository's entry in the cache, and git run on it. */
export class CacheEntry {
  private ready?: Promise<void>;
  private reader?: ObjectReader;
  readonly dir: string;
  private readonly env: NodeJS.ProcessEnv;
  /** How messages name it: the repository and where it is kept. */
  readonly about: string;

  constructor(
    /** The repository as recorded (a Kptfile's field), for messages. */
    readonly repo: string,
    readonly location: RepositoryLocation,
    private readonly options: CacheOptions,
  ) {
    this.dir = cacheEntryPath(options.env, location.url);
    this.env = cacheEnvironment(options.env);
    this.about = `${repo} (cached in ${this.dir})`;
  }

  /** git on the entry (made first when needed): its stdout. */
  async git(args: readonly string[], more: GitInEntry = {}): Promise<Buffer> {
    await this.prepare();
    return runGit({ args: [...CACHE_CONFIG, '--git-dir', this.dir, ...args], env: this.env, cwd: this.dir, about: this.about, timeouts: this.options.timeouts, ...more });
  }

  /** A git process on the entry that stays, answering its stdin (object-reader.ts). */
  async start(args: readonly string[]): Promise<LongGit> {
    await this.prepare();
    return startGit({ args: [...CACHE_CONFIG, '--git-dir', this.dir, ...args], env: this.env, cwd: this.dir, about: this.about, timeouts: this.options.timeouts });
  }

  /** The entry's objects, read by one process however many times they are asked for, until `close()`. */
  objects(): ObjectReader {
    this.reader ??= new ObjectReader(this);
    return this.reader;
  }

  /** Ends the process that reads the entry's objects. */
  close(): Promise<void> {
    return this.reader?.close() ?? Promise.resolve();
  }

  /** Fetches refspecs from the repository; again while another run holds the entry's locks (two runs fetching from one repository). */
  async fetch(options: readonly string[], refspecs: readonly string[]): Promise<void> {
    const started = Date.now();
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.git(['fetch', '--progress', '--no-tags', ...options], { operands: [this.location.url, ...refspecs], transfer: true });
        return;
      } catch (error) {
        if (!(error instanceof GitError) || !LOCKED.test(error.gitMessage) || Date.now() - started > this.options.timeouts.stallMs) throw error;
        await sleep(Math.min(1000, 50 * attempt));
      }
    }
  }

  /** The entry, made (or made again) when it is missing, half made or not this program's; before anything looks into it. */
  prepare(): Promise<void> {
    this.ready ??= (async () => {
      ensureRoot(cacheRoot(this.options.env));
      try {
        const problem = entryProblem(this.dir);
        if (problem) {
          const aside = `${this.dir}.broken-${randomBytes(4).toString('hex')}`;
          renameSync(this.dir, aside);
          rmSync(aside, { recursive: true, force: true });
          this.options.notify(`the cache entry ${this.dir} of ${this.repo} was ${problem}; it is made again`);
        }
        if (!existsSync(join(this.dir, 'HEAD'))) createEntry(this.dir);
      } catch (error) {
        throw new GitError(`could not prepare the cache entry ${this.dir} of ${this.repo}: ${(error as Error).message}`, false);
      }
    })();
    return this.ready;
  }
}
