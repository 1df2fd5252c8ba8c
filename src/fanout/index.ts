/**
 * PackageVariantSet fan-out (issue #5): one PackageVariant per target, as Porch's
 * PackageVariantSet controller makes them, written into the package for review.
 *
 * Steps: validate everything (Porch's rules, label selectors, every CEL expression parsed and
 * type-checked) → unroll targets → render each PackageVariantSpec → name → reconcile with the
 * set's earlier PackageVariants. Any error throws FunctionError before an item changes, so the
 * runtime writes the input back unchanged: there is never a partial fan-out.
 */
import { functionConfigFile, type ConfigObject } from '../config/function-config';
import type { KrmResource } from '../krm/resource';
import type { ResourceList } from '../krm/resource-list';
import { groupDigits } from '../yaml/group-digits';
import { FunctionError } from '../krm/results';
import { celObject } from './cel';
import { ExpressionTable } from './expressions';
import { ObjectIndex } from './objects';
import { reconcile } from './reconcile';
import { describeUpstream, findUpstream, MAX_VARIANTS, repositoriesByName, TooManyTargets, unrollTargets, type TargetContext } from './targets';
import { readVariantSet, setError, type VariantSet } from './types';
import { hasValidUpstream, porchValidationErrors, selectorErrors } from './validate';
import { desiredVariants, type DesiredVariant } from './variants';

/** The set's target contexts; a FunctionError naming the target past which there are too many. */
function boundedTargets(set: VariantSet, index: ObjectIndex): TargetContext[] {
  try {
    return unrollTargets(set, index);
  } catch (error) {
    if (!(error instanceof TooManyTargets)) throw error;
    throw new FunctionError(
      setError(set, `${error.path}: the targets make more than ${groupDigits(MAX_VARIANTS)} PackageVariants, the most one set makes in a run (see "Safety" in the README); split the fleet over several sets`, error.path),
    );
  }
}

/**
 * The PackageVariants `variantSet` asks for, its targets looked up among `objects` and `items`;
 * throws FunctionError naming every problem, before any variant is made.
 */
export function expandVariantSet(
  variantSet: ConfigObject,
  objects: readonly ConfigObject[],
  items: readonly KrmResource[] = [],
  file?: { path: string; index?: number },
): { set: VariantSet; desired: DesiredVariant[] } {
  const set = readVariantSet(variantSet, file);
  const index = new ObjectIndex(objects, items);
  const upstream = findUpstream(index, set);
  const expressions = new ExpressionTable();
  // An invalid spec.upstream is reported as such, not again by every expression that reads it.
  const upstreamFound = upstream !== undefined || !hasValidUpstream(set);
  const errors = [
    ...porchValidationErrors(set),
    ...selectorErrors(set),
    ...expressions
      .compileAll(set.spec.targets ?? [], upstreamFound, () => describeUpstream(set))
      .map(({ path, message }) => setError(set, `${path}: ${message}`, path)),
  ];
  if (errors.length) throw new FunctionError(errors);
  const desired = desiredVariants(
    { set, expressions, repositories: repositoriesByName(index, set), upstream: upstream ? celObject(upstream) : undefined },
    boundedTargets(set, index),
  );
  return { set, desired };
}

/**
 * Fans `variantSet` out over its targets, looked up among `objects` (a List functionConfig's
 * other objects) and the package's items; reports one info result.
 */
export function fanOut(list: ResourceList, variantSet: ConfigObject, objects: readonly ConfigObject[]): void {
  const { set, desired } = expandVariantSet(variantSet, objects, list.items, functionConfigFile(list));
  const { created, changed, removed, unchanged } = reconcile(list, set, desired);
  list.results.push({
    message: `PackageVariantSet ${set.name}: ${desired.length} PackageVariant${desired.length === 1 ? '' : 's'}: ${created} created, ${changed} changed, ${removed} removed, ${unchanged} unchanged`,
    severity: 'info',
    resourceRef: set.ref,
    tags: { created: String(created), changed: String(changed), removed: String(removed), unchanged: String(unchanged) },
  });
}
