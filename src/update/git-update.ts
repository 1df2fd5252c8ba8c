/**
 * `package-variant update PKG[@REF]`: kpt's update from the git upstream a Kptfile records. Origin
 * is the locked commit, upstream the ref (default: the recorded one), both fetched with the git
 * command line into a cache. Afterwards the Kptfile records the new ref and lock, and every
 * subpackage with an upstream of its own is updated from it, depth first. All of it happens in
 * memory; the package is written once, at the end, or not at all (src/update/locked-update.ts).
 */
import { join } from 'node:path';
import type { MergeStrategy } from '../config/function-config';
import { hasError, type Result } from '../krm/results';
import { readDiskTree } from '../disk/disk-tree';
import { GitSource, repoDirectory } from '../git/repo-cache';
import { GitError } from '../git/run-git';
import { uncommittedChanges } from '../git/work-tree';
import { KptfileError, readUpstreamInfo, type UpstreamInfo } from '../package/kptfile-upstream';
import { runLockedUpdate, type UpdateOutcome, type WriteOptions } from './locked-update';
import { planIsEmpty, planUpdate } from '../disk/plan';
import { isReservedName } from '../disk/safe-write/reserved';
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
  /** The environment git runs in (default: this process's). */
  readonly env?: NodeJS.ProcessEnv;
}

/** A reason the update cannot start or finish; nothing has been written. */
export class UpdateError extends Error {}

/** Remote repositories, one cache entry each, shared by every package of one run. */
class Sources {
  private readonly byRepo = new Map<string, GitSource>();

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  get(repo: string): GitSource {
    if (!this.byRepo.has(repo)) this.byRepo.set(repo, new GitSource(repo, this.env));
    return this.byRepo.get(repo)!;
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

interface PackageOutcome {
  readonly tree: PackageTree;
  readonly results: Result[];
  /** The version updated to, and whether the package already recorded it (ref and locked commit). */
  readonly version: { readonly ref: string; readonly commit: string; readonly recorded: boolean };
}

/** Updates one package (the subtree at `run.dir`) from its own upstream; the new subtree and the results. */
function updateOne(tree: PackageTree, run: PackageRun, options: GitUpdate, sources: Sources): PackageOutcome {
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
  const source = sources.get(upstream.repo);
  const resolved = source.resolve(ref, upstream.directory);
  const [upstreamTree, originTree] = fetchVersions(
    { source, commit: resolved.commit, directory: upstream.directory },
    lock?.commit ? { source: sources.get(lock.repo || upstream.repo), commit: lock.commit, directory: lock.directory || upstream.directory } : undefined,
  );
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
function fetchVersions(upstream: Version, origin: Version | undefined): [PackageTree, PackageTree] {
  if (origin?.source === upstream.source) {
    upstream.source.fetch([origin.commit, upstream.commit]);
    return upstream.source.readTrees([upstream, origin]) as [PackageTree, PackageTree];
  }
  upstream.source.fetch([upstream.commit]);
  origin?.source.fetch([origin.commit]);
  return [upstream.source.readTrees([upstream])[0]!, origin ? origin.source.readTrees([origin])[0]! : PackageTree.empty()];
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

export function updateFromGit(options: GitUpdate): UpdateOutcome {
  return runLockedUpdate(options.pkg, options, () => updateLocked(options));
}

function updateLocked(options: GitUpdate): UpdateOutcome {
  const env = options.env ?? process.env;
  const sources = new Sources(env);
  const before = readLocal(options.pkg);
  const rootInfo = upstreamInfo(before, ROOT, options.pkg);
  if (!options.allowDirty) {
    // The update's own lock is no change of the user's.
    const dirty = runGit(() => uncommittedChanges(options.pkg, env)).filter((path) => !isReservedName(path.slice(path.lastIndexOf('/') + 1)));
    if (dirty.length) {
      const shown = dirty.slice(0, 5).join(', ') + (dirty.length > 5 ? `, and ${dirty.length - 5} more` : '');
      throw new UpdateError(`${options.pkg} has uncommitted changes (${shown}); commit them first, so the update is a change of its own, or pass --allow-dirty`);
    }
  }
  const results: Result[] = [];
  let tree = before;
  let rootVersion: PackageOutcome['version'] | undefined;
  let allRecorded = true;
  // kpt's stack: a package, then its direct subpackages with an upstream of their own, depth first.
  const stack: PackageRun[] = [{ dir: ROOT, isRoot: true, ...(options.ref ? { ref: options.ref } : {}), ...(options.strategy ? { strategy: options.strategy } : {}) }];
  while (stack.length) {
    const run = stack.pop()!;
    const outcome = runGit(() => updateOne(tree, run, options, sources));
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

function readLocal(pkg: string): PackageTree {
  try {
    return readDiskTree(pkg);
  } catch (error) {
    throw new UpdateError((error as Error).message);
  }
}

function runGit<T>(step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof GitError) throw new UpdateError(error.message);
    throw error;
  }
}
