/**
 * The merge rules of README "Merging upstream changes" that issue 12 set right: nulls on both sides,
 * deletions against deletions, keyless elements, schema defaults, comments, the blueprint
 * attribution, one identity in two files, and two ports with one name. One describe per rule.
 */
import { resourceList } from '../helpers';
import { merge, merge1, run, tagged } from './merge-helpers';

const ERROR_ON_CONFLICT = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: o\ndata:\n  conflicts: error\n';

const labelled = (labels: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels:\n${labels}data:\n  k: v\n`;
const service = (ports: string, extra = '') => `apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n${extra}  ports:\n${ports}`;
const serviceWithout = (extra = '') => `apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n${extra}  selector:\n    app: s\n`;
const deploy = (container: string) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: app:1\n${container}`;
const conflicts = (messages: string[]) => messages.filter((m) => m.startsWith('merge conflict'));

describe('rule 1: a null on both sides', () => {
  it('is removed when both sides set the field to null', () => {
    const { items, messages } = merge1(labelled('    app: c\n    tier: backend\n'), labelled('    app: c\n    tier: null\n'), labelled('    app: c\n    tier: null\n'));
    expect(items[0]!.metadata.labels).toEqual({ app: 'c' });
    expect(conflicts(messages)).toEqual([]);
  });

  it('a local null against an upstream deletion is no conflict, even with conflicts: error', () => {
    const { items, messages, exitCode } = merge1(labelled('    app: c\n    tier: backend\n'), labelled('    app: c\n'), labelled('    app: c\n    tier: null\n'), ERROR_ON_CONFLICT);
    expect(exitCode).toBe(0);
    expect(items[0]!.metadata.labels).toEqual({ app: 'c' });
    expect(conflicts(messages)).toEqual([]);
  });

  it('an upstream null against a local deletion is no conflict either', () => {
    const { items, messages } = merge1(labelled('    app: c\n    tier: backend\n'), labelled('    app: c\n    tier: null\n'), labelled('    app: c\n'));
    expect(items[0]!.metadata.labels).toEqual({ app: 'c' });
    expect(conflicts(messages)).toEqual([]);
  });

  it('a null origin already had stays where upstream kept it', () => {
    const { items } = merge1(labelled('    app: c\n    tier: null\n'), labelled('    app: c\n    tier: null\n'), labelled('    app: c\n    tier: null\n'));
    expect(items[0]!.metadata.labels).toEqual({ app: 'c', tier: null });
  });
});

describe('rule 2: deletions never conflict with deletions', () => {
  const ports = '  - name: http\n    port: 80\n  - name: admin\n    port: 9000\n';

  it('a list deleted locally stays deleted when upstream only removed elements from it', () => {
    const { items, messages } = merge1(service(ports), service('  - name: admin\n    port: 9000\n'), serviceWithout());
    expect(items[0]!.spec).toEqual({ selector: { app: 's' } });
    expect(conflicts(messages)).toEqual([]);
  });

  it('a container env deleted locally stays deleted when upstream removed one variable', () => {
    const env = (vars: string) => deploy(`        env:\n${vars}`);
    const { items, messages } = merge1(env('        - name: A\n          value: "1"\n        - name: B\n          value: "2"\n'), env('        - name: B\n          value: "2"\n'), deploy(''));
    expect(items[0]!.spec.template.spec.containers[0]).toEqual({ name: 'app', image: 'app:1' });
    expect(conflicts(messages)).toEqual([]);
  });

  it('a map deleted locally stays deleted when upstream only removed keys, also inside nested maps', () => {
    const limits = (cpu: string) => deploy(`        resources:\n          limits:\n${cpu}            memory: 1Gi\n          requests:\n            cpu: 100m\n`);
    const { items, messages } = merge1(limits('            cpu: "1"\n'), limits(''), deploy(''));
    expect(items[0]!.spec.template.spec.containers[0]).toEqual({ name: 'app', image: 'app:1' });
    expect(conflicts(messages)).toEqual([]);
  });

  it('a list deleted upstream is deleted without a conflict when local only removed elements from it', () => {
    const { items, messages } = merge1(service(ports), serviceWithout(), service('  - name: admin\n    port: 9000\n'));
    expect(items[0]!.spec.ports).toBeUndefined();
    expect(conflicts(messages)).toEqual([]);
  });

  it('an element deleted upstream goes without a conflict when local only removed fields from it', () => {
    const withPolicy = '  - name: http\n    port: 80\n    targetPort: 8080\n  - name: admin\n    port: 9000\n';
    const { items, messages } = merge1(service(withPolicy), service('  - name: admin\n    port: 9000\n'), service(ports));
    expect(items[0]!.spec.ports).toEqual([{ name: 'admin', port: 9000 }]);
    expect(conflicts(messages)).toEqual([]);
  });

  it('upstream still wins whole where it added or changed something inside', () => {
    const { items, messages } = merge1(service(ports), service('  - name: admin\n    port: 9000\n  - name: https\n    port: 443\n'), serviceWithout());
    expect(items[0]!.spec.ports).toEqual([{ name: 'admin', port: 9000 }, { name: 'https', port: 443 }]);
    expect(conflicts(messages)).toEqual([expect.stringMatching(/spec\.ports was deleted locally but changed upstream/)]);
  });
});

describe('rule 3: a keyed list with an element missing its key', () => {
  const cm = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: "${v}"\n`;
  const keyless = '  - name: http\n    port: 80\n  - name: metrics\n    targetPort: 9090\n';

  it('is taken as upstream has it where local never touched the list, and the rest of the package merges', () => {
    const origin = service('  - name: http\n    port: 80\n');
    const { exitCode, items } = run(resourceList([tagged(origin, undefined), tagged(cm('1'), undefined, 'c.yaml'), tagged(origin, 'original'), tagged(cm('1'), 'original', 'c.yaml'), tagged(service(keyless), 'updated'), tagged(cm('2'), 'updated', 'c.yaml')]));
    expect(exitCode).toBe(0);
    expect(items.find((i) => i.kind === 'Service')!.spec.ports).toEqual([{ name: 'http', port: 80 }, { name: 'metrics', targetPort: 9090 }]);
    expect(items.find((i) => i.kind === 'ConfigMap')!.data).toEqual({ k: '2' });
  });

  it("stays as local has it where upstream did not change the list", () => {
    const origin = service('  - name: http\n    port: 80\n');
    const { exitCode, items } = merge1(origin, service('  - name: http\n    port: 80\n', '  type: NodePort\n'), service(keyless));
    expect(exitCode).toBe(0);
    expect(items[0]!.spec).toEqual({ type: 'NodePort', ports: [{ name: 'http', port: 80 }, { name: 'metrics', targetPort: 9090 }] });
  });

  it('is an error where both sides changed the list, naming only the key fields that are missing', () => {
    const origin = service('  - name: http\n    port: 80\n');
    const { exitCode, messages } = merge1(origin, service(keyless), service('  - name: http\n    port: 8080\n'));
    expect(exitCode).toBe(1);
    expect(messages.join('\n')).toMatch(/Service s .*spec\.ports: element 1 has no port in upstream's list, which is keyed by port, protocol/);
  });
});

describe('rule 4: a missing key field and its schema default are the same value', () => {
  it('upstream dropping protocol: TCP is no change: local changing the protocol stands, one port', () => {
    const { items, messages } = merge1(service('  - name: http\n    port: 80\n    protocol: TCP\n'), service('  - name: http\n    port: 80\n'), service('  - name: http\n    port: 80\n    protocol: UDP\n'));
    expect(items[0]!.spec.ports).toEqual([{ name: 'http', port: 80, protocol: 'UDP' }]);
    expect(conflicts(messages)).toEqual([]);
  });

  it('local dropping protocol: TCP is no change: the resource counts as unchanged and upstream deletes it', () => {
    const { items, results } = merge1(service('  - name: http\n    port: 80\n    protocol: TCP\n'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n', service('  - name: http\n    port: 80\n'));
    expect(items.map((i) => i.kind)).toEqual(['ConfigMap']);
    expect(results.filter((r) => r.severity === 'warning')).toEqual([]);
  });

  it('an element upstream deleted goes without a conflict when local only dropped its default protocol', () => {
    const origin = service('  - name: http\n    port: 80\n  - name: dns\n    port: 53\n    protocol: TCP\n');
    const { items, messages } = merge1(origin, service('  - name: http\n    port: 80\n'), service('  - name: http\n    port: 80\n  - name: dns\n    port: 53\n'));
    expect(items[0]!.spec.ports).toEqual([{ name: 'http', port: 80 }]);
    expect(conflicts(messages)).toEqual([]);
  });
});

describe('rule 5: upstream comment changes', () => {
  const cm = (data: string, labelsFoot = '') =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: ns # kpt-set: \${namespace}\n  labels:\n    app: c\n${labelsFoot}data:\n${data}`;

  it('are taken on fields local changed neither in value nor comment: line, head and foot', () => {
    const origin = cm('  class: standard # {"$kpt-set":"storage-class"}\n  size: 1Gi\n');
    const upstream = cm('  # the storage class\n  class: standard # kpt-set: ${storage-class}\n  size: 1Gi\n', '    # end of labels\n').replace(' # kpt-set: ${namespace}', '');
    const local = cm('  class: standard # {"$kpt-set":"storage-class"}\n  size: 5Gi\n');
    const { output, messages } = merge1(origin, upstream, local);
    expect(output).toContain('  namespace: ns\n');
    expect(output).toContain('    # the storage class\n    class: standard # kpt-set: ${storage-class}\n    size: 5Gi\n');
    expect(output).toContain('      app: c\n      # end of labels\n');
    expect(conflicts(messages)).toEqual([]);
  });

  it('never override a local value or a local comment, and never count as conflicts', () => {
    const origin = cm('  class: standard # {"$kpt-set":"storage-class"}\n  size: 1Gi # kpt-set: ${size}\n');
    const upstream = cm('  class: standard # kpt-set: ${storage-class}\n  size: 1Gi # kpt-set: ${storage-size}\n');
    const local = cm('  class: premium # {"$kpt-set":"storage-class"}\n  size: 1Gi # mine\n');
    const { output, messages } = merge1(origin, upstream, local);
    expect(output).toContain('    class: premium # {"$kpt-set":"storage-class"}\n    size: 1Gi # mine\n');
    expect(conflicts(messages)).toEqual([]);
  });

  it('come with a value upstream changed where local did not, on the key too', () => {
    const origin = cm('  size: 1Gi\n');
    const { output } = merge1(origin, cm('  # grown\n  size: 2Gi # kpt-set: ${size}\n'), origin);
    expect(output).toContain('    # grown\n    size: 2Gi # kpt-set: ${size}\n');
  });
});

describe('rule 6: the cnrm.cloud.google.com/blueprint annotation', () => {
  const network = (blueprint: string | undefined, mode = 'GLOBAL') =>
    `apiVersion: compute.cnrm.cloud.google.com/v1beta1\nkind: ComputeNetwork\nmetadata:\n  name: net\n${blueprint === undefined ? '' : `  annotations:\n    cnrm.cloud.google.com/blueprint: ${blueprint}\n`}spec:\n  routingMode: ${mode}\n`;

  it("takes upstream's new value over what kpt pkg get appended", () => {
    const { items, messages } = merge1(network('cnrm/acm/v0.1.0'), network('cnrm/acm/v0.1.1'), network('cnrm/acm/v0.1.0,kpt-pkg'));
    expect(items[0]!.metadata.annotations['cnrm.cloud.google.com/blueprint']).toBe('cnrm/acm/v0.1.1');
    expect(conflicts(messages)).toEqual([]);
  });

  it('takes the annotation where upstream adds it over the bare kpt-pkg kpt pkg get wrote', () => {
    const { items } = merge1(network(undefined), network('cnrm/acm/v0.1.1'), network('kpt-pkg'));
    expect(items[0]!.metadata.annotations['cnrm.cloud.google.com/blueprint']).toBe('cnrm/acm/v0.1.1');
  });

  it('keeps the fetched value where upstream did not change it', () => {
    const { items } = merge1(network('cnrm/acm/v0.1.0'), network('cnrm/acm/v0.1.0', 'REGIONAL'), network('cnrm/acm/v0.1.0,kpt-pkg'));
    expect(items[0]!.metadata.annotations['cnrm.cloud.google.com/blueprint']).toBe('cnrm/acm/v0.1.0,kpt-pkg');
    expect(items[0]!.spec.routingMode).toBe('REGIONAL');
  });

  it('does not by itself make a resource deleted upstream count as changed locally', () => {
    const other = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\ndata:\n  k: v\n';
    const { items, messages } = merge({ origin: [network('cnrm/acm/v0.0.1'), other], upstream: [other], local: [network('cnrm/acm/v0.1.0,kpt-pkg'), other] });
    expect(items.map((i) => i.metadata.name)).toEqual(['kept']);
    expect(messages.filter((m) => m.includes('changed locally'))).toEqual([]);
  });

  it('still keeps a resource deleted upstream that local changed besides its attribution', () => {
    const other = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\ndata:\n  k: v\n';
    const { items } = merge({ origin: [network('cnrm/acm/v0.0.1'), other], upstream: [other], local: [network('cnrm/acm/v0.1.0,kpt-pkg', 'REGIONAL'), other] });
    expect(items.map((i) => i.metadata.name).sort()).toEqual(['kept', 'net']);
  });

  it('merges a value local set as an ordinary field', () => {
    const { items, messages } = merge1(network('cnrm/acm/v0.1.0'), network('cnrm/acm/v0.1.1'), network('mine/v2'));
    expect(items[0]!.metadata.annotations['cnrm.cloud.google.com/blueprint']).toBe('cnrm/acm/v0.1.1');
    expect(conflicts(messages)).toEqual([expect.stringMatching(/metadata\.annotations\["cnrm\.cloud\.google\.com\/blueprint"\] was changed locally and upstream/)]);
  });
});

describe('rule 7: one identity in two files of a package', () => {
  const svc = (id: string) =>
    `apiVersion: serviceusage.cnrm.cloud.google.com/v1beta1\nkind: Service\nmetadata:\n  name: gkehub\n  namespace: platform\nspec:\n  resourceID: ${id}\n`;
  const versions = (origin: [string, string], upstream: [string, string], local: [string, string], paths: [string, string] = ['api.yaml', 'services.yaml']) =>
    run(
      resourceList([
        tagged(svc(local[0]), undefined, paths[0]),
        tagged(svc(local[1]), undefined, paths[1]),
        tagged(svc(origin[0]), 'original', 'api.yaml'),
        tagged(svc(origin[1]), 'original', 'services.yaml'),
        tagged(svc(upstream[0]), 'updated', 'api.yaml'),
        tagged(svc(upstream[1]), 'updated', 'services.yaml'),
      ]),
    );
  const byPath = (items: Record<string, any>[]) => Object.fromEntries(items.map((i) => [i.metadata.annotations['internal.config.kubernetes.io/path'], i.spec.resourceID]));

  it('merges each copy with the copies at its path and warns naming the duplicate', () => {
    const { exitCode, items, results } = versions(['a', 'b'], ['a2', 'b'], ['a', 'b-local']);
    expect(exitCode).toBe(0);
    expect(byPath(items)).toEqual({ 'api.yaml': 'a2', 'services.yaml': 'b-local' });
    expect(results).toContainEqual(
      expect.objectContaining({ severity: 'warning', message: expect.stringMatching(/Service platform\/gkehub is declared more than once .*api\.yaml, services\.yaml.*merged apart by file path/) }),
    );
  });

  it('follows a copy local moved to another file', () => {
    const { items } = versions(['a', 'b'], ['a2', 'b2'], ['a', 'b'], ['api.yaml', 'moved.yaml']);
    expect(byPath(items)).toEqual({ 'api.yaml': 'a2', 'moved.yaml': 'b2' });
  });

  it('is still an error within one file, where nothing tells the copies apart', () => {
    const { exitCode, messages } = versions(['a', 'b'], ['a2', 'b'], ['a', 'b'], ['api.yaml', 'api.yaml']);
    expect(exitCode).toBe(1);
    expect(messages.join('\n')).toMatch(/two local resources have the same identity/);
  });
});

describe('rule 8: two ports with one name', () => {
  const ports = (grpc: number) => `  - name: http\n    port: 80\n  - name: grpc\n    port: ${grpc}\n`;

  it("is a conflict naming both elements and their origins; upstream's stays, local's goes", () => {
    const { items, messages } = merge1(service(ports(9000)), service(ports(9090)), service(ports(8081)));
    expect(items[0]!.spec.ports).toEqual([{ name: 'http', port: 80 }, { name: 'grpc', port: 9090 }]);
    expect(conflicts(messages)).toEqual([
      expect.stringMatching(/spec\.ports would hold two elements with name grpc: \[port=8081,protocol=TCP\] from local and \[port=9090,protocol=TCP\] from upstream/),
    ]);
  });

  it('with conflicts: error, it is an error', () => {
    const { exitCode, results } = merge1(service(ports(9000)), service(ports(9090)), service(ports(8081)), ERROR_ON_CONFLICT);
    expect(exitCode).toBe(1);
    expect(results.some((r) => r.severity === 'error' && /two elements with name grpc/.test(String(r.message)))).toBe(true);
  });

  it('a container port local renamed onto the name of a port upstream added gives way to upstream', () => {
    const port = (list: string) => deploy(`        ports:\n${list}`);
    const origin = port('        - containerPort: 80\n          name: http\n');
    const upstream = port('        - containerPort: 80\n          name: http\n        - containerPort: 9090\n          name: metrics\n');
    const local = port('        - containerPort: 80\n          name: metrics\n');
    const { items, messages } = merge1(origin, upstream, local);
    expect(items[0]!.spec.template.spec.containers[0].ports).toEqual([{ containerPort: 80, name: 'http' }, { containerPort: 9090, name: 'metrics' }]);
    expect(conflicts(messages)).toHaveLength(1);
  });
});
