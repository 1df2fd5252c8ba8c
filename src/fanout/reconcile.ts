/**
 * Bringing the package's PackageVariants in line with the set, as Porch's controller does with the
 * cluster's (porch-semantics.md §6.7): the set's existing variants are keyed by the identity of
 * their stored downstream; a desired one that exists gets only its spec replaced (and only when it
 * differs, so an unchanged file is left byte for byte), a new one is added, and one whose target
 * is gone is removed. PackageVariants the set does not own are never touched.
 */
import { isDeepStrictEqual } from 'node:util';
import { PACKAGE_VARIANT_API } from '../config/function-config';
import { LEGACY_PATH, PATH } from '../krm/annotations';
import { KrmResource } from '../krm/resource';
import type { ResourceList } from '../krm/resource-list';
import { FunctionError, type Result } from '../krm/results';
import { OWNER_LABEL, ownerLabelValue, variantIdentity } from './naming';
import { DEFAULT_NAMESPACE, PORCH_CONFIG_GROUP } from './objects';
import { setError, type VariantSet } from './types';
import type { DesiredVariant } from './variants';

/** Where a new PackageVariant is written, one file each, so a review diff reads per variant. */
const variantPath = (name: string): string => `package-variants/${name}.yaml`;

interface ReconcileOutcome {
  readonly created: number;
  readonly changed: number;
  readonly removed: number;
  readonly unchanged: number;
}

function isPackageVariant(item: KrmResource): boolean {
  return item.kind === 'PackageVariant' && item.group === PORCH_CONFIG_GROUP;
}

/**
 * A new PackageVariant with its file path annotations (what `placeAt` would add, written in the
 * data: at 10,000 variants, editing each node afterwards costs more than the rest of the fan-out).
 */
function variantData(set: VariantSet, variant: DesiredVariant): Record<string, unknown> {
  const path = variantPath(variant.name);
  return {
    apiVersion: PACKAGE_VARIANT_API,
    kind: 'PackageVariant',
    metadata: {
      name: variant.name,
      ...(set.namespace ? { namespace: set.namespace } : {}),
      labels: { [OWNER_LABEL]: ownerLabelValue(set.name) },
      annotations: { [PATH]: path, [LEGACY_PATH]: path },
    },
    spec: variant.spec,
  };
}

/** Applies the desired variants to the list's items; throws FunctionError before any change on a name clash. */
export function reconcile(list: ResourceList, set: VariantSet, desired: readonly DesiredVariant[]): ReconcileOutcome {
  const owner = ownerLabelValue(set.name);
  const variants = list.items.filter((item) => isPackageVariant(item) && (item.namespace ?? DEFAULT_NAMESPACE) === (set.namespace ?? DEFAULT_NAMESPACE));
  const owned = variants.filter((item) => item.getString(['metadata', 'labels', OWNER_LABEL]) === owner);
  const existing = new Map<string, KrmResource>();
  for (const item of owned) {
    const identity = variantIdentity(set.name, item.getString(['spec', 'downstream', 'repo']) ?? '', item.getString(['spec', 'downstream', 'package']) ?? '');
    if (!existing.has(identity)) existing.set(identity, item);
  }

  const ownedSet = new Set(owned);
  const others = new Set(variants.filter((item) => !ownedSet.has(item)).map((item) => item.name));
  const clashes: Result[] = desired
    .filter((variant) => !existing.has(variant.identity) && others.has(variant.name))
    .map((variant) =>
      setError(set, `PackageVariant ${variant.name} is already in the package and is not owned by this set (no label ${OWNER_LABEL}: ${owner})`, 'metadata.name'),
    );
  if (clashes.length) throw new FunctionError(clashes);

  let created = 0;
  let changed = 0;
  let unchanged = 0;
  const kept = new Set<KrmResource>();
  const added: KrmResource[] = [];
  for (const variant of desired) {
    const item = existing.get(variant.identity);
    if (!item) {
      added.push(KrmResource.fromData(variantData(set, variant)));
      created += 1;
      continue;
    }
    kept.add(item);
    if (isDeepStrictEqual(item.getData(['spec']), variant.spec)) {
      unchanged += 1;
    } else {
      item.setIn(['spec'], variant.spec);
      changed += 1;
    }
  }
  const gone = new Set(owned.filter((item) => !kept.has(item)));
  list.items = [...list.items.filter((item) => !gone.has(item)), ...added];
  return { created, changed, removed: gone.size, unchanged };
}
