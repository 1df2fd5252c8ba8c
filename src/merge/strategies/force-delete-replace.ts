import type { ResourceTuple } from '../resources/tuples';
import { TakeUpstreamVisitor } from '../visitors/take-upstream';
import type { MergeRun } from './merge-run';

/** Upstream's package replaces local's; the Kptfile keeps the local package's own fields (name, upstream, lock). */
export function forceDeleteReplace(tuples: readonly ResourceTuple[], run: MergeRun): void {
  for (const tuple of tuples) {
    const { upstream, local } = tuple;
    if (local?.isKptfile) {
      if (upstream) run.applyVisitor(tuple, new TakeUpstreamVisitor());
      continue;
    }
    if (local) {
      run.remove(local);
      if (!upstream) run.counts.deleted += 1;
    }
    if (upstream) {
      run.addFromUpstream(upstream);
      if (local) run.counts.merged += 1;
      else run.counts.added += 1;
    }
  }
}
