/** The only place conflicts become text for users. */
import { createHash } from 'node:crypto';
import type { KrmResource } from '../../krm/resource';
import type { Result } from '../../krm/results';
import { formatPath } from '../path';
import type { ConflictKind, KeylessKept, MergeConflict } from './conflict';

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

/** The longest value a message shows whole, on its one line. */
const SHOWN_VALUE_CHARS = 80;

/**
 * A value as a message shows it: whole, or for a long one its length and a digest, which tell two
 * values apart as a cut-off start could not; the result's field holds the value itself.
 */
function brief(value: string): string {
  if (value.length <= SHOWN_VALUE_CHARS && !value.includes('\n')) return value;
  return `${value.length} characters sha256:${createHash('sha256').update(value).digest('hex').slice(0, 12)}`;
}

export type ConflictPolicy = 'upstream-wins' | 'error';

export function conflictResults(conflicts: readonly MergeConflict[], resource: KrmResource, policy: ConflictPolicy): Result[] {
  return conflicts.map((conflict) => {
    const path = formatPath(conflict.path) || '(resource)';
    const outcome = policy === 'error' ? 'not merged because conflicts are errors (conflicts: error)' : 'took upstream';
    // A local edit upstream's value replaced is lost: a warning, on one short line.
    return {
      message: `merge conflict in ${resource.kind} ${resource.name}: ${path} ${whatHappened(conflict)} (local ${brief(conflict.local)}, upstream ${brief(conflict.upstream)}); ${outcome}`,
      severity: policy === 'error' ? 'error' : 'warning',
      resourceRef: resource.ref(),
      field: { path, currentValue: conflict.local, proposedValue: conflict.upstream },
      ...(resource.fileRef() ? { file: resource.fileRef()! } : {}),
    };
  });
}

/** A kept element without its key field: a warning naming the resource, the list, the element and the field. */
export function keylessResults(kept: readonly KeylessKept[], resource: KrmResource): Result[] {
  return kept.map((k) => {
    const list = formatPath(k.path);
    return {
      message: `${resource.kind} ${resource.name}: ${list}[${k.index}] has no ${k.fields.join(', ')}, which Kubernetes requires of every element of a list keyed by ${k.keys.join(', ')}; kept as upstream has it`,
      severity: 'warning',
      resourceRef: resource.ref(),
      field: { path: `${list}[${k.index}].${k.fields[0]}` },
      ...(resource.fileRef() ? { file: resource.fileRef()! } : {}),
    };
  });
}
