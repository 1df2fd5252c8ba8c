import { ConflictSink } from '../conflicts/conflict';
import { handlingFor } from '../resources/handling';
import { describeResource } from '../resources/identity';
import type { ResourceTuple } from '../resources/identity';
import { ResourceMergeVisitor } from '../visitors/resource-merge';
import type { MergeRun } from './merge-run';

export function resourceMerge(tuples: readonly ResourceTuple[], run: MergeRun): void {
  for (const tuple of tuples) {
    switch (handlingFor(tuple, () => run.localChanges(tuple).length === 0)) {
      case 'keep-local':
      case 'skip':
        break;
      case 'add-upstream':
        run.addFromUpstream(tuple);
        run.counts.added += 1;
        break;
      case 'delete-local':
        run.remove(tuple.local!);
        run.counts.deleted += 1;
        break;
      case 'keep-modified': {
        const local = tuple.local!;
        run.counts.keptModified += 1;
        run.results.push({
          message: `${describeResource(local)} was deleted upstream but changed locally; it is kept. Delete it if it is no longer wanted.`,
          severity: 'warning',
          resourceRef: local.ref(),
          ...(local.fileRef() ? { file: local.fileRef()! } : {}),
        });
        break;
      }
      case 'merge': {
        const sink = new ConflictSink();
        run.applyVisitor(tuple, new ResourceMergeVisitor(sink), sink);
        run.followUpstreamPath(tuple);
        run.followUpstreamRecord(tuple);
        run.counts.merged += 1;
        break;
      }
    }
  }
}
