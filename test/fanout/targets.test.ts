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

  it('packageNames under a repositorySelector: one context per selected Repository and name, in the order listed', () => {
    expect(unrolled([{ repositorySelector: { matchLabels: { env: 'prod' }, packageNames: ['b', 'a'] } }], fleet)).toEqual([
      { repo: 'c1', pkg: 'b', object: 'c1' },
      { repo: 'c1', pkg: 'a', object: 'c1' },
      { repo: 'c3', pkg: 'b', object: 'c3' },
      { repo: 'c3', pkg: 'a', object: 'c3' },
    ]);
  });

  it('packageNames under an objectSelector likewise; without names or with an empty list, the upstream package', () => {
    const teams: ConfigObject[] = ['t2', 't1'].map((name) => ({ apiVersion: 'example.com/v1', kind: 'Team', metadata: { name, labels: { org: 'hr' } } }));
    const selector = { apiVersion: 'example.com/v1', kind: 'Team', matchLabels: { org: 'hr' } };
    expect(unrolled([{ objectSelector: { ...selector, packageNames: ['ns'] } }], teams)).toEqual([
      { repo: 't1', pkg: 'ns', object: 't1' },
      { repo: 't2', pkg: 'ns', object: 't2' },
    ]);
    for (const packageNames of [undefined, []]) {
      expect(unrolled([{ objectSelector: { ...selector, ...(packageNames ? { packageNames } : {}) } }], teams).map((c) => c.pkg)).toEqual(['up', 'up']);
    }
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

describe('the upstream revision, as a name or a number', () => {
  const revision = (name: string, spec: Record<string, unknown>): ConfigObject => ({
    apiVersion: 'porch.kpt.dev/v1alpha1',
    kind: 'PackageRevision',
    metadata: { name },
    spec: { repository: 'catalog', packageName: 'base-ns', ...spec },
  });
  const revisions = [
    revision('published-3', { revision: 3, workspaceName: 'ws-3' }),
    revision('tagged-v1', { revision: 'v1', workspaceName: 'ws-v1' }),
    revision('draft-v2', { revision: 0, workspaceName: 'v2' }),
    revision('named-4', { revision: 5, workspaceName: '4' }),
  ];
  const found = (upstream: Upstream) => findUpstream(new ObjectIndex(revisions, []), setWith([], undefined, { repo: 'catalog', package: 'base-ns', ...upstream }))?.name;

  it.each([
    ['a number matches the revision number', { revision: 3 }, 'published-3'],
    ["a name matches a revision written as a name (the design's v1)", { revision: 'v1' }, 'tagged-v1'],
    ['a name matches a workspace name', { revision: 'v2' }, 'draft-v2'],
    ['a name matches a workspace name that looks like a number', { revision: '4' }, 'named-4'],
    ['a number never matches a workspace name', { revision: 4 }, undefined],
    ['a name never matches a revision number', { revision: '3' }, undefined],
    ['a name matches nothing else', { revision: 'v9' }, undefined],
    ['workspaceName still matches on its own', { workspaceName: 'ws-3' }, 'published-3'],
  ] as const)('%s', (_what, upstream, expected) => {
    expect(found(upstream)).toBe(expected);
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
