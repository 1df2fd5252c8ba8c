/**
 * Unrolling targets and finding objects (src/fanout/targets.ts, objects.ts), against Porch's
 * TestUnrollDownstreamTargets and TestGetUpstreamPr (PVS) vectors.
 */
import type { ConfigObject } from '../../src/config/function-config';
import { ObjectIndex } from '../../src/fanout/objects';
import { findUpstream, unrollTargets } from '../../src/fanout/targets';
import { readVariantSet, type Target, type Upstream } from '../../src/fanout/types';
import { parseResourceList } from '../../src/krm/resource-list';
import { resourceList } from '../helpers';
import { vectors } from './porch-vectors';

const repository = (name: string, labels: Record<string, string> = {}, namespace?: string): ConfigObject => ({
  apiVersion: 'config.porch.kpt.dev/v1alpha1',
  kind: 'Repository',
  metadata: { name, labels, ...(namespace ? { namespace } : {}) },
});

const setWith = (targets: Target[], namespace?: string, upstream: Upstream = { repo: 'up', package: 'up', revision: 1 }) =>
  readVariantSet({ apiVersion: 'config.porch.kpt.dev/v1alpha2', kind: 'PackageVariantSet', metadata: { name: 'my-pvs', ...(namespace ? { namespace } : {}) }, spec: { upstream, targets } });

const unrolled = (targets: Target[], objects: ConfigObject[], namespace?: string) =>
  unrollTargets(setWith(targets, namespace), new ObjectIndex(objects, [])).map((c) => ({ repo: c.repoDefault, pkg: c.packageDefault, object: c.object?.name }));

describe("Porch's unroll vector", () => {
  const [vector] = vectors<
    { packageVariantSet: { spec: { upstream: Upstream; targets: Target[] } }; selectedObjects: ConfigObject[] },
    { downstreams: { repoDefault: string; packageDefault: string; object: string | null }[] }
  >('pvs-unroll-');

  it('gives the same (repository, package, object) list, in order', () => {
    const { packageVariantSet, selectedObjects } = vector!.inputs;
    // Porch's fake client answers every list with these Pods; the real list is of Repositories.
    const repositories = selectedObjects.map((o) => ({ ...o, apiVersion: 'config.porch.kpt.dev/v1alpha1', kind: 'Repository' }));
    const set = setWith(packageVariantSet.spec.targets, undefined, packageVariantSet.spec.upstream);
    const contexts = unrollTargets(set, new ObjectIndex(repositories, []));
    expect(contexts.map((c) => ({ repoDefault: c.repoDefault, packageDefault: c.packageDefault, object: c.object?.name ?? null }))).toEqual(vector!.expected.downstreams);
  });
});

describe('selecting', () => {
  const fleet = [repository('c3', { env: 'prod' }), repository('c1', { env: 'prod' }), repository('c2', { env: 'dev' })];

  it('selected Repositories are sorted by name, whatever the input order', () => {
    expect(unrolled([{ repositorySelector: { matchLabels: { env: 'prod' } } }], fleet)).toEqual([
      { repo: 'c1', pkg: 'up', object: 'c1' },
      { repo: 'c3', pkg: 'up', object: 'c3' },
    ]);
  });

  it("Repositories are taken from the set's namespace, a missing namespace meaning default", () => {
    const objects = [repository('a'), repository('b', {}, 'default'), repository('c', {}, 'other')];
    expect(unrolled([{ repositorySelector: {} }], objects).map((c) => c.repo)).toEqual(['a', 'b']);
    expect(unrolled([{ repositorySelector: {} }], objects, 'other').map((c) => c.repo)).toEqual(['c']);
  });

  it('objectSelector matches group and kind whatever the version; objects without a namespace may be cluster-scoped and always match', () => {
    const objects: ConfigObject[] = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { fleet: 'yes' } } },
      { apiVersion: 'example.com/v2', kind: 'Team', metadata: { name: 't1', namespace: 'ops', labels: { fleet: 'yes' } } },
      { apiVersion: 'example.com/v1', kind: 'Team', metadata: { name: 't2', namespace: 'other', labels: { fleet: 'yes' } } },
      { apiVersion: 'other.com/v1', kind: 'Team', metadata: { name: 't3', namespace: 'ops', labels: { fleet: 'yes' } } },
    ];
    expect(unrolled([{ objectSelector: { apiVersion: 'v1', kind: 'Namespace', matchLabels: { fleet: 'yes' } } }], objects, 'ops').map((c) => c.object)).toEqual(['team-a']);
    expect(unrolled([{ objectSelector: { apiVersion: 'example.com/v1', kind: 'Team' } }], objects, 'ops').map((c) => c.object)).toEqual(['t1']);
  });

  // Deviation, pinned: Porch accepts objectSelector.name but ignores it.
  it('objectSelector.name narrows the selection to that name', () => {
    expect(unrolled([{ objectSelector: { apiVersion: 'config.porch.kpt.dev/v1alpha1', kind: 'Repository', name: 'c2' } }], fleet).map((c) => c.object)).toEqual(['c2']);
  });

  it('no match is not an error: the target yields nothing', () => {
    expect(unrolled([{ repositorySelector: { matchLabels: { env: 'qa' } } }], fleet)).toEqual([]);
  });

  it("an object among both the List's objects and the items counts once", () => {
    const list = parseResourceList(resourceList(['apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: c1\n  labels: {env: prod}']));
    const index = new ObjectIndex([repository('c1', { env: 'prod' })], list.items);
    expect(unrollTargets(setWith([{ repositorySelector: {} }]), index)).toHaveLength(1);
  });

  it("package items are seen without kpt's bookkeeping annotations", () => {
    const item = `apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata:
  name: c1
  annotations:
    owner: hr
    config.kubernetes.io/index: '0'
    config.kubernetes.io/path: 'repos.yaml'
    internal.config.kubernetes.io/path: 'repos.yaml'
    internal.config.kubernetes.io/seqindent: 'compact'
    config.k8s.io/id: '1'
    config.kubernetes.io/local-config: "true"`;
    const [context] = unrollTargets(setWith([{ repositorySelector: {} }]), new ObjectIndex([], parseResourceList(resourceList([item])).items));
    expect(context!.object!.annotations).toEqual({ owner: 'hr', 'config.kubernetes.io/local-config': 'true' });
  });
});

describe("Porch's upstream lookup vector", () => {
  const [vector] = vectors<
    { packageRevisions: { spec: Record<string, unknown> }[] },
    { steps: { upstream: Upstream; found: boolean }[] }
  >('pvs-upstream-');
  const revisions = vector!.inputs.packageRevisions.map(
    (pr, i): ConfigObject => ({ apiVersion: 'porch.kpt.dev/v1alpha1', kind: 'PackageRevision', metadata: { name: `pr-${i}` }, spec: pr.spec }),
  );

  it.each(vector!.expected.steps.map((step, i) => [i + 1, step] as const))('step %i', (_i, { upstream, found }) => {
    expect(findUpstream(new ObjectIndex(revisions, []), setWith([], undefined, upstream)) !== undefined).toBe(found);
  });

  // Deviation, pinned: in Porch an unset revision (0) matches every draft, whose revision is 0 too.
  it('an unset revision does not match a draft of another workspace', () => {
    const draft: ConfigObject = {
      apiVersion: 'porch.kpt.dev/v1alpha1',
      kind: 'PackageRevision',
      metadata: { name: 'draft' },
      spec: { repository: 'my-repo', packageName: 'my-package', workspaceName: 'draft-ws', revision: 0 },
    };
    expect(findUpstream(new ObjectIndex([draft], []), setWith([], undefined, { repo: 'my-repo', package: 'my-package', workspaceName: 'v1' }))).toBeUndefined();
  });
});

describe('object fields', () => {
  it('are read from the object itself, never from what every JavaScript object inherits', () => {
    const object = { apiVersion: 'v1', kind: 'A', metadata: { name: 'a' }, spec: { packageName: 'p' } } as unknown as ConfigObject;
    const items = parseResourceList(resourceList(['apiVersion: v1\nkind: A\nmetadata:\n  name: b\nspec:\n  packageName: q'])).items;
    const views = new ObjectIndex([object], items).ofKind('', 'A');
    expect(views.map((view) => [view.get(['spec', 'packageName']), view.get(['spec', 'constructor']), view.get(['toString'])])).toEqual([
      ['p', undefined, undefined],
      ['q', undefined, undefined],
    ]);
  });
});
