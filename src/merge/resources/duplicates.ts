/**
 * One identity declared more than once in one version of a package (a blueprint with the same Service
 * in two files). kpt tells resources apart by file path as well; we keep the path out of identity
 * (a moved resource is the same resource), except here: such copies are told apart by the path of
 * origin's copy, each copy of upstream and local joining the copy at its path. A copy at a path
 * origin does not have is the copy that moved: paired with the one copy left, or, where several
 * moved (a directory upstream renamed), each with the copy left in a file of its own file name.
 */
import type { KrmResource } from '../../krm/resource';
import { errorResult, type Result } from '../../krm/results';
import type { Side } from '../elements/element';
import { describeResource, type ResourceTuple } from './identity';

/** Every side's resources with one identity. */
export type IdentityGroup = { readonly [side in Side]: KrmResource[] };

const SIDES: readonly Side[] = ['origin', 'upstream', 'local'];

/** The path a tuple is known by: origin's copy's, else upstream's. */
const tuplePath = (tuple: ResourceTuple): string | undefined => (tuple.origin ?? tuple.upstream)?.path;

function sameFile(side: Side, copies: readonly KrmResource[], problems: Result[]): boolean {
  const byPath = new Map<string | undefined, KrmResource>();
  let clash = false;
  for (const copy of copies) {
    const other = byPath.get(copy.path);
    if (other) {
      clash = true;
      problems.push(errorResult(`two ${side} resources have the same identity: ${describeResource(other)} and ${describeResource(copy)}`, { resourceRef: copy.ref(), ...(copy.fileRef() ? { file: copy.fileRef()! } : {}) }));
    }
    byPath.set(copy.path, copy);
  }
  return clash;
}

function warning(group: IdentityGroup): Result {
  const any = (group.local[0] ?? group.upstream[0] ?? group.origin[0]) as KrmResource;
  const where = SIDES.filter((side) => group[side].length > 1).map((side) => `${side}: ${group[side].map((r) => r.path ?? '(no path)').join(', ')}`);
  const namespace = any.namespace ? `${any.namespace}/` : '';
  return {
    message: `${any.kind} ${namespace}${any.name} is declared more than once in one version of the package (${where.join('; ')}); its copies are merged apart by file path`,
    severity: 'warning',
    resourceRef: any.ref(),
  };
}

/** The group's tuples: one, or, where a side holds the identity more than once, one per file path. */
export function tuplesOf(group: IdentityGroup, problems: Result[], warnings: Result[]): ResourceTuple[] {
  if (SIDES.every((side) => group[side].length <= 1)) {
    const tuple: ResourceTuple = {};
    for (const side of SIDES) if (group[side][0]) tuple[side] = group[side][0];
    return [tuple];
  }
  if (SIDES.some((side) => sameFile(side, group[side], problems))) return [];
  warnings.push(warning(group));
  const tuples: ResourceTuple[] = group.origin.map((origin) => ({ origin }));
  for (const side of ['upstream', 'local'] as const) {
    const unmatched = group[side].filter((copy) => {
      const tuple = tuples.find((t) => !t[side] && tuplePath(t) === copy.path);
      if (tuple) tuple[side] = copy;
      return !tuple;
    });
    const open = tuples.filter((t) => !t[side] && t.origin);
    for (const copy of pairMoved(side, unmatched, open)) tuples.push({ [side]: copy });
  }
  return tuples;
}

const fileName = (path: string | undefined) => path?.slice(path.lastIndexOf('/') + 1);

/**
 * Pairs `side`'s copies at paths origin lacks with the tuples still open to that side: the one with
 * the one, else each with the one of its file name where that name is the only one of its kind on
 * both sides. Returns the copies left unpaired.
 */
function pairMoved(side: 'upstream' | 'local', unmatched: readonly KrmResource[], open: readonly ResourceTuple[]): KrmResource[] {
  if (unmatched.length === 1 && open.length === 1) {
    open[0]![side] = unmatched[0];
    return [];
  }
  const ofName = <T>(items: readonly T[], path: (item: T) => string | undefined, name: string | undefined) => items.filter((item) => fileName(path(item)) === name);
  return unmatched.filter((copy) => {
    const name = fileName(copy.path);
    const tuples = ofName(open, tuplePath, name);
    if (tuples.length !== 1 || ofName(unmatched, (c) => c.path, name).length !== 1) return true;
    tuples[0]![side] = copy;
    return false;
  });
}
