/**
 * Upstream packages from git, as kpt's update fetches them: the refs listed with `git ls-remote`,
 * a ref resolved as kpt resolves it (a tag named after the package directory first, then a branch,
 * then a tag), and only the commits needed fetched (shallow) into a bare repository per remote,
 * kept in a cache directory between runs. Files are read from git's objects into memory: nothing is
 * checked out, and nothing is written to the package.
 *
 * What the cache holds is not trusted either: an entry is a repository this program made (its
 * configuration is the one it writes, checked on every use; one that is not, or is half made, is
 * made again and the run says so), git works in it with the repository's hooks, replace refs and
 * grafts turned off and the user's GIT_DIR-style environment left out, every object fetched is
 * checked (fsckObjects), and every path read from a tree is checked as a path of the package
 * (krm/package-paths.ts) before anything is merged.
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathProblem } from '../krm/package-paths';
import { quoteBytes } from '../package/path-text';
import { ReadBudget } from '../package/read-limits';
import { directoriesOf, PackageTree, type TreeFile } from '../package/tree';
import { ALLOWED_PROTOCOLS, type RepositoryLocation } from './remote-url';
import { GitError, runGit, type GitTimeouts } from './run-git';

/** Where fetched repositories are kept: $PACKAGE_VARIANT_CACHE_DIR, else the XDG cache directory. */
export function cacheRoot(env: NodeJS.ProcessEnv): string {
  if (env.PACKAGE_VARIANT_CACHE_DIR) return env.PACKAGE_VARIANT_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache');
  return join(base, 'package-variant', 'repos');
}

/** The cache entry of a repository, named by what git is given for it. */
export function cacheEntry(env: NodeJS.ProcessEnv, url: string): string {
  return join(cacheRoot(env), createHash('sha256').update(url).digest('hex').slice(0, 32));
}

/** A package directory as a Kptfile records it (`/pkg`, `pkg/`, `/`), as a path in the repository. */
export function repoDirectory(directory: string | undefined): string {
  return (directory ?? '').replace(/^\/+|\/+$/g, '');
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

export class GitSource {
  private refs?: Promise<{ heads: Map<string, string>; tags: Map<string, string> }>;
  private ready?: Promise<void>;
  private readonly dir: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly about: string;

  constructor(
    /** What the Kptfile records, for messages. */
    readonly repo: string,
    readonly location: RepositoryLocation,
    private readonly options: CacheOptions,
  ) {
    this.dir = cacheEntry(options.env, location.url);
    this.env = cacheEnvironment(options.env);
    this.about = `${repo} (cached in ${this.dir})`;
  }

  private git(args: readonly string[], more: { operands?: readonly string[]; input?: string; transfer?: boolean; separator?: '--' | '--end-of-options' } = {}): Promise<Buffer> {
    return runGit({ args: [...CACHE_CONFIG, '--git-dir', this.dir, ...args], env: this.env, cwd: this.dir, about: this.about, timeouts: this.options.timeouts, ...more });
  }

  /** The entry, made (or made again) when it is missing, half made or not this program's. */
  private ensureRepository(): Promise<void> {
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

  /** A fetch, again while another run holds the entry's locks (two updates of packages from one repository). */
  private async fetchInto(args: readonly string[], operands: readonly string[]): Promise<void> {
    const started = Date.now();
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.git(['fetch', '--progress', '--no-tags', ...args], { operands: [this.location.url, ...operands], transfer: true });
        return;
      } catch (error) {
        if (!(error instanceof GitError) || !LOCKED.test(error.gitMessage) || Date.now() - started > this.options.timeouts.stallMs) throw error;
        await sleep(Math.min(1000, 50 * attempt));
      }
    }
  }

  private remoteRefs(): Promise<{ heads: Map<string, string>; tags: Map<string, string> }> {
    this.refs ??= (async () => {
      await this.ensureRepository();
      const heads = new Map<string, string>();
      const tags = new Map<string, string>();
      const out = (await this.git(['ls-remote', '--heads', '--tags', '--refs'], { operands: [this.location.url], transfer: true })).toString('utf8');
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
    await this.fetchInto([], ['+refs/heads/*:refs/package-variant/heads/*', '+refs/tags/*:refs/package-variant/tags/*']);
    // Only the repository's own commits are candidates, not whatever else the entry holds.
    const reachable = (await this.git(['rev-list', '--glob=refs/package-variant/heads', '--glob=refs/package-variant/tags'])).toString('utf8');
    const found = reachable.split('\n').filter((commit) => commit.startsWith(short));
    if (found.length === 0) throw new GitError(`unknown ref "${short}": no commit of ${this.repo} starts with it`, true);
    if (found.length > 1) throw new GitError(`the ref "${short}" is ambiguous: ${found.length} commits of ${this.repo} start with it`, true);
    return found[0]!;
  }

  /** Commits this cache fetched carry a ref of their own; looking for it needs no git process. */
  private has(commit: string): boolean {
    const ref = `refs/package-variant/commits/${commit}`;
    if (existsSync(join(this.dir, ref))) return true;
    const packed = join(this.dir, 'packed-refs');
    return existsSync(packed) && readFileSync(packed, 'utf8').includes(` ${ref}\n`);
  }

  /** Fetches the commits the cache does not hold yet, each alone and shallow. */
  async fetch(commits: readonly string[]): Promise<void> {
    for (const commit of commits) if (!FULL_SHA.test(commit)) throw new GitError(`${JSON.stringify(commit)} is not a commit name (40 hexadecimal digits)`, false);
    await this.ensureRepository();
    const missing = [...new Set(commits)].filter((c) => !this.has(c));
    if (missing.length === 0) return;
    try {
      await this.fetchInto(['--depth=1'], missing.map((c) => `+${c}:refs/package-variant/commits/${c}`));
    } catch (error) {
      if (!(error instanceof GitError) || !error.exited || /fsck/i.test(error.gitMessage)) throw error;
      // A server that refuses unadvertised commits: fetch its branches and tags instead.
      await this.fetchInto([], ['+refs/heads/*:refs/package-variant/heads/*', '+refs/tags/*:refs/package-variant/tags/*']);
      for (const commit of missing) {
        try {
          await this.git(['update-ref'], { operands: [`refs/package-variant/commits/${commit}`, commit] });
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
    const listing = await this.git(['ls-tree', '-r', '-l', '-z'], { operands: [commit, ...(dir ? [dir] : [])] });
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
    const out = await this.git(['cat-file', '--batch'], { input: `${unique.join('\n')}\n` });
    const blobs = new Map<string, Buffer>();
    let at = 0;
    for (const object of unique) {
      const newline = out.indexOf(10, at);
      const header = out.subarray(at, newline).toString('utf8').split(' ');
      const size = Number(header[2]);
      if (header[0] !== object || !Number.isInteger(size)) throw new GitError(`git cat-file gave an unexpected answer for ${object} of ${this.about}`, true);
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
