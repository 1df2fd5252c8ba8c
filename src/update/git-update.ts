/**
 * `package-variant update PKG[@REF]`: kpt's update from the git upstream a Kptfile records. Origin
 * is the locked commit, upstream the ref (default: the recorded one), both fetched with the git
 * command line into a cache. Afterwards the Kptfile records the new ref and lock, and every
 * subpackage with an upstream of its own is updated from it, depth first. All of it happens in
 * memory; the package is written once, at the end, or not at all (src/update/locked-update.ts).
 */
import { join, resolve } from 'node:path';
import type { MergeStrategy } from '../config/function-config';
import { isReservedName, pathProblem } from '../krm/package-paths';
import { hasError, type Result } from '../krm/results';
import { readDiskTree } from '../disk/disk-tree';
import { GitSource, isFullSha } from '../git/repo-cache';
import { repoDirectory } from '../git/tree-read';
import { locateRepository, RepositoryError, type RepositoryLocation } from '../git/remote-url';
import { DEFAULT_TIMEOUTS, GitError, type GitTimeouts } from '../git/run-git';
import { uncommittedChanges } from '../git/work-tree';
import { KptfileError, readUpstreamInfo, type UpstreamInfo } from '../package/kptfile-upstream';
import { runLockedUpdateAsync, type UpdateOutcome, type WriteOptions } from './locked-update';
import { planIsEmpty, planUpdate } from '../disk/plan';
import { joinPath, KPTFILE, packageDirsOf, parentScope, ROOT, rootFirst } from '../package/scopes';
import { PackageTree } from '../package/tree';
import { updateTree } from '../merge/package/update-tree';

export interface GitUpdate extends WriteOptions {
  /** The package directory. */
  readonly pkg: string;
  /** The version to update to; default: the ref the Kptfile records. */
  readonly ref?: string;
  readonly strategy?: MergeStrategy;
  readonly conflicts?: 'upstream-wins' | 'error';
  /** Update a package with uncommitted changes. */
  readonly allowDirty?: boolean;
  /** Fetch from a repository on this machine that the package did not record before the update (one an upstream version introduced). */
  readonly allowLocalUpstreams?: boolean;
  /** The environment git runs in (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
  /** Bounds on every git process (default: DEFAULT_TIMEOUTS). */
  readonly timeouts?: GitTimeouts;
}

/** A reason the update cannot start or finish; nothing has been written. */
export class UpdateError extends Error {}

/** Remote repositories, one cache entry each, shared by every package of one run. */
class Sources {
  private readonly byUrl = new Map<string, GitSource>();

  constructor(private readonly options: { env: NodeJS.ProcessEnv; timeouts: GitTimeouts; notify: (notice: string) => void }) {}

  get(repo: string, location: RepositoryLocation): GitSource {
    if (!this.byUrl.has(location.url)) this.byUrl.set(location.url, new GitSource(repo, location, this.options));
    return this.byUrl.get(location.url)!;
  }
}

function upstreamInfo(tree: PackageTree, dir: string, where: string): UpstreamInfo {
  const text = tree.text(joinPath(dir, KPTFILE));
  if (text === undefined) throw new UpdateError(`${where} has no Kptfile: it is not a kpt package`);
  try {
    return readUpstreamInfo(text, `${where}/Kptfile`);
  } catch (error) {
    if (error instanceof KptfileError) throw new UpdateError(error.message);
    throw error;
  }
}

interface PackageRun {
  /** The package directory, relative to the root package. */
  readonly dir: string;
  readonly ref?: string;
  readonly strategy?: MergeStrategy;
  /** The root package: it must record a lock; a subpackage without one is merged from nothing, as kpt does. */
  readonly isRoot: boolean;
}

/** Where a Kptfile's repository is, its relative path taken from the Kptfile's own directory; refused as the Kptfile's field. */
function locate(repo: string, kptfileDir: string, field: string): RepositoryLocation {
  try {
    return locateRepository(repo, kptfileDir);
  } catch (error) {
    if (error instanceof RepositoryError) throw new UpdateError(`${field}: ${error.message}`);
    throw error;
  }
}

/** A Kptfile's package directory in its repository, refused as the field when it cannot be a path in one. */
function checkedDirectory(directory: string, field: string): string {
  const dir = repoDirectory(directory);
  const why = dir === '' ? undefined : pathProblem(dir);
  if (why) throw new UpdateError(`${field} ${JSON.stringify(directory)} is not a directory of a repository: ${why}`);
  return directory;
}

/**
 * The repositories on this machine that the package records before the update, in any of its
 * Kptfiles: the user fetched from them. Another one is only fetched from with --allow-local-upstreams.
 */
function recordedLocalRepositories(tree: PackageTree, pkg: string): Set<string> {
  const paths = new Set<string>();
  for (const dir of packageDirsOf(tree.files.keys())) {
    let info: UpstreamInfo;
    try {
      info = upstreamInfo(tree, dir, join(pkg, dir));
    } catch {
      continue;
    }
    for (const repo of [info.upstream?.repo, info.lock?.repo]) {
      if (!repo) continue;
      try {
        const location = locateRepository(repo, resolve(pkg, dir));
        if (location.kind === 'local') paths.add(location.path);
      } catch {
        // A repository git may not fetch from gives no leave to fetch from anything.
      }
    }
  }
  return paths;
}

interface Context {
  readonly options: GitUpdate;
  readonly sources: Sources;
  /** See recordedLocalRepositories. */
  readonly localRepositories: ReadonlySet<string>;
}

/** The source of a repository a package names, once it is one the update may fetch from. */
function sourceFor(context: Context, repo: string, dir: string, field: string): GitSource {
  const where = dir === ROOT ? context.options.pkg : join(context.options.pkg, dir);
  const location = locate(repo, resolve(context.options.pkg, dir), `${where}/Kptfile: ${field}`);
  if (location.kind === 'local' && !context.options.allowLocalUpstreams && !context.localRepositories.has(location.path)) {
    throw new UpdateError(
      `${where}: its upstream (${field}) is ${JSON.stringify(repo)}, a repository on this machine (${location.path}) that the package did not record before this update: ` +
        'an upstream version brought it in. It is not fetched from unless you allow it: --allow-local-upstreams',
    );
  }
  return context.sources.get(repo, location);
}

interface PackageOutcome {
  readonly tree: PackageTree;
  readonly results: Result[];
  /** The version updated to, and whether the package already recorded it (ref and locked commit). */
  readonly version: { readonly ref: string; readonly commit: string; readonly recorded: boolean };
}

/** Updates one package (the subtree at `run.dir`) from its own upstream; the new subtree and the results. */
async function updateOne(tree: PackageTree, run: PackageRun, context: Context): Promise<PackageOutcome> {
  const { options } = context;
  const where = run.dir === ROOT ? options.pkg : join(options.pkg, run.dir);
  const info = upstreamInfo(tree, run.dir, where);
  const upstream = info.upstream;
  if (!upstream?.repo) {
    throw new UpdateError(`${where}/Kptfile records no git upstream (upstream.git.repo): it was not fetched with kpt pkg get. Update it from directories: package-variant update ${where} --origin DIR --upstream DIR`);
  }
  const ref = run.ref ?? upstream.ref;
  if (!ref) throw new UpdateError(`${where}/Kptfile records no upstream.git.ref; name the version: package-variant update ${where}@REF`);
  const lock = info.lock;
  if (run.isRoot && !lock?.commit) {
    throw new UpdateError(
      `${where}/Kptfile records no upstreamLock.git.commit, so the version the package was fetched from is unknown. ` +
        `Fetch it with kpt pkg get (which records the lock), or name both versions: package-variant update ${where} --origin DIR --upstream DIR`,
    );
  }
  if (lock?.commit && !isFullSha(lock.commit)) throw new UpdateError(`${where}/Kptfile: upstreamLock.git.commit ${JSON.stringify(lock.commit)} is not a commit name (40 hexadecimal digits)`);
  const directory = checkedDirectory(upstream.directory, `${where}/Kptfile: upstream.git.directory`);
  const source = sourceFor(context, upstream.repo, run.dir, 'upstream.git.repo');
  const origin = lock?.commit
    ? {
        source: lock.repo ? sourceFor(context, lock.repo, run.dir, 'upstreamLock.git.repo') : source,
        commit: lock.commit,
        directory: lock.directory ? checkedDirectory(lock.directory, `${where}/Kptfile: upstreamLock.git.directory`) : directory,
      }
    : undefined;
  const resolved = await source.resolve(ref, directory);
  const [upstreamTree, originTree] = await fetchVersions({ source, commit: resolved.commit, directory }, origin);
  const local = tree.subtree(run.dir);
  const update = updateTree(local, originTree, upstreamTree, {
    ...(run.strategy ? { strategy: run.strategy } : {}),
    ...(options.conflicts ? { conflicts: options.conflicts } : {}),
    record: {
      ref,
      lock: { repo: upstream.repo, directory: upstream.directory, ref: resolved.ref, commit: resolved.commit },
      ...(run.strategy ? { strategy: run.strategy } : {}),
    },
  });
  const results = update.results.map((r) => (run.dir === ROOT ? r : { ...r, message: `${run.dir}: ${r.message}` }));
  const version = { ref, commit: resolved.commit, recorded: upstream.ref === ref && lock?.commit === resolved.commit };
  if (hasError(update.results) || !update.tree) return { tree, results, version };
  return { tree: tree.withSubtree(run.dir, update.tree), results, version };
}

interface Version {
  readonly source: GitSource;
  readonly commit: string;
  readonly directory: string;
}

/** Upstream's and origin's trees (origin empty without a lock), fetched and read together where they share a repository. */
async function fetchVersions(upstream: Version, origin: Version | undefined): Promise<[PackageTree, PackageTree]> {
  if (origin?.source === upstream.source) {
    await upstream.source.fetch([origin.commit, upstream.commit]);
    return (await upstream.source.readTrees([upstream, origin])) as [PackageTree, PackageTree];
  }
  const read = async (version: Version) => {
    await version.source.fetch([version.commit]);
    return (await version.source.readTrees([version]))[0]!;
  };
  return Promise.all([read(upstream), origin ? read(origin) : PackageTree.empty()]);
}

/**
 * kpt's rule for a subpackage fetched from the same repository as the root, below its directory, at
 * the root's old ref: it moves to the root's new ref (and strategy) with it.
 */
function followsRoot(sub: UpstreamInfo, root: UpstreamInfo, oldRootRef: string): boolean {
  const s = sub.upstream;
  const r = root.upstream;
  return !!s && !!r && s.repo === r.repo && s.ref === oldRootRef && repoDirectory(s.directory).startsWith(repoDirectory(r.directory));
}

/**
 * The subpackages below `dir` that record a git upstream of their own, nearest first: kpt's direct
 * subpackages, and also those below a subpackage without an upstream, which kpt never reaches.
 */
function upstreamSubpackages(tree: PackageTree, dir: string, pkg: string): string[] {
  const dirs = packageDirsOf(tree.files.keys());
  const found: string[] = [];
  const visit = (parent: string) => {
    for (const sub of rootFirst([...dirs].filter((d) => d !== parent && d !== ROOT && parentScope(d, dirs) === parent))) {
      if (upstreamInfo(tree, sub, join(pkg, sub)).upstream?.repo) found.push(sub);
      else visit(sub);
    }
  };
  visit(dir);
  return found;
}

export function updateFromGit(options: GitUpdate): Promise<UpdateOutcome> {
  return runLockedUpdateAsync(options.pkg, options, () => updateLocked(options));
}

async function updateLocked(options: GitUpdate): Promise<UpdateOutcome> {
  const env = options.env ?? process.env;
  const timeouts = options.timeouts ?? DEFAULT_TIMEOUTS;
  const before = readLocal(options.pkg);
  const rootInfo = upstreamInfo(before, ROOT, options.pkg);
  const context: Context = {
    options,
    sources: new Sources({ env, timeouts, notify: options.notify ?? (() => undefined) }),
    localRepositories: recordedLocalRepositories(before, options.pkg),
  };
  const results: Result[] = [];
  let tree = before;
  let rootVersion: PackageOutcome['version'] | undefined;
  let allRecorded = true;
  // kpt's stack: a package, then its direct subpackages with an upstream of their own, depth first.
  const stack: PackageRun[] = [{ dir: ROOT, isRoot: true, ...(options.ref ? { ref: options.ref } : {}), ...(options.strategy ? { strategy: options.strategy } : {}) }];
  // The root's upstream is fetched while git looks for uncommitted changes; those are said first.
  let cleanCheck = options.allowDirty ? undefined : checkClean(options.pkg, env, timeouts);
  while (stack.length) {
    const run = stack.pop()!;
    const update = runGit(() => updateOne(tree, run, context));
    if (cleanCheck) {
      const [clean] = await Promise.allSettled([cleanCheck, update]);
      if (clean.status === 'rejected') throw clean.reason;
      cleanCheck = undefined;
    }
    const outcome = await update;
    results.push(...outcome.results);
    if (hasError(outcome.results)) return { results };
    tree = outcome.tree;
    rootVersion ??= outcome.version;
    allRecorded &&= outcome.version.recorded;
    for (const sub of upstreamSubpackages(tree, run.dir, options.pkg)) {
      const info = upstreamInfo(tree, sub, join(options.pkg, sub));
      const follows = options.ref !== undefined && followsRoot(info, rootInfo, rootInfo.upstream?.ref ?? '');
      stack.push({ dir: sub, isRoot: false, ...(follows ? { ref: options.ref } : {}), ...(follows && options.strategy ? { strategy: options.strategy } : {}) });
    }
  }
  const plan = planUpdate(options.pkg, before, tree);
  // Updating to the version every package already records, with nothing to write: say so, and only that.
  if (allRecorded && rootVersion && planIsEmpty(plan)) return { results: results.filter((r) => r.severity !== 'info'), plan, upToDate: { ref: rootVersion.ref, commit: rootVersion.commit } };
  return { results, plan };
}

/** Refuses a package with uncommitted changes: the update is to be a change of its own. */
async function checkClean(pkg: string, env: NodeJS.ProcessEnv, timeouts: GitTimeouts): Promise<void> {
  // The update's own lock is no change of the user's.
  const dirty = (await runGit(() => uncommittedChanges(pkg, env, timeouts))).filter((path) => !isReservedName(path.slice(path.lastIndexOf('/') + 1)));
  if (dirty.length === 0) return;
  const shown = dirty.slice(0, 5).join(', ') + (dirty.length > 5 ? `, and ${dirty.length - 5} more` : '');
  throw new UpdateError(`${pkg} has uncommitted changes (${shown}); commit them first, so the update is a change of its own, or pass --allow-dirty`);
}

function readLocal(pkg: string): PackageTree {
  try {
    return readDiskTree(pkg);
  } catch (error) {
    throw new UpdateError((error as Error).message);
  }
}

async function runGit<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof GitError) throw new UpdateError(error.message);
    throw error;
  }
}
