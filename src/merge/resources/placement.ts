/** Gives resources new to a file an index no resource of that file already has, so kpt can write them. */
import { INDEX, LEGACY_INDEX } from '../../krm/annotations';
import type { KrmResource } from '../../krm/resource';

export function placeNewResources(existing: readonly KrmResource[], added: readonly KrmResource[]): KrmResource[] {
  const taken = new Map<string, Set<number>>();
  const use = (path: string, index: number) => {
    if (!taken.has(path)) taken.set(path, new Set());
    taken.get(path)!.add(index);
  };
  for (const resource of existing) if (resource.path !== undefined) use(resource.path, resource.fileIndex);
  for (const resource of added) {
    const path = resource.path;
    if (path === undefined) continue;
    let index = resource.fileIndex;
    const used = taken.get(path);
    if (used?.has(index)) {
      index = Math.max(...used) + 1;
      resource.setAnnotation(INDEX, String(index));
      resource.setAnnotation(LEGACY_INDEX, String(index));
    }
    use(path, index);
  }
  return [...added];
}
