/**
 * The merge step: when the ResourceList carries origin (`merge-source: original`) and upstream
 * (`updated`) items, merge upstream's changes into the local package with the chosen strategy.
 */
import type { MergeStrategy, Options } from '../config/function-config';
import { LEGACY_PATH, PATH } from '../krm/annotations';
import { appendAll } from '../yaml/append';
import { checkCarriable } from '../krm/carriable';
import type { KrmResource } from '../krm/resource';
import type { ResourceList } from '../krm/resource-list';
import { errorResult, FunctionError, type Result } from '../krm/results';
import { crdSchemas } from './schema/crd';
import { SchemaRegistry } from './schema/registry';
import { fileChangeResults, packageStep, type FileChanges, type PackageOutcome } from './resources/packages';
import { placeArriving } from './resources/placement';
import { packageLayout } from './resources/scopes';
import { hasMergeSources, splitSources, type MergeSources } from './resources/sources';
import { buildTuples } from './resources/tuples';
import type { ResourceTuple } from './resources/identity';
import { MergeRun } from './strategies/merge-run';
import { isStrategy, STRATEGIES } from './strategies/strategy';

function rootKptfile(local: readonly KrmResource[]): KrmResource | undefined {
  return local.find((r) => r.isKptfile && (r.path === undefined || r.path === 'Kptfile'));
}

/** The functionConfig's strategy, else the one recorded in the local Kptfile, else resource-merge. */
function chooseStrategy(options: Options, sources: MergeSources): MergeStrategy {
  if (options.strategy) return options.strategy;
  const kptfile = rootKptfile(sources.local);
  const recorded = kptfile?.get(['upstream', 'updateStrategy']);
  if (recorded === undefined || recorded === null) return 'resource-merge';
  if (isStrategy(recorded)) return recorded;
  throw new FunctionError(
    errorResult(`unknown update strategy ${JSON.stringify(recorded)} in the Kptfile; use resource-merge, fast-forward or force-delete-replace`, {
      resourceRef: kptfile!.ref(),
      field: { path: 'upstream.updateStrategy' },
      ...(kptfile!.fileRef() ? { file: kptfile!.fileRef()! } : {}),
    }),
  );
}

/** Reads tagged items' paths relative to the directory that holds their version. */
function relocate(resources: readonly KrmResource[], dir: string | undefined): void {
  if (!dir) return;
  const prefix = `${dir.replace(/^\.\/|\/+$/g, '')}/`;
  for (const resource of resources) {
    const path = resource.path;
    if (path?.startsWith(prefix)) {
      resource.setAnnotation(PATH, path.slice(prefix.length));
      resource.setAnnotation(LEGACY_PATH, path.slice(prefix.length));
    }
  }
}

/** The new upstream version, where the functionConfig gives it: what `kpt pkg update` writes from git. */
function recordUpstream(kptfile: KrmResource | undefined, { upstreamRef, upstreamCommit }: Options): Result[] {
  if (upstreamRef === undefined && upstreamCommit === undefined) return [];
  if (!kptfile) throw new FunctionError(errorResult('upstreamRef and upstreamCommit are recorded in the Kptfile, but the package has none at its root'));
  const recorded: string[] = [];
  if (upstreamRef !== undefined) {
    kptfile.setIn(['upstream', 'git', 'ref'], upstreamRef);
    kptfile.setIn(['upstreamLock', 'git', 'ref'], upstreamRef);
    recorded.push(`ref ${upstreamRef}`);
  }
  if (upstreamCommit !== undefined) {
    kptfile.setIn(['upstreamLock', 'git', 'commit'], upstreamCommit);
    recorded.push(`commit ${upstreamCommit}`);
  }
  return [{ message: `recorded the new upstream ${recorded.join(', ')} in the Kptfile`, severity: 'info', resourceRef: kptfile.ref(), ...(kptfile.fileRef() ? { file: kptfile.fileRef()! } : {}) }];
}

/** Where a package now comes from, as `kpt pkg update` records it after fetching from git. */
export interface UpstreamRecord {
  /** `upstream.git.ref`. */
  readonly ref: string;
  /** `upstreamLock.git`, replaced whole. */
  readonly lock: { readonly repo: string; readonly directory: string; readonly ref: string; readonly commit: string };
  /** `upstream.updateStrategy`, when one was asked for. */
  readonly strategy?: MergeStrategy;
  /**
   * `upstream.git` replaced whole, as Porch's upgrade writes it from the new upstream; without it
   * only the ref moves, as `kpt pkg update` leaves the repository and directory as they are.
   */
  readonly upstream?: { readonly repo: string; readonly directory: string; readonly ref: string };
}

/** What a caller that reads packages itself (the update command) knows beyond the items. */
export interface MergeContext {
  /** Per package directory, local changes to files that are not items (non-KRM files). */
  readonly fileChanges?: FileChanges;
  readonly record?: UpstreamRecord;
  /**
   * The caller read origin and upstream itself and says which item is which (its items carry no
   * `merge-source` tags); the merge runs even when neither holds an item.
   */
  readonly sources?: MergeSources;
}

export interface MergeReport {
  readonly strategy: MergeStrategy;
  /** Every package directory ('' the root) and what became of it. */
  readonly packages: ReadonlyMap<string, PackageOutcome>;
  /** The versions each resource of the result merged: a local resource's tuple, or the one a copy from upstream came from. */
  readonly counterparts: ReadonlyMap<KrmResource, ResourceTuple>;
}

function recordFromGit(kptfile: KrmResource | undefined, record: UpstreamRecord | undefined): Result[] {
  if (!record) return [];
  if (!kptfile) throw new FunctionError(errorResult('the new upstream version is recorded in the Kptfile, but the package has none at its root'));
  if (record.upstream) kptfile.setIn(['upstream', 'git'], { ...record.upstream });
  else kptfile.setIn(['upstream', 'git', 'ref'], record.ref);
  if (record.strategy) kptfile.setIn(['upstream', 'updateStrategy'], record.strategy);
  kptfile.setIn(['upstreamLock'], { type: 'git', git: { ...record.lock } });
  return [{ message: `recorded the new upstream ref ${record.ref}, commit ${record.lock.commit} in the Kptfile`, severity: 'info', resourceRef: kptfile.ref(), ...(kptfile.fileRef() ? { file: kptfile.fileRef()! } : {}) }];
}

function isCrd(resource: KrmResource): boolean {
  return resource.kind === 'CustomResourceDefinition' && resource.group === 'apiextensions.k8s.io';
}

export function mergeUpstream(list: ResourceList, options: Options, context: MergeContext = {}): MergeReport | undefined {
  if (!context.sources && !hasMergeSources(list.items)) return undefined;
  const sources = context.sources ?? splitSources(list.items);
  relocate(sources.origin, options.originDir);
  relocate(sources.upstream, options.upstreamDir);
  const strategy = chooseStrategy(options, sources);
  const all = [...sources.origin, ...sources.upstream, ...sources.local];
  const run = new MergeRun(new SchemaRegistry(crdSchemas(all.filter(isCrd))), options.conflicts);
  const layout = packageLayout(sources);
  const fileChanges = context.fileChanges ?? new Map();
  const packages = packageStep(buildTuples(sources, run.results, layout.scopeOf), layout, strategy, run, fileChanges);
  // Every version of each resource upstream has: what the merge compares, copies or writes.
  const read = packages.tuples.filter((tuple) => tuple.upstream).flatMap((tuple) => [tuple.local, tuple.origin, tuple.upstream].filter((r): r is KrmResource => r !== undefined));
  const readSet = new Set(read);
  checkCarriable(read, list.items.filter((item) => !readSet.has(item)));
  STRATEGIES[strategy](packages.tuples, run, fileChangeResults(fileChanges, packages.outcomes));

  const tagged = new Set([...sources.origin, ...sources.upstream]);
  const kept = list.items.filter((item) => !tagged.has(item) && !run.removed.has(item));
  const counterparts = new Map<KrmResource, ResourceTuple>(run.copiedFrom);
  for (const tuple of packages.tuples) if (tuple.local && !run.removed.has(tuple.local)) counterparts.set(tuple.local, tuple);
  list.items = [...kept, ...run.added];
  placeArriving(list.items, new Set([...run.added, ...run.moved]), sources.upstream, (resource) => counterparts.get(resource)?.upstream);
  const { merged, added, deleted, keptModified, conflicts } = run.counts;
  run.results.push(...recordUpstream(rootKptfile(kept), options), ...recordFromGit(rootKptfile(kept), context.record));
  // A result per conflict: a large package can hold more than a call's arguments.
  appendAll(list.results, run.results);
  list.results.push({
    message: `merged upstream changes (${strategy}): ${merged} merged, ${added} added, ${deleted} deleted, ${keptModified} kept although deleted upstream, ${conflicts} conflicts`,
    severity: 'info',
  });
  return { strategy, packages: packages.outcomes, counterparts };
}
