/**
 * The fan-out through the whole function (runKrmFunction): the bad inputs, each a clear
 * error with nothing written, and how re-runs treat earlier output.
 */
import { resourceList } from '../helpers';
import { failing, FLEET, items, pvs, REF, repo, succeeding } from './fanout-helpers';

describe('bad input: a clear error, exit 1, nothing written', () => {
  it('two target types in one target', () => {
    const results = failing(resourceList(FLEET, pvs('- repositories:\n  - name: cluster-01\n  repositorySelector: {}')));
    expect(results).toEqual([
      {
        message: 'PackageVariantSet fleet: spec.targets[0] must specify one of `repositories`, `repositorySelector`, or `objectSelector`',
        severity: 'error',
        resourceRef: REF,
        field: { path: 'spec.targets[0]' },
      },
    ]);
  });

  it('no target type', () => {
    const results = failing(resourceList(FLEET, pvs('- template:\n    labels: {a: b}')));
    expect(results.map((r) => r.message)).toEqual(['PackageVariantSet fleet: spec.targets[0] must specify one of `repositories`, `repositorySelector`, or `objectSelector`']);
  });

  it('repo and repoExpr together', () => {
    const results = failing(resourceList(FLEET, pvs("- repositories:\n  - name: cluster-01\n  template:\n    downstream:\n      repo: cluster-01\n      repoExpr: \"'cluster-02'\"")));
    expect(results).toEqual([
      expect.objectContaining({
        message: 'PackageVariantSet fleet: spec.targets[0].template may specify only one of `downstream.repo` and `downstream.repoExpr`',
        field: { path: 'spec.targets[0].template.downstream.repoExpr' },
        resourceRef: REF,
      }),
    ]);
  });

  it('a CEL syntax error, reported once however many targets use it, with the expression and a caret', () => {
    const results = failing(resourceList(FLEET, pvs("- repositorySelector: {}\n  template:\n    labelExprs:\n    - key: region\n      valueExpr: \"repository.labels['region'\"")));
    expect(results).toEqual([
      {
        message: "PackageVariantSet fleet: spec.targets[0].template.labelExprs[0].valueExpr: Expected RBRACKET, got EOF\n\n>    1 | repository.labels['region'\n                                   ^",
        severity: 'error',
        resourceRef: REF,
        field: { path: 'spec.targets[0].template.labelExprs[0].valueExpr' },
      },
    ]);
  });

  it('a CEL type error', () => {
    const results = failing(resourceList(FLEET, pvs("- repositorySelector: {}\n  template:\n    downstream:\n      packageExpr: \"target.name + 1\"")));
    expect(results.map((r) => r.message)).toEqual([expect.stringMatching(/^PackageVariantSet fleet: spec\.targets\[0\]\.template\.downstream\.packageExpr: no such overload: string \+ int/)]);
  });

  it('a field other than name, namespace, labels or annotations', () => {
    const results = failing(resourceList(FLEET, pvs('- repositorySelector: {}\n  template:\n    injectors:\n    - nameExpr: "target.spec.git.repo"')));
    expect(results.map((r) => r.message)).toEqual([expect.stringMatching(/^PackageVariantSet fleet: spec\.targets\[0\]\.template\.injectors\[0\]\.nameExpr: No such key: spec\n/)]);
  });

  it('an expression returning a non-string where a string is needed: found when compiling', () => {
    const results = failing(resourceList(FLEET, pvs('- repositorySelector: {}\n  template:\n    annotationExprs:\n    - key: count\n      valueExpr: "size(target.labels)"')));
    expect(results).toEqual([
      expect.objectContaining({
        message: 'PackageVariantSet fleet: spec.targets[0].template.annotationExprs[0].valueExpr: the expression returns int, but a string is needed\n\n>    1 | size(target.labels)\n         ^',
        field: { path: 'spec.targets[0].template.annotationExprs[0].valueExpr' },
      }),
    ]);
  });

  it('... and at run time, naming the target', () => {
    const fleet = [repo('cluster-01', '{replicas: "3"}'), repo('cluster-02', '{replicas: 3}')];
    const results = failing(resourceList(fleet, pvs("- repositorySelector: {}\n  template:\n    labelExprs:\n    - key: replicas\n      valueExpr: \"target.labels['replicas']\"")));
    expect(results.map((r) => r.message)).toEqual([
      "PackageVariantSet fleet: spec.targets[0].template.labelExprs[0].valueExpr failed for Repository cluster-02 (selected by spec.targets[0].repositorySelector): the expression returned the int 3, but a string is needed\n\n>    1 | target.labels['replicas']\n         ^",
    ]);
  });

  it('a downstream repository that is not among the objects', () => {
    const results = failing(resourceList(FLEET, pvs("- repositories:\n  - name: cluster-01\n  template:\n    downstream:\n      repoExpr: \"repoDefault + '-eu'\"")));
    expect(results).toEqual([
      expect.objectContaining({
        message:
          'PackageVariantSet fleet: downstream repository "cluster-01-eu" of spec.targets[0].repositories[0] (repository cluster-01, package base) is not among the objects: no config.porch.kpt.dev/v1alpha1 Repository of that name in namespace default',
        field: { path: 'spec.targets[0].template.downstream.repoExpr' },
        resourceRef: REF,
      }),
    ]);
  });

  it('a Repository in another namespace is not among the objects', () => {
    const results = failing(resourceList([repo('cluster-09', '{}', 'elsewhere')], pvs('- repositories:\n  - name: cluster-09')));
    expect(results.map((r) => r.field)).toEqual([{ path: 'spec.targets[0].repositories[0].name' }]);
  });

  it('a selector that is not a valid label selector', () => {
    const results = failing(
      resourceList(FLEET, pvs('- repositorySelector:\n    matchLabels: {"bad key": prod}\n    matchExpressions:\n    - {key: env, operator: In, values: []}')),
    );
    expect(results).toEqual([
      expect.objectContaining({
        message: expect.stringContaining('PackageVariantSet fleet: spec.targets[0].repositorySelector.matchLabels.bad key: invalid label key "bad key"'),
        field: { path: 'spec.targets[0].repositorySelector.matchLabels.bad key' },
      }),
      expect.objectContaining({
        message: 'PackageVariantSet fleet: spec.targets[0].repositorySelector.matchExpressions[0].values: values must be specified when operator is "In" or "NotIn"',
        field: { path: 'spec.targets[0].repositorySelector.matchExpressions[0].values' },
      }),
    ]);
  });

  it('every problem of the functionConfig is reported together, before any target is rendered', () => {
    const results = failing(resourceList(FLEET, pvs("- repositories: []\n  template:\n    downstream:\n      packageExpr: \"1\"\n- objectSelector: {kind: Team}", 'repo: catalog')));
    expect(results.map((r) => (r.field as { path: string }).path)).toEqual([
      'spec.upstream.package',
      'spec.upstream',
      'spec.targets[0].repositories',
      'spec.targets[1].objectSelector.apiVersion',
      'spec.targets[0].template.downstream.packageExpr',
    ]);
  });

  it('an expression that uses upstream when no upstream PackageRevision was supplied', () => {
    const results = failing(resourceList(FLEET, pvs('- repositorySelector: {}\n  template:\n    labelExprs:\n    - key: v\n      valueExpr: "upstream.name"')));
    expect(results.map((r) => r.message)).toEqual([
      'PackageVariantSet fleet: spec.targets[0].template.labelExprs[0].valueExpr: the expression uses `upstream`, but the upstream PackageRevision (repository catalog, package base, revision 1) is not among the objects',
    ]);
  });

  it('a generated name that Kubernetes would refuse (Porch does not sanitise names)', () => {
    const results = failing(resourceList([repo('Cluster-01')], pvs('- repositories:\n  - name: Cluster-01')));
    expect(results.map((r) => r.message)).toEqual([
      `PackageVariantSet fleet: the PackageVariant for downstream repository Cluster-01, package base would be named "fleet-Cluster-01-base", which is not a valid Kubernetes object name (lower-case letters, digits, '-' and '.' only); it comes from spec.targets[0].repositories[0] (repository Cluster-01, package base)`,
    ]);
  });

  // Deviation, pinned: Porch lets the last of two targets with the same downstream win silently.
  it('two targets that render the same PackageVariant differently', () => {
    const results = failing(resourceList(FLEET, pvs('- repositories:\n  - name: cluster-01\n- repositories:\n  - name: cluster-01\n  template:\n    labels: {tier: gold}')));
    expect(results.map((r) => r.message)).toEqual([
      'PackageVariantSet fleet: spec.targets[0].repositories[0] (repository cluster-01, package base) and spec.targets[1].repositories[0] (repository cluster-01, package base) both render PackageVariant fleet-cluster-01-base (downstream repository cluster-01, package base), with different specs',
    ]);
  });

  it('a PackageVariant of the same name that the set does not own', () => {
    const mine = 'apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: fleet-cluster-01-base\nspec: {}';
    const results = failing(resourceList([...FLEET, mine], pvs('- repositories:\n  - name: cluster-01')));
    expect(results.map((r) => r.message)).toEqual([
      'PackageVariantSet fleet: PackageVariant fleet-cluster-01-base is already in the package and is not owned by this set (no label config.porch.kpt.dev/packagevariantset: fleet)',
    ]);
  });

  it('at most 20 render errors are listed, then how many more there were', () => {
    const results = failing(resourceList([], pvs(`- repositories:\n${Array.from({ length: 25 }, (_, i) => `  - name: missing-${i}`).join('\n')}`)));
    expect(results).toHaveLength(21);
    expect(results[20]).toEqual({ message: 'PackageVariantSet fleet: 5 more errors not shown', severity: 'error', resourceRef: REF });
  });
});

describe('fan-out', () => {
  it('reports what it did in one info result with the counts as tags', () => {
    const { results } = succeeding(resourceList(FLEET, pvs('- repositorySelector: {matchLabels: {env: prod}}')));
    expect(results).toEqual([
      {
        message: 'PackageVariantSet fleet: 2 PackageVariants: 2 created, 0 changed, 0 removed, 0 unchanged',
        severity: 'info',
        resourceRef: REF,
        tags: { created: '2', changed: '0', removed: '0', unchanged: '0' },
      },
    ]);
  });

  it('a selector that matches nothing removes what the set made before', () => {
    const first = succeeding(resourceList(FLEET, pvs('- repositorySelector: {matchLabels: {env: prod}}')));
    const again = succeeding(first.output.replace('matchLabels: {env: prod}', 'matchLabels: {env: qa}').replace(/\nresults:\n[\s\S]*$/, '\n'));
    expect(again.variants).toEqual([]);
    expect(again.results[0]!.message).toBe('PackageVariantSet fleet: 0 PackageVariants: 0 created, 0 changed, 2 removed, 0 unchanged');
  });

  it("leaves PackageVariants of the same set name in another namespace alone", () => {
    const elsewhere =
      'apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: fleet-cluster-09-base\n  namespace: other\n  labels:\n    config.porch.kpt.dev/packagevariantset: fleet\nspec: {downstream: {repo: cluster-09, package: base}}';
    const { variants, results } = succeeding(resourceList([...FLEET, elsewhere], pvs('- repositories:\n  - name: cluster-01')));
    expect(variants.map((v) => v.metadata.name)).toEqual(['fleet-cluster-09-base', 'fleet-cluster-01-base']);
    expect(results[0]!.tags).toMatchObject({ created: '1', removed: '0' });
  });

  it('of two earlier PackageVariants for the same downstream, keeps the first and removes the other', () => {
    const earlier = (name: string) =>
      `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: ${name}\n  labels:\n    config.porch.kpt.dev/packagevariantset: fleet\nspec:\n  upstream: {repo: catalog, package: base, revision: 1}\n  downstream: {repo: cluster-01, package: base}`;
    const { variants, results } = succeeding(resourceList([...FLEET, earlier('fleet-cluster-01-base'), earlier('renamed-by-hand')], pvs('- repositories:\n  - name: cluster-01')));
    expect(variants.map((v) => v.metadata.name)).toEqual(['fleet-cluster-01-base']);
    expect(results[0]!.tags).toEqual({ created: '0', changed: '0', removed: '1', unchanged: '1' });
  });

  it('an expression may leave out upstream when no PackageRevision is supplied', () => {
    const { variants } = succeeding(resourceList(FLEET, pvs("- repositorySelector: {}\n  template:\n    labelExprs:\n    - key: region\n      valueExpr: \"repository.labels['region']\"")));
    expect(variants).toHaveLength(2);
  });

  it('writes each PackageVariant to package-variants/<name>.yaml in the namespace of the set', () => {
    const set = pvs('- repositories:\n  - name: cluster-01').replace('name: fleet', 'name: fleet\n  namespace: ops');
    const { output } = succeeding(resourceList([repo('cluster-01', '{}', 'ops')], set));
    const variant = (items(output) as Record<string, unknown>[])[1];
    expect(variant).toEqual({
      apiVersion: 'config.porch.kpt.dev/v1alpha1',
      kind: 'PackageVariant',
      metadata: {
        name: 'fleet-cluster-01-base',
        namespace: 'ops',
        labels: { 'config.porch.kpt.dev/packagevariantset': 'fleet' },
        annotations: {
          'internal.config.kubernetes.io/path': 'package-variants/fleet-cluster-01-base.yaml',
          'config.kubernetes.io/path': 'package-variants/fleet-cluster-01-base.yaml',
        },
      },
      spec: { upstream: { repo: 'catalog', package: 'base', revision: 1 }, downstream: { repo: 'cluster-01', package: 'base' } },
    });
  });

  it('a re-run over its own output changes nothing, byte for byte', () => {
    const first = succeeding(resourceList(FLEET, pvs("- repositorySelector: {}\n  template:\n    labelExprs:\n    - key: region\n      valueExpr: \"repository.labels['region']\"")));
    const input = first.output.replace(/\nresults:\n[\s\S]*$/, '\n');
    const second = succeeding(input);
    expect(second.output.replace(/\nresults:\n[\s\S]*$/, '\n')).toBe(input);
    expect(second.results[0]!.tags).toEqual({ created: '0', changed: '0', removed: '0', unchanged: '2' });
  });
});

describe('where errors point', () => {
  it("at the set's file when kpt sent the set as an item too (a Kptfile configPath)", () => {
    const set = pvs('- repositories:\n  - name: cluster-01\n  repositorySelector: {}').replace(
      'name: fleet\n',
      "name: fleet\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n    internal.config.kubernetes.io/path: 'fleet-set.yaml'\n",
    );
    const withoutPath = set.replace(/\n {4}internal\.config\.kubernetes\.io\/path: 'fleet-set\.yaml'/, '');
    const results = failing(resourceList([...FLEET, set], withoutPath));
    expect(results[0]).toMatchObject({ field: { path: 'spec.targets[0]' }, file: { path: 'fleet-set.yaml' }, resourceRef: REF });
  });
});
