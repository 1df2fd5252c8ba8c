/**
 * The package level of a merge: the package table (src/package/package-table.ts) applied to the tuples.
 * It decides which tuples the strategy sees: a subpackage deleted upstream goes whole when nothing
 * in it changed locally, else stays whole; an independent subpackage is not part of this merge.
 */
import type { MergeStrategy } from '../../config/function-config';
import { errorResult, FunctionError, type Result } from '../../krm/results';
import type { KrmResource } from '../../krm/resource';
import { packagesWithin, packageTable, type PackageCase, type PackageTable } from '../../package/package-table';
import { rootFirst } from '../../package/scopes';
import type { MergeRun } from '../strategies/merge-run';
import type { PackageLayout } from './scopes';
import type { ResourceTuple } from './identity';

/** What became of a package; `removed` and `kept` are the two ends of `deleted-upstream`. */
export type PackageOutcome = Exclude<PackageCase, 'deleted-upstream'> | 'removed' | 'kept';

export interface PackageStep {
  /** The tuples the strategy merges. */
  readonly tuples: ResourceTuple[];
  /** Every package directory ('' the root) and what became of it. */
  readonly outcomes: ReadonlyMap<string, PackageOutcome>;
}

/** Local changes the items cannot show (files that are not resources), by package directory. */
export type FileChanges = ReadonlyMap<string, readonly string[]>;

const anyOf = (tuple: ResourceTuple) => (tuple.local ?? tuple.upstream ?? tuple.origin) as KrmResource;

function describeUpstream(layout: PackageLayout, dir: string): string {
  const git = layout.versions.get(dir)?.local?.upstream?.git;
  return `${git?.repo ?? ''}${git?.directory ? ` ${git.directory}` : ''}@${git?.ref ?? ''}`;
}

/** Whether nothing in the package at `dir` (subpackages included) changed locally since origin. */
function unchangedWithin(dir: string, table: PackageTable, byScope: ReadonlyMap<string, ResourceTuple[]>, run: MergeRun, fileChanges: FileChanges): boolean {
  for (const decision of packagesWithin(table, dir)) {
    if (decision.case !== 'deleted-upstream' && decision.case !== 'deleted-in-both') return false;
    if (fileChanges.get(decision.dir)?.length) return false;
    for (const tuple of byScope.get(decision.dir) ?? []) {
      if (!tuple.local || !tuple.origin) {
        if (tuple.local || tuple.origin) return false;
        continue;
      }
      if (run.localChanges(tuple).length > 0) return false;
    }
  }
  return true;
}

export function packageStep(tuples: readonly ResourceTuple[], layout: PackageLayout, strategy: MergeStrategy, run: MergeRun, fileChanges: FileChanges): PackageStep {
  const table = packageTable(layout.versions, strategy);
  if (table.errors.length) throw new FunctionError(table.errors.map((message) => errorResult(message)));
  const byScope = new Map<string, ResourceTuple[]>();
  for (const tuple of tuples) {
    const scope = layout.scopeOf(anyOf(tuple));
    if (!byScope.has(scope)) byScope.set(scope, []);
    byScope.get(scope)!.push(tuple);
  }
  const outcomes = new Map<string, PackageOutcome>();
  const merged: ResourceTuple[] = [];
  for (const dir of rootFirst(table.decisions.keys())) {
    if (outcomes.has(dir)) continue;
    const decision = table.decisions.get(dir)!;
    const own = byScope.get(dir) ?? [];
    switch (decision.case) {
      case 'deleted-upstream': {
        const within = packagesWithin(table, dir);
        const removed = unchangedWithin(dir, table, byScope, run, fileChanges);
        for (const inner of within) outcomes.set(inner.dir, removed ? 'removed' : 'kept');
        if (removed) {
          for (const inner of within) {
            for (const tuple of byScope.get(inner.dir) ?? []) {
              if (!tuple.local) continue;
              run.remove(tuple.local);
              run.counts.deleted += 1;
            }
          }
        } else {
          run.results.push(warning(`subpackage "${dir}" was deleted upstream but changed locally; it is kept. Delete it if it is no longer wanted.`));
        }
        break;
      }
      case 'kptfile-only':
        outcomes.set(dir, decision.case);
        merged.push(...own.filter((tuple) => anyOf(tuple).isKptfile));
        break;
      case 'independent':
        outcomes.set(dir, decision.case);
        run.results.push({
          message: `subpackage "${dir}" has its own upstream (${describeUpstream(layout, dir)}): it is not part of this merge; update it from there`,
          severity: 'info',
        });
        break;
      case 'foreign':
        outcomes.set(dir, decision.case);
        break;
      default:
        outcomes.set(dir, decision.case);
        merged.push(...own);
    }
  }
  return { tuples: merged, outcomes };
}

function warning(message: string): Result {
  return { message, severity: 'warning' };
}

/** Fast-forward's view of files the items do not hold. */
export function fileChangeResults(fileChanges: FileChanges, outcomes: ReadonlyMap<string, PackageOutcome>): Result[] {
  const results: Result[] = [];
  for (const [dir, files] of fileChanges) {
    if (outcomes.get(dir) !== 'merge') continue;
    for (const file of files) results.push(errorResult(`${file} was changed locally`, { file: { path: file } }));
  }
  return results;
}
