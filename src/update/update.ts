/**
 * `package-variant update` on directories: the package, the version it was fetched from (origin)
 * and the new version (upstream) read from disk, updated in memory, then written as one plan
 * (src/update/locked-update.ts).
 */
import { hasError } from '../krm/results';
import { readDiskTree } from '../disk/disk-tree';
import { runLockedUpdate, type UpdateOutcome, type WriteOptions } from './locked-update';
import { planUpdate } from '../disk/plan';
import { updateTree, type TreeUpdateOptions } from '../merge/package/update-tree';

export interface DirectoryUpdate extends TreeUpdateOptions, WriteOptions {
  readonly local: string;
  readonly origin: string;
  readonly upstream: string;
}

export function updateFromDirectories(options: DirectoryUpdate): UpdateOutcome {
  return runLockedUpdate(options.local, options, () => {
    const local = readDiskTree(options.local);
    const version = (dir: string) => readDiskTree(dir, { krmignore: false });
    const update = updateTree(local, version(options.origin), version(options.upstream), options);
    if (hasError(update.results) || !update.tree) return { results: update.results };
    return { results: update.results, plan: planUpdate(options.local, local, update.tree) };
  });
}
