import { errorResult, FunctionError, type Result } from '../../krm/results';
import { formatPath } from '../path';
import { describeResource } from '../resources/identity';
import { isRootKptfile } from '../resources/scopes';
import type { ResourceTuple } from '../resources/identity';
import { forceDeleteReplace } from './force-delete-replace';
import type { MergeRun } from './merge-run';

/**
 * Upstream's package, but only when local has not changed since it was fetched. `outside` are
 * local changes the items cannot show (files that are not resources), found by the caller.
 */
export function fastForward(tuples: readonly ResourceTuple[], run: MergeRun, outside: readonly Result[] = []): void {
  const changes: Result[] = [...outside];
  for (const tuple of tuples) {
    const { origin, local } = tuple;
    if (local && origin) {
      for (const path of run.localChanges(tuple)) {
        changes.push(
          errorResult(`${describeResource(local)}: ${formatPath(path) || '(resource)'} was changed locally`, {
            resourceRef: local.ref(),
            field: { path: formatPath(path) },
            ...(local.fileRef() ? { file: local.fileRef()! } : {}),
          }),
        );
      }
    } else if (local && !isRootKptfile(local)) {
      changes.push(errorResult(`${describeResource(local)} was added locally`, { resourceRef: local.ref(), ...(local.fileRef() ? { file: local.fileRef()! } : {}) }));
    } else if (origin && !isRootKptfile(origin)) {
      changes.push(errorResult(`${describeResource(origin)} was deleted locally`, { resourceRef: origin.ref() }));
    }
  }
  if (changes.length > 0) {
    throw new FunctionError([
      errorResult('fast-forward: the local package has been modified since it was fetched; use the resource-merge or force-delete-replace strategy'),
      ...changes,
    ]);
  }
  forceDeleteReplace(tuples, run);
}
