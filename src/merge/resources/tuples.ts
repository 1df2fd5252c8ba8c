/** Groups origin, upstream and local resources by identity; two resources of one side with one identity are an error. */
import type { KrmResource } from '../../krm/resource';
import { errorResult, FunctionError, type Result } from '../../krm/results';
import type { Side } from '../elements/element';
import { describeResource, identityKeys, inScope } from './identity';
import type { MergeSources } from './sources';

export type ResourceTuple = { [side in Side]?: KrmResource };

const SIDE_WORDS: Record<Side, string> = { origin: 'origin', upstream: 'upstream', local: 'local' };

/** `scopeOf` names the package each resource belongs to; identity holds within a package. */
export function buildTuples(sources: MergeSources, scopeOf: (resource: KrmResource) => string = () => ''): ResourceTuple[] {
  const tuples: ResourceTuple[] = [];
  const byKey = new Map<string, ResourceTuple>();
  const problems: Result[] = [];
  // Upstream and origin first, so a local resource can find its tuple under any of its keys.
  for (const side of ['origin', 'upstream', 'local'] as const) {
    for (const resource of sources[side]) {
      const keys = inScope(scopeOf(resource), identityKeys(resource));
      const tuple = keys.map((k) => byKey.get(k)).find((t) => t !== undefined) ?? {};
      const existing = tuple[side];
      if (existing) {
        problems.push(
          errorResult(`two ${SIDE_WORDS[side]} resources have the same identity: ${describeResource(existing)} and ${describeResource(resource)}`, {
            resourceRef: resource.ref(),
            ...(resource.fileRef() ? { file: resource.fileRef()! } : {}),
          }),
        );
        continue;
      }
      tuple[side] = resource;
      if (!tuples.includes(tuple)) tuples.push(tuple);
      for (const key of keys) if (!byKey.has(key)) byKey.set(key, tuple);
    }
  }
  if (problems.length) throw new FunctionError(problems);
  return tuples;
}
