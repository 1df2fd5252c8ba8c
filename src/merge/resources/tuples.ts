/**
 * Groups origin, upstream and local resources by identity within their package; one version holding
 * an identity twice in one package is told apart by path (duplicates.ts).
 */
import type { KrmResource } from '../../krm/resource';
import { FunctionError, type Result } from '../../krm/results';
import { tuplesOf, type IdentityGroup } from './duplicates';
import { identityKeys, inScope, type ResourceTuple } from './identity';
import type { MergeSources } from './sources';

/**
 * The resources to merge, one tuple per resource; warnings about duplicates go to `warnings`.
 * `scopeOf` names the package each resource belongs to; identity holds within a package.
 */
export function buildTuples(sources: MergeSources, warnings: Result[], scopeOf: (resource: KrmResource) => string): ResourceTuple[] {
  const groups: IdentityGroup[] = [];
  const byKey = new Map<string, IdentityGroup>();
  const problems: Result[] = [];
  // Upstream and origin first, so a local resource can find its group under any of its keys.
  for (const side of ['origin', 'upstream', 'local'] as const) {
    for (const resource of sources[side]) {
      const keys = inScope(scopeOf(resource), identityKeys(resource));
      let group = keys.map((k) => byKey.get(k)).find((g) => g !== undefined);
      if (!group) groups.push((group = { origin: [], upstream: [], local: [] }));
      group[side].push(resource);
      for (const key of keys) if (!byKey.has(key)) byKey.set(key, group);
    }
  }
  const tuples = groups.flatMap((group) => tuplesOf(group, problems, warnings));
  if (problems.length) throw new FunctionError(problems);
  return tuples;
}
