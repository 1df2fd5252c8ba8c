/** The only place conflicts become text for users. */
import type { KrmResource } from '../../krm/resource';
import type { Result } from '../../krm/results';
import { formatPath } from '../path';
import type { ConflictKind, MergeConflict } from './conflict';

const WHAT_HAPPENED: Record<ConflictKind, string> = {
  'both-changed': 'changed locally and upstream',
  'changed-vs-deleted': 'changed locally but deleted upstream',
  'deleted-vs-changed': 'deleted locally but changed upstream',
};

export type ConflictPolicy = 'upstream-wins' | 'error';

export function conflictResults(conflicts: readonly MergeConflict[], resource: KrmResource, policy: ConflictPolicy): Result[] {
  return conflicts.map((conflict) => {
    const path = formatPath(conflict.path) || '(resource)';
    const outcome = policy === 'error' ? 'not merged because conflicts are errors (conflicts: error)' : 'took upstream';
    return {
      message: `merge conflict in ${resource.kind} ${resource.name}: ${path} was ${WHAT_HAPPENED[conflict.kind]} (local ${conflict.local}, upstream ${conflict.upstream}); ${outcome}`,
      severity: policy === 'error' ? 'error' : 'info',
      resourceRef: resource.ref(),
      field: { path, currentValue: conflict.local, proposedValue: conflict.upstream },
      ...(resource.fileRef() ? { file: resource.fileRef()! } : {}),
    };
  });
}
