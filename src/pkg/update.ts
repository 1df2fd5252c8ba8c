/**
 * `package-variant update` on directories: the package, the version it was fetched from (origin)
 * and the new version (upstream) read from disk, updated in memory, then written as one plan
 * (src/pkg/locked-update.ts).
 */
import { hasError, type Result } from '../krm/results';
import { readDiskTree } from './disk-tree';
import { runLockedUpdate, type WriteOptions } from './locked-update';
import { planUpdate, type UpdatePlan } from './plan';
import { updateTree, type TreeUpdateOptions } from './update-tree';

export interface UpdateOutcome {
  readonly results: Result[];
  /** What was written (what would be, in a dry run); undefined when the update failed and nothing was. */
  readonly plan?: UpdatePlan;
}

export interface DirectoryUpdate extends TreeUpdateOptions, WriteOptions {
  readonly local: string;
  readonly origin: string;
  readonly upstream: string;
}

export function updateFromDirectories(options: DirectoryUpdate): UpdateOutcome {
  return runLockedUpdate(options.local, options, () => {
    const local = readDiskTree(options.local);
    const update = updateTree(local, readDiskTree(options.origin), readDiskTree(options.upstream), options);
    if (hasError(update.results) || !update.tree) return { results: update.results };
    return { results: update.results, plan: planUpdate(options.local, local, update.tree) };
  });
}
