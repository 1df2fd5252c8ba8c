/**
 * Unrolling a set's targets into (repository, package) defaults, and finding the objects the
 * templates read: the upstream PackageRevision and the downstream Repositories
 * (porch-semantics.md §6.3, §6.4).
 */
import { groupOf, inNamespace, ObjectIndex, PORCH_CONFIG_GROUP, PORCH_GROUP, type ObjectView } from './objects';
import { selectorMatches } from './selector';
import { targetPath, type LabelSelector, type Target, type Upstream, type VariantSet } from './types';

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

/**
 * The package names of a target: those listed (a `repositories` entry's, or a selector's as the
 * design has them), else the upstream package's name.
 */
const packageNamesOf = (listed: readonly string[] | undefined, upstreamPackage: string): readonly string[] => (listed?.length ? listed : [upstreamPackage]);

/**
 * The most PackageVariants one set makes. Each costs the run a few kilobytes (its spec, its
 * object, its text) until the output is written; the bound keeps the largest fleet a run takes
 * within a function runner's memory (README "Safety"). A `packageNames` list multiplies what a
 * selector picks, so the bound is checked while the targets are unrolled, before they are built.
 */
export const MAX_VARIANTS = 200_000;

/** Thrown when the set's targets unroll into more than MAX_VARIANTS PackageVariants. */
export class TooManyTargets extends Error {
  constructor(readonly path: string) {
    super(`the targets make more than ${MAX_VARIANTS} PackageVariants`);
  }
}

/** Contexts, counted against MAX_VARIANTS as they are added. */
class Contexts {
  readonly all: TargetContext[] = [];

  add(context: TargetContext): void {
    if (this.all.length === MAX_VARIANTS) throw new TooManyTargets(targetPath(context.index));
    this.all.push(context);
  }
}

/** One context per selected object and package name, objects in list order, names in the order listed. */
function addSelected(out: Contexts, i: number, target: Target, views: readonly ObjectView[], packageNames: readonly string[], source: string): void {
  for (const object of views) for (const packageDefault of packageNames) out.add({ index: i, target, repoDefault: object.name, packageDefault, object, source });
}

/** Every target's contexts, in target order (Porch's `unrollDownstreamTargets`); throws TooManyTargets past MAX_VARIANTS. */
export function unrollTargets(set: VariantSet, index: ObjectIndex): TargetContext[] {
  const upstreamPackage = set.spec.upstream?.package ?? '';
  const out = new Contexts();
  (set.spec.targets ?? []).forEach((target, i) => {
    if (target.repositories) {
      target.repositories.forEach((repository, j) => {
        const source = `${targetPath(i)}.repositories[${j}]`;
        for (const packageDefault of packageNamesOf(repository.packageNames, upstreamPackage)) out.add({ index: i, target, repoDefault: repository.name, packageDefault, source });
      });
    } else if (target.repositorySelector) {
      const selector = target.repositorySelector;
      const views = selectObjects(index, set, PORCH_CONFIG_GROUP, 'Repository', selector, { clusterScopedCandidates: false });
      addSelected(out, i, target, views, packageNamesOf(selector.packageNames, upstreamPackage), `${targetPath(i)}.repositorySelector`);
    } else if (target.objectSelector) {
      // Porch ignores `objectSelector.name`; here it narrows the selection to that name.
      const { apiVersion = '', kind = '', name, packageNames } = target.objectSelector;
      const views = selectObjects(index, set, groupOf(apiVersion), kind, target.objectSelector, { clusterScopedCandidates: true, ...(name ? { name } : {}) });
      addSelected(out, i, target, views, packageNamesOf(packageNames, upstreamPackage), `${targetPath(i)}.objectSelector`);
    }
  });
  return out.all;
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
 * Whether a PackageRevision is the revision `revision` names: a number is Porch's revision number
 * (`spec.revision`); a name, as the design writes it (`v1`, a tag, a branch), is the revision's
 * `spec.revision` or `spec.workspaceName`, compared as text exactly. A number never matches a
 * name, so `revision: 3` is not `revision: "3"`.
 */
function revisionMatches(view: ObjectView, revision: number | string): boolean {
  if (typeof revision === 'number') return view.get(['spec', 'revision']) === revision;
  return view.get(['spec', 'revision']) === revision || view.get(['spec', 'workspaceName']) === revision;
}

/**
 * The upstream PackageRevision, when supplied: the first in the set's namespace with the upstream's
 * repository and package and its revision or workspace name. Unlike Porch, an unset revision does
 * not match every draft (whose revision is 0 too).
 */
export function findUpstream(index: ObjectIndex, set: VariantSet): ObjectView | undefined {
  const { repo, package: pkg, revision, workspaceName }: Upstream = set.spec.upstream ?? {};
  return index.ofKind(PORCH_GROUP, 'PackageRevision').find(
    (view) =>
      inNamespace(view, set.namespace) &&
      view.get(['spec', 'repository']) === repo &&
      view.get(['spec', 'packageName']) === pkg &&
      ((!!revision && revisionMatches(view, revision)) || (!!workspaceName && view.get(['spec', 'workspaceName']) === workspaceName)),
  );
}

export function describeUpstream(set: VariantSet): string {
  const { repo = '', package: pkg = '', revision, workspaceName } = set.spec.upstream ?? {};
  const named = typeof revision === 'string' ? `revision or workspace ${revision}` : revision ? `revision ${revision}` : '';
  const which = [named, workspaceName ? `workspace ${workspaceName}` : ''].filter(Boolean).join(' or ');
  return `the upstream PackageRevision (repository ${repo}, package ${pkg}, ${which}) is not among the objects`;
}
