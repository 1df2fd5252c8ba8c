import { parse } from 'yaml';
import { splitItems } from '../../src/krm/item-chunks';
import { parseResourceList, serializeResourceList } from '../../src/krm/resource-list';
import { KrmResource } from '../../src/krm/resource';
import { FunctionError } from '../../src/krm/results';
import { runKrmFunction } from '../../src/krm/run';
import { resourceList, runFunction } from '../helpers';

const configMap = (name: string, extra = '') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${extra}`;

function errorsOf(input: string): { exitCode: number; messages: string[]; output: string } {
  const { exitCode, results, output } = runFunction(input);
  return { exitCode, output, messages: results.filter((r) => r.severity === 'error').map((r) => String(r.message)) };
}

describe('bad input gives exit 1, an error result and a valid ResourceList', () => {
  const cases: [string, string, RegExp][] = [
    ['empty stdin', '', /no input: expected a ResourceList/],
    ['only whitespace', '  \n\n', /no input/],
    ['not YAML', 'apiVersion: [unclosed\nkind: {', /not valid YAML.*line \d+/],
    ['YAML that is not a ResourceList', configMap('x'), /not a ResourceList: got apiVersion "v1" kind "ConfigMap"/],
    ['a scalar document', 'just text', /not a ResourceList: expected a YAML map/],
    ['items that are not a list', 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: {a: 1}\n', /items list/],
    ['no items at all', 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n', /items list/],
    ['an item that is a scalar', resourceList(['hello']), /items\[0\] is not a KRM object: expected a map/],
    ['a functionConfig that is a list', resourceList([configMap('a')], '- a\n- b'), /functionConfig must be a KRM object/],
    ['two documents', `${resourceList([])}---\n${resourceList([])}`, /not valid YAML/],
    ['duplicate keys', 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nkind: ResourceList\nitems: []\n', /not valid YAML.*unique/i],
  ];
  it.each(cases)('%s', (_name, input, message) => {
    const { exitCode, messages, output } = errorsOf(input);
    expect(exitCode).toBe(1);
    expect(messages.join('\n')).toMatch(message);
    const list = parse(output) as { apiVersion: string; kind: string; items: unknown[] };
    expect(list.kind).toBe('ResourceList');
    expect(Array.isArray(list.items)).toBe(true);
  });

  it('a YAML alias bomb is refused, not expanded', () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) levels.push(`l${i}: &l${i} [${Array(10).fill(i === 1 ? '*a' : `*l${i - 1}`).join(',')}]`);
    const bomb = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: bomb\n  data:\n${levels.map((l) => `    ${l}`).join('\n')}\n`;
    const started = Date.now();
    const { exitCode, messages } = errorsOf(bomb);
    expect(exitCode).toBe(1);
    expect(messages.join()).toMatch(/aliases expand too far/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a document nested 10,000 deep is refused with a message, not a stack overflow', () => {
    const deep = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: deep\n  data: ${'['.repeat(10000)}${']'.repeat(10000)}\n`;
    const { exitCode, messages } = errorsOf(deep);
    expect(exitCode).toBe(1);
    expect(messages.join()).toMatch(/nested too deeply/);
  });

  it.each([
    ['without metadata.name', 'apiVersion: v1\nkind: ConfigMap\nmetadata: {}'],
    ['without apiVersion', 'kind: ConfigMap\nmetadata:\n  name: x'],
    ['without kind', 'apiVersion: v1\nmetadata:\n  name: x'],
  ])('an item %s is read, as kpt reads every map of a package as a resource', (_name, item) => {
    const input = resourceList([item]);
    expect(runFunction(input)).toMatchObject({ exitCode: 0, output: input });
  });
});

describe('ResourceList input', () => {
  it('accepts config.kubernetes.io/v1beta1 and writes back the same apiVersion', () => {
    const input = resourceList([configMap('a')]).replace('config.kubernetes.io/v1', 'config.kubernetes.io/v1beta1');
    const { output, exitCode } = runFunction(input);
    expect(exitCode).toBe(0);
    expect(output).toBe(input);
  });

  it('passes through YAML files kpt forwards that have no KRM identity', () => {
    const input = resourceList(['resources:\n- deployment.yaml']);
    expect(runFunction(input)).toMatchObject({ exitCode: 0, output: input });
  });
});

describe('ResourceList output', () => {
  it('re-renders only the changed item and keeps the others byte for byte', () => {
    const input = resourceList([configMap('a', 'data: {x: "0755"}  # odd spacing kept'), configMap('b', 'data:\n  n: 0x1F')]);
    const list = parseResourceList(input);
    list.items[1]!.setIn(['data', 'm'], 'on');
    const output = serializeResourceList(list);
    expect(output).toContain('data: {x: "0755"}  # odd spacing kept');
    expect(output).toContain('  data:\n    n: 0x1F\n    m: "on"\n');
  });

  it('cuts removed items and appends new ones at the sequence indentation', () => {
    const input = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: a\n  - apiVersion: v1\n    kind: ConfigMap\n    metadata:\n      name: b\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: function-input\n';
    const list = parseResourceList(input);
    const added = KrmResource.fromData({ apiVersion: v1(), kind: 'Secret', metadata: { name: 'c' } });
    list.items = [list.items[1]!, added];
    const output = serializeResourceList(list);
    expect(parse(output).items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['b', 'c']);
    expect(output).toContain('  - apiVersion: v1\n    kind: Secret\n    metadata:\n      name: c\n');
    expect(output).toContain('functionConfig:\n  apiVersion: v1');
  });

  it.each([true, false])('keeps a comment above a changed item once (item by item: %s)', (byItem) => {
    const text = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: A\n  metadata:\n    name: a\n# between\n- apiVersion: v1\n  kind: B\n  metadata:\n    name: b\n';
    const list = parseResourceList(text, { byItem });
    list.items[1]!.setIn(['data', 'k'], 'v');
    expect(serializeResourceList(list)).toBe(text.replace('    name: b\n', '    name: b\n  data:\n    k: v\n'));
  });

  it('writes `items: []` when every item is removed', () => {
    const list = parseResourceList(resourceList([configMap('a'), configMap('b')], 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f'));
    list.items = [];
    const output = serializeResourceList(list);
    expect(output).toContain('items: []\nfunctionConfig:');
    expect(parse(output).items).toEqual([]);
  });

  it('renders a whole list when the input had `items: []`', () => {
    const list = parseResourceList(resourceList([]));
    list.items.push(KrmResource.fromData({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new' } }));
    expect(parse(serializeResourceList(list)).items).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new' } }]);
  });

  it.each([
    ['with a functionConfig', resourceList([], 'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: x}')],
    ['with a comment after it', 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [] # none\n'],
  ])('reads `items: []` %s as the whole-document parse does, and adds to it the same way', (_name, text) => {
    const outputs = [true, false].map((byItem) => {
      const list = parseResourceList(text, { byItem });
      expect(list.items).toEqual([]);
      const unchanged = serializeResourceList(list);
      list.items.push(KrmResource.fromData({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new' } }), KrmResource.fromData({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }));
      return [unchanged, serializeResourceList(list)];
    });
    expect(outputs[0]).toEqual(outputs[1]);
    expect(outputs[0]![0]).toBe(text);
    expect(splitItems(text)?.chunks).toEqual([]);
  });

  it('writes results in spec form, after any results already present', () => {
    const input = `${resourceList([configMap('a')])}results:\n- message: earlier\n  severity: info\n`;
    const outcome = runKrmFunction(input, (list) => {
      list.results.push({ message: 'hello', severity: 'warning', resourceRef: list.items[0]!.ref(), field: { path: 'data.x', proposedValue: 1 } });
    });
    expect(outcome.exitCode).toBe(0);
    expect(parse(outcome.output).results).toEqual([
      { message: 'earlier', severity: 'info' },
      { message: 'hello', severity: 'warning', resourceRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'a' }, field: { path: 'data.x', proposedValue: 1 } },
    ]);
  });

  it('an error result means exit 1 and the items exactly as they came in', () => {
    const input = resourceList([configMap('a')]);
    const outcome = runKrmFunction(input, (list) => {
      list.items[0]!.setIn(['data', 'half'], 'written');
      list.results.push({ message: 'bad', severity: 'error' });
    });
    expect(outcome.exitCode).toBe(1);
    expect(outcome.output.startsWith(input)).toBe(true);
    expect(outcome.output).not.toContain('half');
  });

  it('an unexpected exception becomes an error result without a stack trace', () => {
    const outcome = runKrmFunction(resourceList([configMap('a')]), () => {
      throw new Error('boom');
    });
    expect(outcome.exitCode).toBe(1);
    expect(outcome.output).toContain('internal error: boom');
    expect(outcome.output).not.toMatch(/at .*\.ts:\d+/);
  });

  it('a FunctionError thrown by a processor carries its own results', () => {
    const outcome = runKrmFunction(resourceList([]), () => {
      throw new FunctionError([{ message: 'first', severity: 'error' }, { message: 'second', severity: 'warning' }]);
    });
    expect(parse(outcome.output).results.map((r: { message: string }) => r.message)).toEqual(['first', 'second']);
  });
});

function v1(): string {
  return 'v1';
}

describe('lists larger than a call takes arguments', () => {
  const many = 150_000;
  const configMaps = (path: string) => Array.from({ length: many }, (_, i) => KrmResource.fromData({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}`, annotations: { 'config.kubernetes.io/path': path } } }));

  it('are written with every new item', () => {
    const list = parseResourceList(resourceList([configMap('a')]));
    list.items = [...list.items, ...configMaps('cm.yaml')];
    const output = serializeResourceList(list);
    expect(output.split('\n- apiVersion: v1\n').length).toBe(many + 2);
  });

  it('end with a result for every item outside the package', () => {
    const outcome = runKrmFunction(resourceList([configMap('a')]), (list) => {
      list.items = [...list.items, ...configMaps('../out.yaml')];
    });
    expect(outcome.exitCode).toBe(1);
    expect(outcome.output.split('is outside the package').length).toBe(many + 1);
  });
});
