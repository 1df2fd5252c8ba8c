/**
 * Unrolling a set's targets into (repository, package) defaults, and finding the objects the
 * templates read: the upstream PackageRevision and the downstream Repositories
 * (porch-semantics.md §6.3, §6.4).
 */
import { groupOf, inNamespace, ObjectIndex, PORCH_CONFIG_GROUP, PORCH_GROUP, type ObjectView } from './objects';
import { selectorMatches } from './selector';
import { targetPath, type LabelSelector, type ObjectSelector, type Target, type Upstream, type VariantSet } from './types';

/** One PackageVariant to render: Porch's `pvContext`. */
export interface TargetContext {
  /** Index of the target in spec.targets. */
  readonly index: number;
  readonly target: Target;
  readonly repoDefault: string;
  readonly packageDefault: string;
  /** The selected object (selector targets only). */
  readonly object?: ObjectView;
  /** The field the context comes from, for messages: a `repositories` entry or the selector. */
  readonly source: string;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byNamespaceAndName = (a: ObjectView, b: ObjectView): number => compare(a.namespace ?? '', b.namespace ?? '') || compare(a.name, b.name);

/**
 * The objects a selector picks, sorted by namespace and name as an API server lists them, so the
 * output does not depend on the input's order. An object without a namespace may be of a
 * cluster-scoped kind and is always a candidate; others must be in the set's namespace.
 */
function selectObjects(
  index: ObjectIndex,
  set: VariantSet,
  group: string,
  kind: string,
  selector: LabelSelector,
  options: { clusterScopedCandidates: boolean; name?: string },
): ObjectView[] {
  return index
    .ofKind(group, kind)
    .filter((view) => (options.clusterScopedCandidates && view.namespace === undefined) || inNamespace(view, set.namespace))
    .filter((view) => options.name === undefined || view.name === options.name)
    .filter((view) => selectorMatches(selector, view.labels))
    .sort(byNamespaceAndName);
}

/** Porch ignores `objectSelector.name`; here it narrows the selection to that name. */
function objectSelectorContexts(index: ObjectIndex, set: VariantSet, i: number, target: Target, selector: ObjectSelector, packageDefault: string): TargetContext[] {
  const { apiVersion = '', kind = '', name } = selector;
  const views = selectObjects(index, set, groupOf(apiVersion), kind, selector, { clusterScopedCandidates: true, ...(name ? { name } : {}) });
  return views.map((object) => ({ index: i, target, repoDefault: object.name, packageDefault, object, source: `${targetPath(i)}.objectSelector` }));
}

/** Every target's contexts, in target order (Porch's `unrollDownstreamTargets`). */
export function unrollTargets(set: VariantSet, index: ObjectIndex): TargetContext[] {
  const upstreamPackage = set.spec.upstream?.package ?? '';
  return (set.spec.targets ?? []).flatMap((target, i): TargetContext[] => {
    if (target.repositories) {
      return target.repositories.flatMap((repository, j) =>
        (repository.packageNames?.length ? repository.packageNames : [upstreamPackage]).map((packageDefault) => ({
          index: i,
          target,
          repoDefault: repository.name,
          packageDefault,
          source: `${targetPath(i)}.repositories[${j}]`,
        })),
      );
    }
    if (target.repositorySelector) {
      const views = selectObjects(index, set, PORCH_CONFIG_GROUP, 'Repository', target.repositorySelector, { clusterScopedCandidates: false });
      return views.map((object) => ({
        index: i,
        target,
        repoDefault: object.name,
        packageDefault: upstreamPackage,
        object,
        source: `${targetPath(i)}.repositorySelector`,
      }));
    }
    return target.objectSelector ? objectSelectorContexts(index, set, i, target, target.objectSelector, upstreamPackage) : [];
  });
}

/** The Repositories in the set's namespace, by name. */
export function repositoriesByName(index: ObjectIndex, set: VariantSet): ReadonlyMap<string, ObjectView> {
  const found = new Map<string, ObjectView>();
  for (const view of index.ofKind(PORCH_CONFIG_GROUP, 'Repository')) {
    if (inNamespace(view, set.namespace) && !found.has(view.name)) found.set(view.name, view);
  }
  return found;
}

/**
 * The upstream PackageRevision, when supplied: the first in the set's namespace with the upstream's
 * repository and package and its revision or workspace name. Unlike Porch, an unset revision does
 * not match every draft (whose revision is 0 too).
 */
export function findUpstream(index: ObjectIndex, set: VariantSet): ObjectView | undefined {
  const upstream: Upstream = set.spec.upstream ?? {};
  return index.ofKind(PORCH_GROUP, 'PackageRevision').find(
    (view) =>
      inNamespace(view, set.namespace) &&
      view.get(['spec', 'repository']) === upstream.repo &&
      view.get(['spec', 'packageName']) === upstream.package &&
      ((!!upstream.revision && view.get(['spec', 'revision']) === upstream.revision) ||
        (!!upstream.workspaceName && view.get(['spec', 'workspaceName']) === upstream.workspaceName)),
  );
}

export function describeUpstream(set: VariantSet): string {
  const { repo = '', package: pkg = '', revision, workspaceName } = set.spec.upstream ?? {};
  const which = [revision ? `revision ${revision}` : '', workspaceName ? `workspace ${workspaceName}` : ''].filter(Boolean).join(' or ');
  return `the upstream PackageRevision (repository ${repo}, package ${pkg}, ${which}) is not among the objects`;
}
