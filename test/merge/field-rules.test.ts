import { crdYaml } from '../helpers';
import { merge, merge1 } from './merge-helpers';

const cm = (data: string, extra = '') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n${extra}data:\n${data}`;
const deploy = (containers: string) => `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      containers:\n${containers}`;

describe('scalars', () => {
  it('takes an upstream change where local did not change the value', () => {
    const { items } = merge1(cm('  a: "1"\n  b: "1"\n'), cm('  a: "2"\n  b: "1"\n'), cm('  a: "1"\n  b: local\n'));
    expect(items[0]!.data).toEqual({ a: '2', b: 'local' });
  });

  it('keeps local where both changed to the same value, without a conflict', () => {
    const { items, messages } = merge1(cm('  a: "1"\n'), cm('  a: "2"\n'), cm('  a: "2"\n'));
    expect(items[0]!.data).toEqual({ a: '2' });
    expect(messages.join()).not.toMatch(/merge conflict/);
  });

  it('lets upstream win a conflict and reports both values', () => {
    const { items, results } = merge1(cm('  a: "1"\n'), cm('  a: up\n'), cm('  a: mine\n'));
    expect(items[0]!.data).toEqual({ a: 'up' });
    const conflict = results.find((r) => /merge conflict/.test(r.message))!;
    expect(conflict).toMatchObject({
      severity: 'warning',
      resourceRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'c' },
      field: { path: 'data.a', currentValue: 'mine', proposedValue: 'up' },
      file: { path: 'r.yaml' },
    });
  });

  it('with conflicts: error, a conflict is an error and nothing is written', () => {
    const local = cm('  a: mine\n');
    const { exitCode, results, items } = merge1(cm('  a: "1"\n'), cm('  a: up\n'), local, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: o\ndata:\n  conflicts: error\n');
    expect(exitCode).toBe(1);
    expect(results.some((r) => r.severity === 'error' && /conflicts: error/.test(r.message))).toBe(true);
    // The output is the input: local unchanged, the tagged versions still there for kpt to discard.
    expect(items.map((i) => i.data.a)).toEqual(['mine', '1', 'up']);
  });

  it('removes a field upstream set to null; keeps a local null upstream did not touch', () => {
    const { items } = merge1(cm('  a: "1"\n  b: "1"\n'), cm('  a: null\n  b: "1"\n'), cm('  a: "1"\n  b: null\n'));
    expect(items[0]!.data).toEqual({ b: null });
  });

  it('drops nulls inside a value taken from upstream; a null both sides set goes', () => {
    // Both sides removed `data.a` (issue 12): it goes, and `data`, left empty by the merge, with it.
    const { items } = merge1(
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: "1"\n',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels:\n    team: null\n    tier: web\ndata:\n  a: null\n',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: null\n',
    );
    expect(items[0]!.metadata.labels).toEqual({ tier: 'web' });
    expect(items[0]).not.toHaveProperty('data');
  });

  it('treats quoting as no change and a type change as a change', () => {
    const { items } = merge1(cm('  a: "1"\n  b: x\n'), cm('  a: 1\n  b: "x"\n'), cm('  a: "1"\n  b: x\n'));
    expect(items[0]!.data).toEqual({ a: 1, b: 'x' });
  });

  it('tells integers past 2^53 apart by their digits, though they read as one float', () => {
    const obj = (id: string) => `apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  id: ${id}\n`;
    const taken = merge1(obj('12345678901234567890'), obj('12345678901234567891'), obj('12345678901234567890'));
    expect(taken.output).toMatch(/\n {4}id: 12345678901234567891\n/);
    const conflict = merge1(obj('12345678901234567890'), obj('12345678901234567891'), obj('12345678901234567892'));
    expect(conflict.messages.filter((m) => m.startsWith('merge conflict'))).toHaveLength(1);
  });
});

describe('maps', () => {
  it('a map deleted upstream and unchanged locally is removed, not left as {}', () => {
    const { items } = merge1(cm('  a: "1"\n', 'binaryData:\n  k: AA==\n'), cm('  a: "1"\n'), cm('  a: "1"\n', 'binaryData:\n  k: AA==\n'));
    expect(items[0]).not.toHaveProperty('binaryData');
  });

  it('a map deleted locally and unchanged upstream stays deleted', () => {
    const { items } = merge1(cm('  a: "1"\n', 'binaryData:\n  k: AA==\n'), cm('  a: "2"\n', 'binaryData:\n  k: AA==\n'), cm('  a: "1"\n'));
    expect(items[0]).not.toHaveProperty('binaryData');
    expect(items[0]!.data).toEqual({ a: '2' });
  });

  it('a map deleted locally but changed upstream comes back whole, reported as a conflict', () => {
    const { items, messages } = merge1(cm('  a: "1"\n  b: "1"\n'), cm('  a: "2"\n  b: "1"\n'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n');
    expect(items[0]!.data).toEqual({ a: '2', b: '1' });
    expect(messages.join()).toMatch(/data was deleted locally but changed upstream/);
  });

  it('a map deleted upstream keeps the keys local added and loses the ones from origin', () => {
    const withLabels = (labels: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n${labels}data:\n  a: "1"\n`;
    const { items, messages } = merge1(withLabels('  labels:\n    app: c\n'), withLabels(''), withLabels('  labels:\n    app: c\n    owner: me\n'));
    expect(items[0]!.metadata.labels).toEqual({ owner: 'me' });
    expect(messages.join()).not.toMatch(/merge conflict/);
  });

  it('a new upstream key goes after its upstream predecessor', () => {
    const { output } = merge1(cm('  a: "1"\n  c: "1"\n'), cm('  a: "1"\n  b: "1"\n  c: "1"\n'), cm('  a: "1"\n  c: "1"\n'));
    expect(output).toMatch(/a: "1"\n\s+b: "1"\n\s+c: "1"/);
  });
});

describe('keyed lists', () => {
  it('merges containers by name, keeps local order, and adds upstream elements after their predecessor', () => {
    const origin = deploy('      - name: a\n        image: a:1\n      - name: b\n        image: b:1\n');
    const upstream = deploy('      - name: a\n        image: a:2\n      - name: new\n        image: n:1\n      - name: b\n        image: b:1\n');
    const local = deploy('      - name: b\n        image: b:local\n      - name: a\n        image: a:1\n');
    const { items } = merge1(origin, upstream, local);
    expect(items[0]!.spec.template.spec.containers).toEqual([
      { name: 'b', image: 'b:local' },
      { name: 'a', image: 'a:2' },
      { name: 'new', image: 'n:1' },
    ]);
  });

  it('does not duplicate a port when upstream adds its default protocol', () => {
    const port = (extra: string) => deploy(`      - name: c\n        ports:\n        - containerPort: 80\n${extra}`);
    const { items } = merge1(port(''), port('          protocol: TCP\n'), port('          name: http\n'));
    expect(items[0]!.spec.template.spec.containers[0].ports).toEqual([{ containerPort: 80, name: 'http', protocol: 'TCP' }]);
  });

  it('an element deleted upstream but changed locally is removed whole, reported as a conflict', () => {
    const origin = deploy('      - name: a\n        image: a:1\n      - name: b\n        image: b:1\n');
    const upstream = deploy('      - name: a\n        image: a:1\n');
    const local = deploy('      - name: a\n        image: a:1\n      - name: b\n        image: b:1\n        imagePullPolicy: Always\n');
    const { items, messages } = merge1(origin, upstream, local);
    expect(items[0]!.spec.template.spec.containers).toEqual([{ name: 'a', image: 'a:1' }]);
    expect(messages.join()).toMatch(/containers\[name=b\] was changed locally but deleted upstream/);
  });

  it('uses a CRD among the items for its kind', () => {
    const crd = crdYaml('example.com', 'Widget', 'v1', {
      type: 'object',
      properties: {
        parts: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['id'], items: { type: 'object', properties: { id: { type: 'string' }, size: { type: 'integer' } } } },
      },
    });
    const widget = (parts: string) => `apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  parts:\n${parts}`;
    const result = merge({
      origin: [crd, widget('  - {id: a, size: 1}\n')],
      upstream: [crd, widget('  - {id: a, size: 2}\n')],
      local: [crd, widget('  - {id: a, size: 1}\n  - {id: b, size: 5}\n')],
    });
    expect(result.items.find((i) => i.kind === 'Widget')!.spec.parts).toEqual([{ id: 'a', size: 2 }, { id: 'b', size: 5 }]);
  });

  it('an element without its key in a schema-keyed list is an error naming it', () => {
    const origin = deploy('      - name: a\n        image: a:1\n');
    const { exitCode, messages } = merge1(origin, deploy('      - name: a\n        image: a:2\n'), deploy('      - name: a\n        image: a:1\n      - image: nameless\n'));
    expect(exitCode).toBe(1);
    expect(messages.join()).toMatch(/Deployment d .*spec\.template\.spec\.containers: element 1 has no name in local's list/);
  });
});

describe('sets and atomic lists', () => {
  const fin = (list: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  finalizers: [${list}]\n`;

  it('merges finalizers as a set', () => {
    const { items } = merge1(fin('a, b'), fin('a, c'), fin('x, a, b'));
    expect(items[0]!.metadata.finalizers).toEqual(['x', 'a', 'c']);
  });

  it('replaces an atomic list whole when upstream changed it and local did not', () => {
    const args = (list: string) => deploy(`      - name: a\n        args: [${list}]\n`);
    const { items } = merge1(args('1, 2'), args('1, 2, 3'), args('1, 2'));
    expect(items[0]!.spec.template.spec.containers[0].args).toEqual([1, 2, 3]);
  });
});

describe('kinds of value', () => {
  it('a field both sides changed to different kinds is an error naming resource and field', () => {
    const { exitCode, results } = merge1(cm('  a: "1"\n'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a:\n    nested: map\n', cm('  a: mine\n'));
    expect(exitCode).toBe(1);
    expect(results[0]).toMatchObject({ severity: 'error', resourceRef: { kind: 'ConfigMap', name: 'c' }, field: { path: 'data.a' } });
    expect(String(results[0]!.message)).toMatch(/data\.a: the versions disagree on the kind of value: local has a scalar, origin has a scalar, upstream has a map/);
  });
});
