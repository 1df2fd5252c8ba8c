import { isRootKptfile } from '../resources/scopes';
import type { ResourceTuple } from '../resources/identity';
import { TakeUpstreamVisitor } from '../visitors/take-upstream';
import type { MergeRun } from './merge-run';

/**
 * Upstream's package replaces local's; the root Kptfile keeps the local package's own fields (name,
 * upstream, lock). A resource both have becomes upstream's in local's node (MergeRun.replaceWithUpstream),
 * so that a diff shows only what upstream changed; a subpackage's Kptfile is replaced like its
 * resources, as kpt copies it.
 */
export function forceDeleteReplace(tuples: readonly ResourceTuple[], run: MergeRun): void {
  for (const tuple of tuples) {
    const { upstream, local } = tuple;
    if (local && isRootKptfile(local)) {
      if (upstream) run.applyVisitor(tuple, new TakeUpstreamVisitor());
      continue;
    }
    if (local && upstream) {
      run.replaceWithUpstream(tuple);
      run.counts.merged += 1;
      continue;
    }
    if (local) {
      run.remove(local);
      if (!upstream) run.counts.deleted += 1;
    }
    if (upstream) {
      run.addFromUpstream(tuple);
      if (local) run.counts.merged += 1;
      else run.counts.added += 1;
    }
  }
}
