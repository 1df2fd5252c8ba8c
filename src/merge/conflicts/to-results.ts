/** The only place conflicts become text for users. */
import type { KrmResource } from '../../krm/resource';
import type { Result } from '../../krm/results';
import { formatPath } from '../path';
import type { ConflictKind, MergeConflict } from './conflict';

const WHAT_HAPPENED: Record<ConflictKind, string> = {
  'both-changed': 'was changed locally and upstream',
  'changed-vs-deleted': 'was changed locally but deleted upstream',
  'deleted-vs-changed': 'was deleted locally but changed upstream',
};

function whatHappened(conflict: MergeConflict): string {
  if (conflict.kind !== 'same-value') return WHAT_HAPPENED[conflict.kind];
  const { field, value, localKey, upstreamKey } = conflict.clash;
  return `would hold two elements with ${field} ${value}: [${localKey}] from local and [${upstreamKey}] from upstream`;
}

export type ConflictPolicy = 'upstream-wins' | 'error';

export function conflictResults(conflicts: readonly MergeConflict[], resource: KrmResource, policy: ConflictPolicy): Result[] {
  return conflicts.map((conflict) => {
    const path = formatPath(conflict.path) || '(resource)';
    const outcome = policy === 'error' ? 'not merged because conflicts are errors (conflicts: error)' : 'took upstream';
    return {
      message: `merge conflict in ${resource.kind} ${resource.name}: ${path} ${whatHappened(conflict)} (local ${conflict.local}, upstream ${conflict.upstream}); ${outcome}`,
      severity: policy === 'error' ? 'error' : 'info',
      resourceRef: resource.ref(),
      field: { path, currentValue: conflict.local, proposedValue: conflict.upstream },
      ...(resource.fileRef() ? { file: resource.fileRef()! } : {}),
    };
  });
}
