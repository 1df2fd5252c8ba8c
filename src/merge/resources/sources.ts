/** Splits a ResourceList into origin, upstream and local by kpt's `merge-source` annotation. */
import type { KrmResource } from '../../krm/resource';
import { errorResult, FunctionError, type Result } from '../../krm/results';
import type { Side } from '../elements/element';

export const MERGE_SOURCE = 'config.kubernetes.io/merge-source';

const SOURCE_VALUES: Record<string, Side> = { original: 'origin', updated: 'upstream', dest: 'local' };

export interface MergeSources {
  readonly origin: KrmResource[];
  readonly upstream: KrmResource[];
  readonly local: KrmResource[];
}

export function splitSources(items: readonly KrmResource[]): MergeSources {
  const sources: MergeSources = { origin: [], upstream: [], local: [] };
  const problems: Result[] = [];
  for (const item of items) {
    const tag = item.annotation(MERGE_SOURCE);
    const side = tag === undefined ? 'local' : SOURCE_VALUES[tag];
    if (!side) {
      problems.push(
        errorResult(`${MERGE_SOURCE} must be original, updated or dest, not ${JSON.stringify(tag)}`, {
          ...(item.isKrmObject ? { resourceRef: item.ref() } : {}),
          field: { path: `metadata.annotations["${MERGE_SOURCE}"]` },
          ...(item.fileRef() ? { file: item.fileRef()! } : {}),
        }),
      );
      continue;
    }
    sources[side].push(item);
  }
  if (problems.length) throw new FunctionError(problems);
  return sources;
}

export function hasMergeSources(items: readonly KrmResource[]): boolean {
  return items.some((item) => item.annotation(MERGE_SOURCE) !== undefined && item.annotation(MERGE_SOURCE) !== 'dest');
}
