import { resourceList, runFunction } from '../helpers';
import { merge, merge1, run, tagged } from './merge-helpers';

const cm = (name: string, value: string, extra = '') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${extra}data:\n  k: ${value}\n`;
const names = (items: Record<string, any>[]) => items.map((i) => i.metadata.name);
/** A document without metadata, as kpt sends it: only its path (and tag) under metadata. */
const bare = (body: string, source: 'original' | 'updated' | undefined, path: string) =>
  `${body}metadata:\n  annotations:\n    internal.config.kubernetes.io/path: ${path}\n${source ? `    config.kubernetes.io/merge-source: ${source}\n` : ''}`;
const options = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: o\ndata:\n${data}`;

describe('the merge step', () => {
  it('does nothing without merge sources', () => {
    const input = resourceList([cm('a', 'v')]);
    expect(runFunction(input)).toMatchObject({ exitCode: 0, output: input });
  });

  it('writes a resource upstream did not change byte for byte, comments and spelling included', () => {
    const local = cm('a', '0755 # octal', 'labels: {x: "y"}\n');
    const { output } = merge({ origin: [cm('a', '"1"')], upstream: [cm('a', '"1"')], local: [local] });
    expect(output).toContain('data:\n    k: 0755 # octal');
    expect(output).toContain('labels: {x: "y"}');
  });

  it('adds, deletes and keeps resources as documented, and drops the tagged versions', () => {
    const { items, results } = merge({
      origin: [cm('deleted', 'v'), cm('changed-del', 'v'), cm('local-del', 'v')],
      upstream: [cm('local-del', 'v2'), cm('new', 'v')],
      local: [cm('deleted', 'v'), cm('changed-del', 'mine'), cm('local-only', 'v')],
    });
    expect(names(items)).toEqual(['changed-del', 'local-only', 'new']);
    expect(items.every((i) => !i.metadata.annotations?.['config.kubernetes.io/merge-source'])).toBe(true);
    expect(results).toContainEqual(expect.objectContaining({ severity: 'warning', resourceRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'changed-del' } }));
    expect(results.at(-1)!.message).toMatch(/0 merged, 1 added, 1 deleted, 1 kept although deleted upstream/);
  });

  it('finds a locally renamed resource by its kpt-merge comment and by the upstream-identifier annotation', () => {
    const renamedByComment = 'apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /a\n  name: dev-a\n  namespace: dev\ndata:\n  k: v\n';
    const renamedByAnnotation = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dev-b\n  annotations:\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|b'\ndata:\n  k: v\n";
    const { items } = merge({ origin: [cm('a', 'v'), cm('b', 'v')], upstream: [cm('a', 'v2'), cm('b', 'v2')], local: [renamedByComment, renamedByAnnotation] });
    expect(items.map((i) => [i.metadata.name, i.data.k])).toEqual([['dev-a', 'v2'], ['dev-b', 'v2']]);
  });

  it('does not count what kpt pkg get writes on fetch as a local change', () => {
    const fetched = "apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /b\n  name: b\n  annotations:\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|b'\n    cnrm.cloud.google.com/blueprint: 'kpt-fn'\ndata:\n  k: v\n";
    const { items, results } = merge({ origin: [cm('b', 'v')], upstream: [], local: [fetched] });
    expect(items).toEqual([]);
    expect(results.filter((r) => r.severity === 'warning')).toEqual([]);
  });

  it('follows an upstream file move unless local moved the resource', () => {
    const at = (yaml: string, source: 'original' | 'updated' | undefined, path: string) => tagged(yaml, source, path);
    const input = resourceList([at(cm('a', 'v'), undefined, 'a.yaml'), at(cm('a', 'v'), 'original', 'a.yaml'), at(cm('a', 'v'), 'updated', 'moved/a.yaml')]);
    const { output } = runFunction(input);
    expect(output).toContain('internal.config.kubernetes.io/path: moved/a.yaml');
  });
});

describe('documents kpt reads as resources though they name no apiVersion, kind or name (issue 19)', () => {
  const amf = (version: string, extra = '') => `kind: ConfigMap\nmetadata:${extra}\n  name: amf-configmap\n  labels:\n    app: free5gc\ndata:\n  version: "${version}"\n`;
  const fetched = " # kpt-merge: /amf-configmap\n  annotations:\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|amf-configmap'";
  const at = (yaml: string, source: 'original' | 'updated' | undefined, path: string) => tagged(yaml, source, path);

  it('takes upstream\'s change to a ConfigMap without apiVersion, which kpt pkg get marked as fetched', () => {
    const { exitCode, items } = run(resourceList([at(amf('1.0.3', fetched), undefined, 'amf.yaml'), at(amf('1.0.3'), 'original', 'amf.yaml'), at(amf('1.0.4'), 'updated', 'amf.yaml')]));
    expect(exitCode).toBe(0);
    expect(items.map((i) => i.data.version)).toEqual(['1.0.4']);
  });

  it('deletes it where upstream deleted it', () => {
    const { exitCode, items } = run(resourceList([at(amf('1.0.3', fetched), undefined, 'amf.yaml'), at(amf('1.0.3'), 'original', 'amf.yaml')]));
    expect(exitCode).toBe(0);
    expect(items).toEqual([]);
  });

  it('merges a kustomization.yaml without kind field by field, known by its path', () => {
    const kustomization = (prefix: string, extra = '') => `resources:\n- a.yaml\nnamePrefix: ${prefix}\n${extra}`;
    const { exitCode, items } = run(
      resourceList([
        bare(kustomization('dev-', 'nameSuffix: -eu\n'), undefined, 'kustomization.yaml'),
        bare(kustomization('dev-'), 'original', 'kustomization.yaml'),
        bare(kustomization('prod-'), 'updated', 'kustomization.yaml'),
        bare('other: file\n', undefined, 'other.yaml'),
      ]),
    );
    expect(exitCode).toBe(0);
    expect(items.map(({ metadata, ...rest }) => rest)).toEqual([{ resources: ['a.yaml'], namePrefix: 'prod-', nameSuffix: '-eu' }, { other: 'file' }]);
  });
});

describe('bad merge input', () => {
  it('two local resources with one identity', () => {
    const { exitCode, results } = merge({ origin: [cm('a', 'v')], upstream: [cm('a', 'v2')], local: [cm('a', 'x'), cm('a', 'y')] });
    expect(exitCode).toBe(1);
    expect(results[0]).toMatchObject({ severity: 'error', resourceRef: { kind: 'ConfigMap', name: 'a' } });
    expect(results[0]!.message).toMatch(/two local resources have the same identity: ConfigMap a \(r\.yaml\) and ConfigMap a \(r\.yaml\)/);
  });

  it('a merge-source value other than original, updated or dest', () => {
    const { exitCode, results } = merge({ local: [cm('a', 'v').replace('metadata:\n', 'metadata:\n  annotations:\n    config.kubernetes.io/merge-source: upstream\n')] });
    expect(exitCode).toBe(1);
    expect(results[0]).toMatchObject({ severity: 'error', resourceRef: { name: 'a' }, field: { path: 'metadata.annotations["config.kubernetes.io/merge-source"]' } });
    expect(results[0]!.message).toMatch(/must be original, updated or dest, not "upstream"/);
  });

  it('two documents without kind or name in one file cannot be told apart, as in kpt', () => {
    const plain = (value: string, source: 'original' | 'updated' | undefined) => bare(`plain: ${value}\n`, source, 'values.yaml');
    const { exitCode, messages } = run(resourceList([plain('a', undefined), plain('b', undefined), plain('a', 'original'), plain('a', 'updated')]));
    expect(exitCode).toBe(1);
    expect(messages[0]).toMatch(/two local resources have the same identity: the document in values\.yaml and the document in values\.yaml/);
  });

  it('an unknown strategy, in the options or recorded in the Kptfile', () => {
    const fromOptions = merge1(cm('a', 'v'), cm('a', 'v2'), cm('a', 'v'), options('  strategy: rebase\n'));
    expect(fromOptions.exitCode).toBe(1);
    expect(fromOptions.messages.join()).toMatch(/data\.strategy: must be one of "resource-merge", "fast-forward", "force-delete-replace"/);
    const kptfile = 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\nupstream:\n  updateStrategy: rebase\n';
    const fromKptfile = runFunction(resourceList([tagged(kptfile, undefined, 'Kptfile'), tagged(cm('a', 'v'), 'original'), tagged(cm('a', 'v2'), 'updated')]));
    expect(fromKptfile.exitCode).toBe(1);
    expect(fromKptfile.results[0]).toMatchObject({ field: { path: 'upstream.updateStrategy' }, resourceRef: { kind: 'Kptfile', name: 'p' } });
  });
});

describe('strategies and the Kptfile', () => {
  const kptfile = (strategy: string, pipeline: string, extra = '') =>
    `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: local-name # the package's own name\n${extra}upstream:\n  type: git\n  updateStrategy: ${strategy}\n  git:\n    ref: v1\npipeline:\n  mutators:\n${pipeline}`;

  function withKptfile(kptfiles: { origin: string; upstream: string; local: string }, resources: { origin: string[]; upstream: string[]; local: string[] }, config?: string) {
    const items = [
      tagged(kptfiles.local, undefined, 'Kptfile'),
      ...resources.local.map((r) => tagged(r, undefined)),
      tagged(kptfiles.origin, 'original', 'Kptfile'),
      ...resources.origin.map((r) => tagged(r, 'original')),
      tagged(kptfiles.upstream, 'updated', 'Kptfile'),
      ...resources.upstream.map((r) => tagged(r, 'updated')),
    ];
    return run(resourceList(items, config));
  }

  it('merges the Kptfile pipeline by image without tag and keeps local-only fields and comments', () => {
    const origin = kptfile('resource-merge', '    - image: gcr.io/kpt-fn/set-labels:v0.1\n      configMap: {app: foo}\n').replace('local-name # the package\'s own name', 'upstream-name');
    const upstream = kptfile('resource-merge', '    - image: gcr.io/kpt-fn/set-labels:v0.2\n      configMap: {app: foo}\n').replace('local-name # the package\'s own name', 'upstream-name').replace('ref: v1', 'ref: v2');
    const local = kptfile('resource-merge', '    # set labels for the team\n    - image: gcr.io/kpt-fn/set-labels:v0.1\n      configMap: {app: foo, team: a}\n');
    const { output, exitCode } = withKptfile({ origin, upstream, local }, { origin: [cm('a', 'v')], upstream: [cm('a', 'v')], local: [cm('a', 'v')] });
    expect(exitCode).toBe(0);
    expect(output).toContain("name: local-name # the package's own name");
    expect(output).toContain('ref: v1');
    expect(output).toContain('# set labels for the team\n    - image: gcr.io/kpt-fn/set-labels:v0.2\n      configMap: {app: foo, team: a}');
  });

  it('records the new upstream ref and commit the functionConfig gives, comments kept', () => {
    const k = kptfile('resource-merge', '    - image: a:1\n').replace('    ref: v1\n', '    ref: v1 # the fetched version\nupstreamLock:\n  type: git\n  git:\n    ref: v1\n    commit: aaa\n');
    const { exitCode, output, results } = withKptfile(
      { origin: k, upstream: k, local: k },
      { origin: [cm('a', 'v')], upstream: [cm('a', 'v2')], local: [cm('a', 'v')] },
      options('  upstreamRef: v2\n  upstreamCommit: bbb\n'),
    );
    expect(exitCode).toBe(0);
    expect(output).toContain('    ref: v2 # the fetched version\n');
    expect(output).toContain('  upstreamLock:\n    type: git\n    git:\n      ref: v2\n      commit: bbb\n');
    expect(results.map((r) => r.message)).toContain('recorded the new upstream ref v2, commit bbb in the Kptfile');
  });

  it('uses the strategy recorded in the Kptfile', () => {
    const k = kptfile('fast-forward', '    - image: a:1\n');
    const { exitCode, messages } = withKptfile({ origin: k, upstream: k, local: k }, { origin: [cm('a', 'v')], upstream: [cm('a', 'v2')], local: [cm('a', 'mine')] });
    expect(exitCode).toBe(1);
    expect(messages.join('\n')).toMatch(/fast-forward: the local package has been modified/);
  });

  it('fast-forward over an unchanged package takes upstream, and the Kptfile takes upstream pipeline changes', () => {
    const k1 = kptfile('fast-forward', '    - image: a:1\n');
    const k2 = kptfile('fast-forward', '    - image: a:2\n').replace('ref: v1', 'ref: v2');
    const { exitCode, output } = withKptfile({ origin: k1, upstream: k2, local: k1 }, { origin: [cm('a', 'v')], upstream: [cm('a', 'v2'), cm('b', 'v')], local: [cm('a', 'v')] });
    expect(exitCode).toBe(0);
    expect(output).toContain('image: a:2');
    expect(output).toContain('ref: v1');
    expect(output).toMatch(/name: b/);
  });

  it('force-delete-replace drops local changes and local-only resources', () => {
    const k = kptfile('force-delete-replace', '    - image: a:1\n');
    const { items } = withKptfile({ origin: k, upstream: k, local: k }, { origin: [cm('a', 'v')], upstream: [cm('a', 'v2')], local: [cm('a', 'mine'), cm('extra', 'v')] });
    expect(items.filter((i) => i.kind === 'ConfigMap').map((i) => [i.metadata.name, i.data.k])).toEqual([['a', 'v2']]);
  });
});

describe('issue 27, in the ResourceList a caller sends', () => {
  /** A resource at a place of a file: path, index and merge-source annotations. */
  const at = (yaml: string, source: 'original' | 'updated' | undefined, path: string, index: number) =>
    tagged(yaml, source, path).replace('    internal.config.kubernetes.io/path', `    internal.config.kubernetes.io/index: '${index}'\n    internal.config.kubernetes.io/path`);
  const setters = (license: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: setters\ndata:\n  other: x\n  license: ${license}`;

  it.each([
    ['read item by item', ''],
    ['read whole (an anchor the item reader leaves to the parser)', "  x: &x 1\n"],
  ])('a `|` literal that ends the list without a line break has none (YAML 1.2): local left it as origin had it, %s', (_how, anchor) => {
    const origin = at(setters('LICENSE\n').replace('  other: x\n', `  other: x\n${anchor}`), 'original', 'setters.yaml', 0);
    const upstream = at(setters('NEWLICENSE\n'), 'updated', 'setters.yaml', 0);
    const local = at(setters('|\n    LICENSE'), undefined, 'setters.yaml', 0);
    const { items, results } = run(resourceList([origin, upstream, local]).trimEnd());
    expect(results.filter((r) => r.severity !== 'info')).toEqual([]);
    expect(items[0].data.license).toBe('NEWLICENSE');
  });

  it('a resource upstream adds above the first of a file takes the top index; the others follow', () => {
    const cm1 = (name: string) => cm(name, 'v');
    const { items } = run(resourceList([at(cm1('one'), undefined, 'a.yaml', 0), at(cm1('one'), 'original', 'a.yaml', 0), at(cm1('top'), 'updated', 'a.yaml', 0), at(cm1('one'), 'updated', 'a.yaml', 1)]));
    expect(items.map((i) => [i.metadata.name, i.metadata.annotations['internal.config.kubernetes.io/index']])).toEqual([
      ['one', '1'],
      ['top', '0'],
    ]);
  });

  it('after a directory rename, a resource declared in two files moves with each file, keeping its kpt-merge comment', () => {
    const crd = 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n';
    const fetched = crd.replace('metadata:\n', 'metadata: # kpt-merge: /widgets.example.com\n');
    const items = [
      ...['core.yaml', 'crds.yaml'].map((file) => at(fetched, undefined, `manifests/${file}`, 0)),
      ...['core.yaml', 'crds.yaml'].map((file) => at(crd, 'original', `manifests/${file}`, 0)),
      ...['core.yaml', 'crds.yaml'].map((file) => at(crd, 'updated', `deploy/${file}`, 0)),
    ];
    const { output, messages } = run(resourceList(items));
    expect(messages.at(-1)).toMatch(/2 merged, 0 added, 0 deleted/);
    expect(output.match(/metadata: # kpt-merge: \/widgets.example.com\n/g)).toHaveLength(2);
    expect(output.match(/internal.config.kubernetes.io\/path: deploy\/c\w+\.yaml/g)).toHaveLength(2);
  });

  it('force-delete-replace keeps the identifier annotation kpt pkg get wrote on a resource upstream still has', () => {
    const fetched = "apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /b\n  name: b\n  annotations:\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|b'\ndata:\n  k: mine\n";
    const { items } = merge({ origin: [cm('b', 'v')], upstream: [cm('b', 'v2')], local: [fetched] }, options('  strategy: force-delete-replace\n'));
    expect(items[0].data.k).toBe('v2');
    expect(items[0].metadata.annotations['internal.kpt.dev/upstream-identifier']).toBe('|ConfigMap|default|b');
  });
});
