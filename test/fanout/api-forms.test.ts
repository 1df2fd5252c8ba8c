/**
 * The design document's forms of a PackageVariantSet beside Porch's (README, "API forms"): each is
 * read as its Porch form, and messages name the field as the user wrote it.
 */
import { parse } from 'yaml';
import { resourceList } from '../helpers';
import { failing, FLEET, pvs, REF, repo, succeeding } from './fanout-helpers';

type Spec = { upstream: Record<string, unknown>; downstream: { repo: string; package: string }; labels?: Record<string, string>; injectors?: unknown[] };

const specs = (output: string): Spec[] =>
  (parse(output) as { items: { kind: string; spec: Spec }[] }).items.filter((item) => item.kind === 'PackageVariant').map((item) => item.spec);

const pairs = (output: string) => specs(output).map((spec) => `${spec.downstream.repo}/${spec.downstream.package}`);

describe('packageNames under a selector', () => {
  it('repositorySelector: one PackageVariant per selected Repository and package name', () => {
    const { output } = succeeding(resourceList(FLEET, pvs('- repositorySelector:\n    matchLabels: {env: prod}\n    packageNames: [ns-a, ns-b]')));
    expect(pairs(output)).toEqual(['cluster-01/ns-a', 'cluster-01/ns-b', 'cluster-02/ns-a', 'cluster-02/ns-b']);
  });

  it('objectSelector: likewise, the repository named after the object', () => {
    const team = (name: string) => `apiVersion: example.com/v1\nkind: Team\nmetadata:\n  name: ${name}\n  labels: {org: hr}`;
    const set = pvs('- objectSelector:\n    apiVersion: example.com/v1\n    kind: Team\n    matchLabels: {org: hr}\n    packageNames: [app]');
    const { output } = succeeding(resourceList([team('cluster-02'), team('cluster-01'), ...FLEET], set));
    expect(pairs(output)).toEqual(['cluster-01/app', 'cluster-02/app']);
  });

  it('an empty package name is an error at its place in the list', () => {
    const results = failing(resourceList(FLEET, pvs('- repositorySelector:\n    packageNames: [ns-a, ""]\n- objectSelector:\n    apiVersion: v1\n    kind: Namespace\n    packageNames: [""]')));
    expect(results.map((r) => [r.message, r.field])).toEqual([
      ['PackageVariantSet fleet: spec.targets[0].repositorySelector.packageNames[1] cannot be empty', { path: 'spec.targets[0].repositorySelector.packageNames[1]' }],
      ['PackageVariantSet fleet: spec.targets[1].objectSelector.packageNames[0] cannot be empty', { path: 'spec.targets[1].objectSelector.packageNames[0]' }],
    ]);
  });
});

describe("the design's template forms", () => {
  const template = (body: string) => pvs(`- repositorySelector: {matchLabels: {env: prod}}\n  template:\n${body.replace(/^/gm, '    ')}`);

  it('labelExprs written as one MapExpr and injectorExprs render as the list forms do', () => {
    const design = succeeding(resourceList(FLEET, template("labelExprs:\n  key: region\n  valueExpr: \"repository.labels['region']\"\ninjectorExprs:\n- nameExpr: \"repoDefault + '-endpoints'\"")));
    const porch = succeeding(resourceList(FLEET, template("labelExprs:\n- key: region\n  valueExpr: \"repository.labels['region']\"\ninjectors:\n- nameExpr: \"repoDefault + '-endpoints'\"")));
    expect(specs(design.output)).toEqual(specs(porch.output));
    expect(specs(design.output).map((spec) => [spec.labels, spec.injectors])).toEqual([
      [{ region: 'eu' }, [{ name: 'cluster-01-endpoints' }]],
      [{ region: 'us' }, [{ name: 'cluster-02-endpoints' }]],
    ]);
  });

  it('one injector written alone is a one-injector list', () => {
    const { output } = succeeding(resourceList(FLEET, template('injectors:\n  kind: ConfigMap\n  nameExpr: "repoDefault"')));
    expect(specs(output).map((spec) => spec.injectors)).toEqual([[{ kind: 'ConfigMap', name: 'cluster-01' }], [{ kind: 'ConfigMap', name: 'cluster-02' }]]);
  });

  it('expression errors name the field as written: no index for an item written alone', () => {
    const results = failing(resourceList(FLEET, template('labelExprs:\n  key: region\n  valueExpr: "repository.labels["\ninjectorExprs:\n- nameExpr: "target.spec"')));
    expect(results.map((r) => r.field)).toEqual([
      { path: 'spec.targets[0].template.labelExprs.valueExpr' },
      { path: 'spec.targets[0].template.injectorExprs[0].nameExpr' },
    ]);
    expect(String(results[0]!.message)).toMatch(/^PackageVariantSet fleet: spec\.targets\[0\]\.template\.labelExprs\.valueExpr: /);
  });

  it("Porch's either-or rules apply to the design's forms, at their paths", () => {
    const results = failing(resourceList(FLEET, template('annotationExprs:\n  key: a\n  keyExpr: repoDefault\ninjectorExprs:\n  name: x\n  nameExpr: repoDefault')));
    expect(results.map((r) => r.message)).toEqual([
      'PackageVariantSet fleet: spec.targets[0].template.annotationExprs may specify only one of `key` and `keyExpr`',
      'PackageVariantSet fleet: spec.targets[0].template.injectorExprs may specify only one of `name` and `nameExpr`',
    ]);
  });

  it('injectors and injectorExprs together are an error, not a merge', () => {
    const results = failing(resourceList(FLEET, template('injectors:\n- name: a\ninjectorExprs:\n- nameExpr: repoDefault')));
    expect(results).toEqual([
      expect.objectContaining({
        message: "PackageVariantSet fleet: spec.targets[0].template may specify only one of `injectors` and `injectorExprs` (the design's name for `injectors`)",
        field: { path: 'spec.targets[0].template.injectorExprs' },
        resourceRef: REF,
      }),
    ]);
  });
});

describe('the upstream revision', () => {
  const upstreamRevision = (name: string, spec: string) =>
    `apiVersion: porch.kpt.dev/v1alpha1\nkind: PackageRevision\nmetadata:\n  name: ${name}\n  labels: {channel: ${name}}\nspec:\n  repository: catalog\n  packageName: base\n  ${spec}`;
  const REVISIONS = [upstreamRevision('published', 'revision: 3\n  workspaceName: ws-3'), upstreamRevision('tagged', 'revision: v1\n  workspaceName: ws-v1'), upstreamRevision('draft', 'workspaceName: v2')];
  const channelOf = (revision: string) => {
    const set = pvs("- repositories:\n  - name: cluster-01\n  template:\n    labelExprs:\n    - key: channel\n      valueExpr: \"upstream.labels['channel']\"", `repo: catalog\n    package: base\n    revision: ${revision}`);
    const { output } = succeeding(resourceList([...FLEET, ...REVISIONS], set));
    const [spec] = specs(output);
    return [spec!.labels!.channel, spec!.upstream.revision];
  };

  it('a name picks the PackageRevision of that revision or workspace name for `upstream`, and is copied as written', () => {
    expect(channelOf('v1')).toEqual(['tagged', 'v1']);
    expect(channelOf('v2')).toEqual(['draft', 'v2']);
  });

  it('a number picks the PackageRevision of that revision number', () => {
    expect(channelOf('3')).toEqual(['published', 3]);
  });

  it('a name that matches nothing is reported as such', () => {
    const set = pvs('- repositories:\n  - name: cluster-01\n  template:\n    labelExprs:\n    - key: v\n      valueExpr: "upstream.name"', 'repo: catalog\n    package: base\n    revision: v9');
    expect(failing(resourceList([repo('cluster-01'), ...REVISIONS], set)).map((r) => r.message)).toEqual([
      'PackageVariantSet fleet: spec.targets[0].template.labelExprs[0].valueExpr: the expression uses `upstream`, but the upstream PackageRevision (repository catalog, package base, revision or workspace v9) is not among the objects',
    ]);
  });
});
