/**
 * The downstreams sync is asked for: each PackageVariant given, and each one a PackageVariantSet
 * makes (expanded by the function's own fan-out: same names, same CEL, same targets), with the
 * Repositories they name and the owner recorded in what sync writes.
 */
import { PACKAGE_VARIANT_API, type ConfigObject } from '../config/function-config';
import { expandVariantSet } from '../fanout';
import { OWNER_LABEL, ownerLabelValue } from '../fanout/naming';
import { errorResult, FunctionError, type Result } from '../krm/results';
import { checkControllerFields } from '../variant/spec';
import type { InputObject, SyncInputs } from './inputs';
import { ownerOf, type DeletionPolicy } from './ownership';
import { namespaceOf, packagePath, packagePathProblem, repositoryKey, type SyncRepository } from './repositories';
import type { UpstreamSpec } from './upstream';
import { metadataProblems } from './variant-metadata';

export interface DesiredDownstream {
  /** `PackageVariant <namespace>/<name>`, for messages and the plan. */
  readonly label: string;
  readonly owner: string;
  /** The PackageVariant its mutations come from. */
  readonly variant: ConfigObject;
  readonly repository: SyncRepository;
  readonly pkg: string;
  readonly pkgpath: string;
  readonly upstreamRepository: SyncRepository;
  readonly upstream: UpstreamSpec;
  readonly deletionPolicy: DeletionPolicy;
  readonly adoptionPolicy: 'adoptExisting' | 'adoptNone';
}

/** A variant that makes no downstream: its messages, and where it would have gone when known. */
export interface InvalidVariant {
  readonly label: string;
  readonly repository: string;
  readonly pkg: string;
  readonly results: readonly Result[];
}

interface VariantSpecFields {
  upstream?: UpstreamSpec;
  downstream?: { repo?: string; package?: string };
  deletionPolicy?: DeletionPolicy;
  adoptionPolicy?: 'adoptExisting' | 'adoptNone';
}

/**
 * A set's upstream package as Porch would list it, for its `upstream` CEL variable: the
 * PackageRevision objects sync reads from git, and whether one of them is the revision it asks for.
 */
export type UpstreamObjects = (set: ConfigObject) => Promise<{ readonly objects: ConfigObject[]; readonly found: boolean }>;

/** Every PackageVariant of the run, given or made by a set, for its status. */
export interface VariantRecord {
  readonly label: string;
  readonly object: ConfigObject;
  /** Why Porch would stall it (its validation), when it would. */
  readonly stalled?: string;
}

/** Every PackageVariantSet of the run, with Porch's reason when it makes no variant. */
export interface SetRecord {
  readonly label: string;
  readonly object: ConfigObject;
  readonly problem?: { readonly reason: 'ValidationError' | 'UpstreamNotFound'; readonly message: string };
}

export interface Desired {
  readonly downstreams: DesiredDownstream[];
  readonly invalid: InvalidVariant[];
  /** Problems of sets that make no variant at all. */
  readonly problems: Result[];
  readonly variants: VariantRecord[];
  readonly sets: SetRecord[];
}

/** The namespace in a variant's label (`PackageVariant <namespace>/<name>`): its downstream Repository's. */
export const namespaceOfLabel = (label: string): string => label.slice(label.indexOf(' ') + 1, label.indexOf('/'));

/** `refused`: why Kubernetes would not take the variant (inputs.ts), which then makes no downstream. */
function desiredOf(variant: ConfigObject, owner: string, repositories: ReadonlyMap<string, SyncRepository>, desired: Desired, refused?: string): void {
  const label = `PackageVariant ${namespaceOf(variant)}/${variant.metadata.name}`;
  const spec = (variant.spec ?? {}) as VariantSpecFields;
  const where = { label, repository: spec.downstream?.repo ?? '', pkg: spec.downstream?.package ?? '' };
  const errors = [...(refused ? [errorResult(refused, { field: { path: 'metadata.name' } })] : []), ...checkControllerFields(variant), ...metadataProblems(variant, label)];
  const lookup = (side: 'upstream' | 'downstream', name: string | undefined) => {
    const found = name ? repositories.get(repositoryKey(namespaceOf(variant), name)) : undefined;
    if (name && !found) errors.push(errorResult(`${label}: spec.${side}.repo names Repository ${name}, which is not among the inputs (namespace ${namespaceOf(variant)})`, { field: { path: `spec.${side}.repo` } }));
    return found;
  };
  const upstreamRepository = lookup('upstream', spec.upstream?.repo);
  const repository = lookup('downstream', spec.downstream?.repo);
  for (const side of ['upstream', 'downstream'] as const) {
    const pkg = spec[side]?.package;
    const why = pkg ? packagePathProblem(pkg) : undefined;
    if (why) errors.push(errorResult(`${label}: spec.${side}.package ${JSON.stringify(pkg)} cannot be a package path: ${why}`, { field: { path: `spec.${side}.package` } }));
  }
  if (errors.length > 0 || !repository || !upstreamRepository) {
    desired.invalid.push({ ...where, results: errors });
    desired.variants.push({ label, object: variant, stalled: errors.map((e) => e.message).join('; ') });
    return;
  }
  desired.variants.push({ label, object: variant });
  desired.downstreams.push({
    label,
    owner,
    variant,
    repository,
    pkg: where.pkg,
    pkgpath: packagePath(repository, where.pkg),
    upstreamRepository,
    upstream: spec.upstream ?? {},
    deletionPolicy: spec.deletionPolicy ?? 'delete',
    adoptionPolicy: spec.adoptionPolicy ?? 'adoptNone',
  });
}

const objectsOf = (inputs: readonly InputObject[]): ConfigObject[] => inputs.map((input) => input.object);

export async function desiredDownstreams(inputs: SyncInputs, repositories: ReadonlyMap<string, SyncRepository>, upstreamObjects: UpstreamObjects): Promise<Desired> {
  const desired: Desired = { downstreams: [], invalid: [], problems: [], variants: [], sets: [] };
  for (const { object, refused } of inputs.variants) desiredOf(object, ownerOf('PackageVariant', object.metadata.namespace, object.metadata.name), repositories, desired, refused);
  const objects = objectsOf(inputs.objects);
  for (const { object: set, where, refused } of inputs.variantSets) {
    const label = `PackageVariantSet ${namespaceOf(set)}/${set.metadata.name}`;
    if (refused) {
      desired.problems.push(errorResult(refused, { field: { path: 'metadata.name' } }));
      desired.sets.push({ label, object: set, problem: { reason: 'ValidationError', message: refused } });
      continue;
    }
    const upstream = await upstreamObjects(set);
    let expanded;
    try {
      expanded = expandVariantSet(set, [...objects, ...upstream.objects], [], { path: where });
    } catch (error) {
      if (!(error instanceof FunctionError)) throw error;
      desired.problems.push(...error.results);
      desired.sets.push({ label, object: set, problem: { reason: 'ValidationError', message: error.results.map((r) => r.message).join('; ') } });
      continue;
    }
    const { repo, package: pkg, revision, workspaceName } = ((set.spec ?? {}) as { upstream?: { repo?: string; package?: string; revision?: number | string; workspaceName?: string } }).upstream ?? {};
    desired.sets.push({
      label,
      object: set,
      // Porch's message for a set whose upstream revision it cannot find.
      ...(upstream.found ? {} : { problem: { reason: 'UpstreamNotFound' as const, message: `could not find upstream package revision '${pkg}/${workspaceName ?? revision ?? ''}' in repo '${repo}'` } }),
    });
    const owner = ownerOf('PackageVariantSet', set.metadata.namespace, set.metadata.name);
    for (const variant of expanded.desired) {
      const generated: ConfigObject = {
        apiVersion: PACKAGE_VARIANT_API,
        kind: 'PackageVariant',
        metadata: { name: variant.name, ...(set.metadata.namespace ? { namespace: set.metadata.namespace } : {}), labels: { [OWNER_LABEL]: ownerLabelValue(set.metadata.name) } },
        spec: variant.spec as unknown as Record<string, unknown>,
      };
      desiredOf(generated, owner, repositories, desired);
    }
  }
  return desired;
}

/** Two variants that want one downstream package: neither is synced, each names the other. */
export function sameDownstream(downstreams: readonly DesiredDownstream[]): { unique: DesiredDownstream[]; clashes: InvalidVariant[] } {
  const byTarget = new Map<string, DesiredDownstream[]>();
  for (const d of downstreams) {
    const key = `${repositoryKey(d.repository.namespace, d.repository.name)}\0${d.pkgpath}`;
    (byTarget.get(key) ?? byTarget.set(key, []).get(key)!).push(d);
  }
  const unique: DesiredDownstream[] = [];
  const clashes: InvalidVariant[] = [];
  for (const group of byTarget.values()) {
    if (group.length === 1) unique.push(group[0]!);
    else
      for (const d of group) {
        const others = group.filter((o) => o !== d).map((o) => o.label);
        clashes.push({ label: d.label, repository: d.repository.name, pkg: d.pkg, results: [errorResult(`${d.label} and ${others.join(', ')} all want package ${d.pkg} of Repository ${d.repository.name}; give each downstream one variant`)] });
      }
  }
  return { unique, clashes };
}
