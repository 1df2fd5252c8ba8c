import { parse } from 'yaml';
import { readFunctionConfig, type FunctionConfig } from '../../src/config/function-config';
import { parseResourceList } from '../../src/krm/resource-list';
import { FunctionError, type Result } from '../../src/krm/results';
import { resourceList, runFunction } from '../helpers';

const configMap = (name: string, extra = '') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${extra}`;
const ITEMS = [configMap('app-config', 'data:\n  color: blue'), configMap('other', 'data:\n  size: "3"')];

const VALID_PV = `apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: my-pv
  namespace: default
spec:
  upstream:
    repo: blueprints
    package: basens
    revision: 1
  downstream:
    repo: deployments
    package: ns-01
  labels:
    team: hr
  packageContext:
    data:
      region: eu-west
    removeKeys:
    - old
  injectors:
  - kind: ConfigMap
    name: injected
`;

const VALID_PVS = `apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata:
  name: my-pvs
spec:
  upstream:
    repo: blueprints
    package: basens
    revision: 1
  targets:
  - repositories:
    - name: cluster-01
      packageNames:
      - ns-a
    template:
      downstream:
        packageExpr: "target.package + '-x'"
`;

const KPT_ANNOTATIONS = `  annotations:
    config.kubernetes.io/index: '0'
    config.kubernetes.io/path: 'fn-config.yaml'
    config.kubernetes.io/local-config: "true"
    internal.config.kubernetes.io/index: '0'
    internal.config.kubernetes.io/path: 'fn-config.yaml'
    internal.config.kubernetes.io/seqindent: 'compact'
    internal.config.kubernetes.io/id: '7'
    config.k8s.io/id: '7'
`;

/** The 1-based line of the only line of `text` containing `needle`. */
function lineContaining(text: string, needle: string): number {
  const lines = text.split('\n');
  const hits = lines.flatMap((line, i) => (line.includes(needle) ? [i + 1] : []));
  if (hits.length !== 1) throw new Error(`expected exactly one line containing ${JSON.stringify(needle)}, found ${hits.length}`);
  return hits[0]!;
}

function read(input: string): FunctionConfig {
  return readFunctionConfig(parseResourceList(input));
}

function readError(input: string): Result[] {
  let caught: unknown;
  try {
    read(input);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(FunctionError);
  return (caught as FunctionError).results;
}

/** Runs the function expecting failure: exit 1, items untouched, and the error results. */
function runFailing(input: string): Record<string, unknown>[] {
  const { exitCode, output, results } = runFunction(input);
  expect(exitCode).toBe(1);
  expect(output.startsWith(input)).toBe(true);
  expect((parse(output) as { items: unknown }).items).toEqual((parse(input) as { items: unknown }).items);
  const errors = results.filter((r) => r.severity === 'error');
  expect(errors.length).toBeGreaterThan(0);
  return errors;
}

/** Inserts `extra` (already indented) after the line of `text` that contains `after`. */
function insertAfter(text: string, after: string, extra: string): string {
  const lines = text.split('\n');
  const at = lines.findIndex((line) => line.includes(after));
  if (at < 0) throw new Error(`no line containing ${after}`);
  lines.splice(at + 1, 0, ...extra.trimEnd().split('\n'));
  return lines.join('\n');
}

describe('no functionConfig', () => {
  it('is kind none with the default options', () => {
    const input = resourceList(ITEMS);
    expect(read(input)).toEqual({ kind: 'none', options: { conflicts: 'upstream-wins' } });
    const { exitCode, output } = runFunction(input);
    expect(exitCode).toBe(0);
    expect(output).toBe(input);
  });

  it('a null functionConfig is kind none', () => {
    const input = `${resourceList(ITEMS)}functionConfig:\n`;
    expect(read(input).kind).toBe('none');
  });
});

describe("kpt's empty function-input ConfigMap", () => {
  it.each([
    ['with data: {}', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\ndata: {}'],
    ['without data', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input'],
    ['without apiVersion and kind', 'metadata: {name: function-input}\ndata: {}'],
    ['with kpt annotations', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\n${KPT_ANNOTATIONS}data: {}`],
  ])('%s is kind none', (_name, config) => {
    const input = resourceList(ITEMS, config);
    expect(read(input)).toEqual({ kind: 'none', options: { conflicts: 'upstream-wins' } });
    const { exitCode, output } = runFunction(input);
    expect(exitCode).toBe(0);
    expect(output).toBe(input);
  });
});

describe('options ConfigMap', () => {
  it('strategy: fast-forward gives options with conflicts upstream-wins by default', () => {
    const config = read(resourceList(ITEMS, configMap('opts', 'data:\n  strategy: fast-forward')));
    expect(config).toEqual({ kind: 'options', options: { strategy: 'fast-forward', conflicts: 'upstream-wins' } });
  });

  it('accepts conflicts: error and the package options', () => {
    const config = read(
      resourceList(ITEMS, configMap('opts', 'data:\n  strategy: resource-merge\n  conflicts: error\n  originDir: v1\n  upstreamDir: v2')),
    );
    expect(config).toEqual({
      kind: 'options',
      options: { strategy: 'resource-merge', conflicts: 'error', originDir: 'v1', upstreamDir: 'v2' },
    });
  });

  it('runs cleanly and leaves the items as they were', () => {
    const input = resourceList(ITEMS, configMap('opts', 'data:\n  strategy: force-delete-replace'));
    const { exitCode, output, results } = runFunction(input);
    expect(exitCode).toBe(0);
    expect(results).toEqual([]);
    expect(output).toBe(input);
  });

  it('an unknown data key is an error naming the field', () => {
    const input = resourceList(ITEMS, configMap('opts', 'data:\n  stratgy: fast-forward'));
    const errors = runFailing(input);
    expect(errors).toHaveLength(1);
    expect(String(errors[0]!.message)).toContain('unknown field "stratgy"');
    expect(errors[0]!.field).toEqual({ path: 'data.stratgy' });
  });

  it('an unknown strategy lists the allowed values', () => {
    const input = resourceList(ITEMS, configMap('opts', 'data:\n  strategy: rebase'));
    const errors = runFailing(input);
    const message = String(errors[0]!.message);
    expect(message).toContain('data.strategy');
    for (const allowed of ['resource-merge', 'fast-forward', 'force-delete-replace']) expect(message).toContain(`"${allowed}"`);
    expect(errors[0]!.field).toEqual({ path: 'data.strategy' });
  });

  it('an unknown conflicts policy lists the allowed values', () => {
    const errors = runFailing(resourceList(ITEMS, configMap('opts', 'data:\n  conflicts: downstream-wins')));
    expect(String(errors[0]!.message)).toMatch(/data\.conflicts: must be one of "upstream-wins", "error"/);
  });
});

describe('PackageVariant and PackageVariantSet', () => {
  it('a valid PackageVariant is kind package-variant', () => {
    const config = read(resourceList(ITEMS, VALID_PV));
    expect(config.kind).toBe('package-variant');
    if (config.kind !== 'package-variant') return;
    expect(config.options).toEqual({ conflicts: 'upstream-wins' });
    expect(config.objects).toEqual([]);
    expect(config.variant).toMatchObject({
      apiVersion: 'config.porch.kpt.dev/v1alpha1',
      kind: 'PackageVariant',
      metadata: { name: 'my-pv', namespace: 'default' },
      spec: { upstream: { repo: 'blueprints', package: 'basens', revision: 1 }, injectors: [{ kind: 'ConfigMap', name: 'injected' }] },
    });
  });

  it('a valid PackageVariantSet is kind package-variant-set', () => {
    const config = read(resourceList(ITEMS, VALID_PVS));
    expect(config.kind).toBe('package-variant-set');
    if (config.kind !== 'package-variant-set') return;
    expect(config.objects).toEqual([]);
    expect(config.variantSet).toMatchObject({ kind: 'PackageVariantSet', metadata: { name: 'my-pvs' } });
  });

  it("kpt's annotations on a PackageVariant do not make it invalid", () => {
    const annotated = insertAfter(VALID_PV, 'namespace: default', KPT_ANNOTATIONS);
    const config = read(resourceList(ITEMS, annotated));
    expect(config.kind).toBe('package-variant');
    if (config.kind !== 'package-variant') return;
    expect(config.variant.metadata.annotations).toMatchObject({ 'config.kubernetes.io/path': 'fn-config.yaml', 'config.k8s.io/id': '7' });
  });

  it("kpt's annotations on a PackageVariantSet do not make it invalid", () => {
    const annotated = insertAfter(VALID_PVS, 'name: my-pvs', KPT_ANNOTATIONS);
    expect(read(resourceList(ITEMS, annotated)).kind).toBe('package-variant-set');
  });

  it('a PackageVariant with the v1alpha2 apiVersion is not accepted', () => {
    const input = resourceList(ITEMS, VALID_PV.replace('v1alpha1', 'v1alpha2'));
    const errors = runFailing(input);
    expect(String(errors[0]!.message)).toContain('unsupported functionConfig config.porch.kpt.dev/v1alpha2 PackageVariant');
  });
});

describe('PackageVariant schema errors', () => {
  it('an unknown field in spec is named, with the line of the field', () => {
    const pv = insertAfter(VALID_PV, 'team: hr', '  bogusField: 1');
    const input = resourceList(ITEMS, pv);
    const errors = runFailing(input);
    expect(errors).toHaveLength(1);
    const message = String(errors[0]!.message);
    expect(message).toContain('PackageVariant my-pv');
    expect(message).toContain('spec.bogusField');
    expect(message).toContain('unknown field "bogusField"');
    expect(errors[0]!.field).toEqual({ path: 'spec.bogusField' });
    expect(message).toContain(`(line ${lineContaining(input, 'bogusField:')}, column`);
  });

  it('a packageContext.data value that is a number must be a string', () => {
    const pv = VALID_PV.replace('region: eu-west', 'replicas: 3');
    const input = resourceList(ITEMS, pv);
    const errors = runFailing(input);
    expect(errors).toHaveLength(1);
    const message = String(errors[0]!.message);
    expect(message).toContain('must be a string');
    expect(errors[0]!.field).toEqual({ path: 'spec.packageContext.data.replicas' });
    expect(message).toContain(`(line ${lineContaining(input, 'replicas: 3')}, column`);
  });

  it('an injector without a name is missing a required field', () => {
    const pv = VALID_PV.replace('  - kind: ConfigMap\n    name: injected\n', '  - kind: ConfigMap\n    group: ""\n');
    const input = resourceList(ITEMS, pv);
    const errors = runFailing(input);
    expect(errors).toHaveLength(1);
    const message = String(errors[0]!.message);
    expect(message).toContain('missing required field "name"');
    expect(message).toContain('spec.injectors[0]');
    expect(errors[0]!.field).toEqual({ path: 'spec.injectors[0]' });
    expect(message).toContain(`(line ${lineContaining(input, '- kind: ConfigMap')}, column`);
  });

  it('every problem is reported, not only the first', () => {
    const pv = VALID_PV.replace('region: eu-west', 'replicas: 3').replace('revision: 1', 'revision: -1');
    const errors = runFailing(resourceList(ITEMS, pv));
    expect(errors.map((e) => (e.field as { path: string }).path).sort()).toEqual(['spec.packageContext.data.replicas', 'spec.upstream.revision']);
  });

  it('file.path is set from the internal.config.kubernetes.io/path annotation', () => {
    const pv = insertAfter(VALID_PV, 'namespace: default', "  annotations:\n    internal.config.kubernetes.io/path: 'pv.yaml'").replace(
      'region: eu-west',
      'replicas: 3',
    );
    const errors = runFailing(resourceList(ITEMS, pv));
    expect(errors[0]).toMatchObject({ file: { path: 'pv.yaml' }, field: { path: 'spec.packageContext.data.replicas' } });
  });

  it('file.path is absent without a path annotation', () => {
    const errors = runFailing(resourceList(ITEMS, VALID_PV.replace('region: eu-west', 'replicas: 3')));
    expect(errors[0]!.file).toBeUndefined();
  });

  it.each([
    ['1.5', 'must be a string or an integer'],
    ['true', 'must be a string or an integer'],
    ['[v1]', 'must be a string or an integer'],
    ['""', 'must not be empty'],
    ['-1', 'must not be negative'],
  ])('revision: %s is an error naming the field and its line, in a PackageVariant and a PackageVariantSet', (revision, problem) => {
    for (const [config, what] of [
      [VALID_PV, 'PackageVariant my-pv'],
      [VALID_PVS, 'PackageVariantSet my-pvs'],
    ] as const) {
      const input = resourceList(ITEMS, config.replace('revision: 1', `revision: ${revision}`));
      const errors = runFailing(input);
      expect(errors).toHaveLength(1);
      expect(errors[0]!.field).toEqual({ path: 'spec.upstream.revision' });
      const line = lineContaining(input, 'revision:');
      const column = input.split('\n')[line - 1]!.indexOf(revision) + 1;
      expect(errors[0]!.message).toBe(`${what}: spec.upstream.revision: ${problem} (line ${line}, column ${column} of the ResourceList)`);
    }
  });

  it('revision: v1, as the design writes it, and a revision number are both valid', () => {
    for (const revision of ['v1', 'main', '3', '0']) {
      expect(read(resourceList(ITEMS, VALID_PV.replace('revision: 1', `revision: ${revision}`))).kind).toBe('package-variant');
      expect(read(resourceList(ITEMS, VALID_PVS.replace('revision: 1', `revision: ${revision}`))).kind).toBe('package-variant-set');
    }
  });

  it("a misspelt field in a MapExpr written alone (the design's labelExprs) names the field and line", () => {
    const pvs = insertAfter(VALID_PVS, 'packageExpr:', '      labelExprs:\n        key: org\n        valueExpresion: x');
    const input = resourceList(ITEMS, pvs);
    const errors = runFailing(input);
    expect(errors.map((e) => e.field)).toEqual([{ path: 'spec.targets[0].template.labelExprs.valueExpresion' }]);
    expect(String(errors[0]!.message)).toContain(`unknown field "valueExpresion" (line ${lineContaining(input, 'valueExpresion:')}, column`);
  });

  it('a PackageVariantSet schema error names the field and line', () => {
    const pvs = insertAfter(VALID_PVS, 'packageExpr:', '        repoExprr: "x"');
    const input = resourceList(ITEMS, pvs);
    const errors = runFailing(input);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.field).toEqual({ path: 'spec.targets[0].template.downstream.repoExprr' });
    expect(String(errors[0]!.message)).toContain('PackageVariantSet my-pvs');
    expect(String(errors[0]!.message)).toContain(`(line ${lineContaining(input, 'repoExprr:')}, column`);
  });
});

describe('v1 List functionConfig', () => {
  const list = (items: string[]) =>
    `apiVersion: v1\nkind: List\nmetadata: {}\nitems:\n${items
      .map((item) => item.trimEnd().split('\n').map((line, i) => (i === 0 ? `- ${line}` : `  ${line}`)).join('\n'))
      .join('\n')}\n`;
  const injectA = configMap('inject-a', 'data:\n  a: "1"');
  const injectB = configMap('inject-b', 'data:\n  b: "2"');

  it('one PackageVariant and two ConfigMaps is kind package-variant with the ConfigMaps as objects', () => {
    const config = read(resourceList(ITEMS, list([injectA, VALID_PV, injectB])));
    expect(config.kind).toBe('package-variant');
    if (config.kind !== 'package-variant') return;
    expect(config.variant.metadata.name).toBe('my-pv');
    expect(config.objects).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inject-a' }, data: { a: '1' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'inject-b' }, data: { b: '2' } },
    ]);
  });

  it('one PackageVariantSet and a ConfigMap is kind package-variant-set', () => {
    const config = read(resourceList(ITEMS, list([VALID_PVS, injectA])));
    expect(config.kind).toBe('package-variant-set');
    if (config.kind !== 'package-variant-set') return;
    expect(config.objects.map((o) => o.metadata.name)).toEqual(['inject-a']);
  });

  it('a ConfigMap named package-variant-options in a List gives the options and is no injection candidate', () => {
    const list = `apiVersion: v1
kind: List
metadata:
  name: l
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: package-variant-options
  data:
    originDir: upstream-v1
    conflicts: error
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: candidate
- apiVersion: config.porch.kpt.dev/v1alpha1
  kind: PackageVariant
  metadata:
    name: pv
`;
    const config = readFunctionConfig(parseResourceList(resourceList([], list)));
    expect(config).toMatchObject({ kind: 'package-variant', options: { originDir: 'upstream-v1', conflicts: 'error' } });
    expect((config as { objects: { metadata: { name: string } }[] }).objects.map((o) => o.metadata.name)).toEqual(['candidate']);
  });

  it('a List without a PackageVariant is an error saying none was found', () => {
    const errors = runFailing(resourceList(ITEMS, list([injectA, injectB])));
    expect(String(errors[0]!.message)).toMatch(/exactly one PackageVariant or PackageVariantSet, found 0\b/);
  });

  it('a List with two PackageVariants is an error naming both', () => {
    const second = VALID_PV.replace('name: my-pv', 'name: my-pv-2');
    const errors = runFailing(resourceList(ITEMS, list([VALID_PV, injectA, second])));
    const message = String(errors[0]!.message);
    expect(message).toMatch(/found 2\b/);
    expect(message).toContain('items[0] PackageVariant my-pv');
    expect(message).toContain('items[2] PackageVariant my-pv-2');
    expect(errors[0]!.field).toEqual({ path: 'items' });
  });

  it('a schema error in a List item PackageVariant has a field path under items[<index>].spec', () => {
    const input = resourceList(ITEMS, list([injectA, injectB, VALID_PV.replace('region: eu-west', 'replicas: 3')]));
    const errors = runFailing(input);
    expect(errors).toHaveLength(1);
    const path = (errors[0]!.field as { path: string }).path;
    expect(path.startsWith('items[2].spec')).toBe(true);
    expect(path).toBe('items[2].spec.packageContext.data.replicas');
    expect(String(errors[0]!.message)).toContain('must be a string');
    expect(String(errors[0]!.message)).toContain(`(line ${lineContaining(input, 'replicas: 3')}, column`);
  });

  it('an unknown field in a List item PackageVariant names its line', () => {
    const input = resourceList(ITEMS, list([injectA, insertAfter(VALID_PV, 'team: hr', '  bogusField: 1')]));
    const errors = runFailing(input);
    expect(errors[0]!.field).toEqual({ path: 'items[1].spec.bogusField' });
    expect(String(errors[0]!.message)).toContain(`(line ${lineContaining(input, 'bogusField:')}, column`);
  });

  it('a List item that is not a KRM object is an error', () => {
    const errors = runFailing(resourceList(ITEMS, list([VALID_PV, 'apiVersion: v1\nkind: ConfigMap'])));
    expect(errors[0]!.field).toEqual({ path: 'items[1]' });
    expect(String(errors[0]!.message)).toContain('missing required field "metadata"');
  });
});

describe('unsupported functionConfig kinds', () => {
  it('apps/v1 Deployment is an error listing every accepted kind', () => {
    const errors = runFailing(resourceList(ITEMS, 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d'));
    expect(errors).toHaveLength(1);
    const message = String(errors[0]!.message);
    expect(message).toContain('unsupported functionConfig apps/v1 Deployment');
    for (const kind of ['PackageVariant', 'PackageVariantSet', 'ConfigMap', 'List']) expect(message).toContain(kind);
    expect(message).toContain('config.porch.kpt.dev/v1alpha1 PackageVariant');
    expect(message).toContain('config.porch.kpt.dev/v1alpha2 PackageVariantSet');
  });

  it('readFunctionConfig throws a FunctionError carrying the result', () => {
    const results = readError(resourceList(ITEMS, 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d'));
    expect(results).toEqual([expect.objectContaining({ severity: 'error', field: { path: 'functionConfig.kind' } })]);
  });

  it('the unsupported-kind error carries the file path', () => {
    const errors = runFailing(
      resourceList(ITEMS, "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  annotations:\n    internal.config.kubernetes.io/path: 'd.yaml'"),
    );
    expect(errors[0]!.file).toEqual({ path: 'd.yaml' });
  });

  it('a non-empty ConfigMap-like map without apiVersion and kind is not taken as options', () => {
    const errors = runFailing(resourceList(ITEMS, 'metadata:\n  name: function-input\ndata:\n  strategy: fast-forward'));
    expect(String(errors[0]!.message)).toContain('unsupported functionConfig (no apiVersion) (no kind)');
  });
});
