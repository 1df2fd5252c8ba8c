/**
 * Where resources new to a file go (added upstream, or moved there with upstream): right after
 * their upstream predecessor, the nearest resource before them in upstream's file that the file now
 * holds, and at the top where there is none; local's order stands (the rule for new keys and list
 * elements). kpt writes a file's resources in the order of their index annotations, so the file's
 * indexes say where each goes: a resource keeps its index where the order allows, others take the
 * next one.
 */
import { INDEX, LEGACY_INDEX } from '../../krm/annotations';
import type { KrmResource } from '../../krm/resource';

const hasIndex = (resource: KrmResource) => resource.annotation(INDEX) !== undefined || resource.annotation(LEGACY_INDEX) !== undefined;

/** A resource without an index is at 0, as kpt reads it: one given none there keeps none. */
function setIndex(resource: KrmResource, index: number): void {
  if (resource.fileIndex === index) return;
  const value = String(index);
  if (resource.annotation(LEGACY_INDEX) !== undefined || resource.annotation(INDEX) === undefined) resource.setAnnotation(LEGACY_INDEX, value);
  resource.setAnnotation(INDEX, value);
}

function groupByPath(resources: readonly KrmResource[]): Map<string, KrmResource[]> {
  const groups = new Map<string, KrmResource[]>();
  for (const resource of resources) {
    const path = resource.path;
    if (path === undefined) continue;
    const group = groups.get(path);
    if (group) group.push(resource);
    else groups.set(path, [resource]);
  }
  return groups;
}

/**
 * A file's resources in their new order: those already there by index, each arriving one after its
 * upstream predecessor. Where none of those already there is in upstream's file, upstream's order says
 * nothing about them: all go by index, those already there first among equals (as kpt orders them).
 */
function orderOf(staying: readonly KrmResource[], arriving: ReadonlySet<KrmResource>, upstreamFile: readonly KrmResource[], upstreamOf: (resource: KrmResource) => KrmResource | undefined): KrmResource[] {
  const resultOf = new Map<KrmResource, KrmResource>();
  for (const resource of [...staying, ...arriving]) {
    const upstream = upstreamOf(resource);
    if (upstream) resultOf.set(upstream, resource);
  }
  const inFile = new Set(upstreamFile);
  if (!staying.some((resource) => inFile.has(upstreamOf(resource)!))) {
    return [...staying, ...arriving].map((resource, order) => ({ resource, order })).sort((a, b) => a.resource.fileIndex - b.resource.fileIndex || a.order - b.order).map(({ resource }) => resource);
  }
  // The arriving resources that follow each one already there (undefined: the top), in upstream's order.
  const after = new Map<KrmResource | undefined, KrmResource[]>();
  const placed = new Set<KrmResource>();
  let anchor: KrmResource | undefined;
  for (const upstream of upstreamFile) {
    const result = resultOf.get(upstream);
    if (result === undefined) continue;
    if (!arriving.has(result)) anchor = result;
    else if (!placed.has(result)) {
      placed.add(result);
      const following = after.get(anchor);
      if (following) following.push(result);
      else after.set(anchor, [result]);
    }
  }
  const order = [...(after.get(undefined) ?? [])];
  for (const resource of [...staying].sort((a, b) => a.fileIndex - b.fileIndex)) order.push(resource, ...(after.get(resource) ?? []));
  // Those without an upstream resource in this file (a Kptfile moved with its package) go last.
  for (const resource of arriving) if (!placed.has(resource)) order.push(resource);
  return order;
}

/**
 * Gives the resources arriving in each file (new from upstream, or moved there) their place among
 * those already there; `upstream` is upstream's version of the package, `upstreamOf` a resource's
 * upstream counterpart.
 */
export function placeArriving(kept: readonly KrmResource[], arriving: ReadonlySet<KrmResource>, upstream: readonly KrmResource[], upstreamOf: (resource: KrmResource) => KrmResource | undefined): void {
  const upstreamFiles = groupByPath(upstream);
  for (const [path, resources] of groupByPath(kept)) {
    const coming = new Set(resources.filter((r) => arriving.has(r)));
    if (coming.size === 0) continue;
    const staying = resources.filter((r) => !coming.has(r));
    const upstreamFile = [...(upstreamFiles.get(path) ?? [])].sort((a, b) => a.fileIndex - b.fileIndex);
    // Resources a caller sent without indexes keep none: new ones go after them.
    const indexed = staying.every(hasIndex);
    const order = indexed ? orderOf(staying, coming, upstreamFile, upstreamOf) : [...staying, ...coming];
    let previous = -1;
    for (const resource of order) {
      const stays = !coming.has(resource);
      const index = stays && indexed && resource.fileIndex > previous ? resource.fileIndex : previous + 1;
      if (!stays || indexed) setIndex(resource, index);
      previous = index;
    }
  }
}
