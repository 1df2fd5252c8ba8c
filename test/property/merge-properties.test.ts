/**
 * Property tests of the three-way merge (README "Merging upstream changes").
 *
 * Packages are generated the way real ones come about: an origin package of Deployments,
 * StatefulSets, Services, ConfigMaps and a CRD with one of its custom resources; upstream and local
 * are derived from it by random edits (change a scalar, add or remove a map key, add, remove or
 * reorder a keyed element, toggle an explicit key default, add or remove a resource, set a field to
 * null). Each version is rendered as YAML text with its own styling (flow collections, quoting,
 * comments), tagged with `config.kubernetes.io/merge-source` and run through the function.
 *
 * Generators draw through fast-check's `gen()`, so a failure shrinks to few resources and edits;
 * its message prints the three versions and what came out. Seeds are fixed: CI is deterministic.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { Document, isMap, isScalar, isSeq, parse, parseDocument, stringify, type Node, type YAMLSeq } from 'yaml';
import { normalise } from '../conformance/merge3-cases';
import { resourceList, runFunction } from '../helpers';

// ---------------------------------------------------------------------------------------------
// Data, and what the schema says about the positions the generators produce
// ---------------------------------------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | JsonMap;
interface JsonMap {
  [key: string]: Json;
}
type Resource = JsonMap;
type Pkg = Resource[];

const PATH = 'internal.config.kubernetes.io/path';
const INDEX = 'internal.config.kubernetes.io/index';
const MERGE_SOURCE = 'config.kubernetes.io/merge-source';

const isObj = (v: Json | undefined): v is JsonMap => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasValue = (v: Json | undefined): boolean => v !== undefined && v !== null;
const deepEq = (a: Json | undefined, b: Json | undefined): boolean => isDeepStrictEqual(a, b);
// JSON, not structuredClone: under jest that makes objects of another realm, which isDeepStrictEqual tells apart.
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

const WORKLOADS = new Set(['Deployment', 'StatefulSet']);
const CONTAINERS = 'spec.template.spec.containers';

/** How a list is merged: keyed (with its identity function, defaults applied), a set, or atomic. */
type ListRule = { keys: string[]; id: (element: JsonMap) => string } | 'set' | 'atomic';

function keyed(keys: string[], defaults: Record<string, string> = {}): ListRule {
  return { keys, id: (e) => keys.map((k) => String(e[k] ?? defaults[k])).join('/') };
}

/** `fp` is the field path with `[]` for list elements, e.g. spec.template.spec.containers.[].ports. */
function listRule(kind: string, fp: readonly string[]): ListRule {
  const p = fp.join('.');
  if (WORKLOADS.has(kind)) {
    if (p === CONTAINERS) return keyed(['name']);
    if (p === `${CONTAINERS}.[].env`) return keyed(['name']);
    if (p === `${CONTAINERS}.[].ports`) return keyed(['containerPort', 'protocol'], { protocol: 'TCP' });
  }
  if (kind === 'Service' && p === 'spec.ports') return keyed(['port', 'protocol'], { protocol: 'TCP' });
  if (kind === 'Widget' && p === 'spec.items') return keyed(['id', 'zone'], { zone: 'default' });
  if (kind === 'Widget' && p === 'spec.tags') return 'set';
  return 'atomic';
}

/** The explicit-default key of a keyed element kind, which may be present or omitted. */
function defaultKey(kind: string, listFp: readonly string[]): { key: string; value: string } | undefined {
  const p = listFp.join('.');
  if ((WORKLOADS.has(kind) && p === `${CONTAINERS}.[].ports`) || (kind === 'Service' && p === 'spec.ports')) return { key: 'protocol', value: 'TCP' };
  if (kind === 'Widget' && p === 'spec.items') return { key: 'zone', value: 'default' };
  return undefined;
}

function isKeyField(kind: string, fp: readonly string[]): boolean {
  if (fp.length < 2 || fp[fp.length - 2] !== '[]') return false;
  const rule = listRule(kind, fp.slice(0, -2));
  return typeof rule === 'object' && rule.keys.includes(fp[fp.length - 1]!);
}

type Shape = 'map' | 'keyed' | 'leaf';

function shape(kind: string, fp: readonly string[], v: Json | undefined): Shape {
  if (isObj(v)) return 'map';
  if (Array.isArray(v) && typeof listRule(kind, fp) === 'object') return 'keyed';
  return 'leaf';
}

/** Children by identity: `.field` for map fields, `[key]` for keyed elements. */
function children(kind: string, fp: readonly string[], v: Json | undefined): Map<string, { v: Json; fp: string[] }> {
  const out = new Map<string, { v: Json; fp: string[] }>();
  if (isObj(v)) for (const [k, x] of Object.entries(v)) out.set(`.${k}`, { v: x, fp: [...fp, k] });
  else if (Array.isArray(v)) {
    const rule = listRule(kind, fp);
    if (typeof rule === 'object') for (const e of v) out.set(`[${rule.id(e as JsonMap)}]`, { v: e, fp: [...fp, '[]'] });
  }
  return out;
}

function identity(r: Json): string {
  const m = r as JsonMap;
  const meta = m.metadata as JsonMap;
  const group = String(m.apiVersion).includes('/') ? String(m.apiVersion).split('/')[0] : '';
  return `${group}|${String(m.kind)}|${String(meta.namespace ?? '')}|${String(meta.name)}`;
}

const fileOf = (r: Resource) => `${String(r.kind).toLowerCase()}-${String((r.metadata as JsonMap).name)}.yaml`;

// ---------------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------------

/** Draws through fast-check's gen(): every choice shrinks towards its first / smallest option. */
interface G {
  int(min: number, max: number): number;
  pick<T>(xs: readonly T[]): T;
  /** True with probability p; shrinks to false. */
  bool(p?: number): boolean;
}

function drawer(g: fc.GeneratorValue): G {
  const int = (min: number, max: number) => (max <= min ? min : g(fc.integer, { min, max }));
  return {
    int,
    pick: (xs) => xs[int(0, xs.length - 1)]!,
    bool: (p = 0.5) => int(0, 99) >= 100 - p * 100,
  };
}

/** Strings Kubernetes (YAML 1.1) reads differently from YAML 1.2, and some that need quoting. */
const YAML11 = ['on', 'off', 'yes', 'no', 'y', 'N', 'true', 'False', '0755', '010', '1e3', '0x1F', '12:30', '1_000', '~', 'null', '', '3.0', '.inf', '2024-01-01', '+1'];
const TEXT = ['nginx', 'v1', 'hello world', 'a: b', '#hash', "it's", '- dash', '{braces}', 'x,y', '  padded', 'line one\nline two\n'];
const VALUES = [...TEXT.slice(0, 2), ...YAML11, ...TEXT.slice(2)];
const LABEL_KEYS = ['app', 'tier', 'team', 'env', 'app.kubernetes.io/name', 'example.com/on'];
const ANNOTATION_KEYS = ['note', 'owner', 'example.com/checksum', 'example.com/yes'];
const DATA_KEYS = ['mode', 'flag', 'perm', 'ratio', 'time', 'config.yaml', 'empty', 'enabled'];
const IMAGES = ['nginx:1.25', 'nginx:1.27', 'busybox', 'registry.example.com/app:0755', 'app@sha256:1e3'];
const ARGS = ['--port=80', '--verbose', 'on', '0755', '--mode=1e3', '-v'];
const ENV_NAMES = ['MODE', 'DEBUG', 'PORT', 'LEVEL', 'FLAG'];
const CONTAINER_NAMES = ['app', 'sidecar', 'proxy', 'init'];
const PORTS = [80, 443, 8080, 53];
const PROTOCOLS: (string | undefined)[] = [undefined, 'TCP', 'UDP'];
const PORT_NAMES = ['http', 'https', 'dns', 'metrics'];
const QUANTITY_KEYS = ['cpu', 'memory', 'ephemeral-storage'];
const QUANTITIES: Json[] = ['100m', '250m', '64Mi', '1Gi', 1, 2, '0.5'];
const TAGS = ['a', 'b', 'on', '0755', 'x y'];
const WIDGET_IDS = ['w1', 'w2', 'on', '007'];
const ZONES: (string | undefined)[] = [undefined, 'default', 'b'];
const INTS = [0, 1, 2, 3, 5, 30, 600];

const NAMES: Record<string, string[]> = {
  Deployment: ['web', 'api', 'worker'],
  StatefulSet: ['db', 'cache'],
  Service: ['web', 'api', 'db'],
  ConfigMap: ['settings', 'flags', 'web'],
  Widget: ['alpha', 'beta', 'gamma'],
};
const KINDS = ['ConfigMap', 'Deployment', 'Service', 'Widget', 'StatefulSet'];
const API_VERSIONS: Record<string, string> = { Deployment: 'apps/v1', StatefulSet: 'apps/v1', Service: 'v1', ConfigMap: 'v1', Widget: 'example.com/v1' };

/**
 * The CRD whose schema keys `spec.items` by id and zone (zone defaulted) and makes `spec.tags` a set.
 * Kept small: it is in every version of every package, and parsing is most of a run's time.
 */
const WIDGET_CRD: Resource = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    names: { kind: 'Widget', plural: 'widgets' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
                  items: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['id', 'zone'],
                    items: { type: 'object', properties: { id: { type: 'string' }, zone: { type: 'string', default: 'default' } } },
                  },
                },
              },
            },
          },
        },
      },
    ],
  },
};

function strMap(g: G, keys: readonly string[], values: readonly Json[], min: number, max: number): JsonMap {
  const out: JsonMap = {};
  const n = g.int(min, max);
  for (let i = 0; i < n; i += 1) out[g.pick(keys)] = g.pick(values);
  return out;
}

/** Elements with unique identities: draws n candidates, keeps those whose id is new. */
function uniqueList(g: G, min: number, max: number, make: () => JsonMap, id: (e: JsonMap) => string): JsonMap[] {
  const out: JsonMap[] = [];
  const n = g.int(min, max);
  for (let i = 0; i < n; i += 1) {
    const e = make();
    if (!out.some((x) => id(x) === id(e))) out.push(e);
  }
  return out;
}

const genEnv = (g: G, name: string): JsonMap => ({ name, value: g.pick(VALUES) });
function genPort(g: G, portField: 'containerPort' | 'port', port: number, protocol: string | undefined): JsonMap {
  const e: JsonMap = { [portField]: port };
  if (protocol !== undefined) e.protocol = protocol;
  if (g.bool(0.3)) e.name = g.pick(PORT_NAMES);
  if (portField === 'port' && g.bool(0.5)) e.targetPort = g.pick<Json>([8080, 'http']);
  return e;
}
const portId = (field: string) => (e: JsonMap) => `${String(e[field])}/${String(e.protocol ?? 'TCP')}`;
const genQuantities = (g: G): JsonMap => strMap(g, QUANTITY_KEYS, QUANTITIES, 1, 2);

function genContainer(g: G, name: string): JsonMap {
  const c: JsonMap = { name, image: g.pick(IMAGES) };
  if (g.bool(0.4)) c.args = Array.from({ length: g.int(1, 3) }, () => g.pick(ARGS));
  if (g.bool(0.5)) c.env = uniqueList(g, 1, 3, () => genEnv(g, g.pick(ENV_NAMES)), (e) => String(e.name));
  if (g.bool(0.5)) c.ports = uniqueList(g, 1, 2, () => genPort(g, 'containerPort', g.pick(PORTS), g.pick(PROTOCOLS)), portId('containerPort'));
  if (g.bool(0.4)) {
    // `resources: {}` is what kubectl and most generators write.
    c.resources = g.bool(0.4) ? {} : { limits: genQuantities(g), ...(g.bool(0.5) ? { requests: genQuantities(g) } : {}) };
  }
  if (g.bool(0.2)) c.imagePullPolicy = g.pick(['IfNotPresent', 'Always']);
  return c;
}

function genMetadata(g: G, name: string): JsonMap {
  const m: JsonMap = { name };
  if (g.bool(0.25)) m.namespace = g.pick(['prod', 'staging']);
  if (g.bool(0.6)) m.labels = strMap(g, LABEL_KEYS, VALUES, 1, 3);
  if (g.bool(0.4)) m.annotations = strMap(g, ANNOTATION_KEYS, VALUES, 1, 2);
  // kubectl's explicit null.
  if (g.bool(0.15)) m.creationTimestamp = null;
  return m;
}

function genPodTemplate(g: G, app: string): JsonMap {
  const metadata: JsonMap = { labels: { app } };
  if (g.bool(0.2)) metadata.creationTimestamp = null;
  const spec: JsonMap = { containers: uniqueList(g, 1, 3, () => genContainer(g, g.pick(CONTAINER_NAMES)), (c) => String(c.name)) };
  if (g.bool(0.2)) spec.nodeSelector = strMap(g, LABEL_KEYS, VALUES, 1, 2);
  if (g.bool(0.2)) spec.terminationGracePeriodSeconds = g.pick(INTS);
  return { metadata, spec };
}

const genVolumeClaim = (g: G): JsonMap => ({
  metadata: { name: g.pick(['data', 'logs']) },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: g.pick(['1Gi', '10Gi']) } } },
});

function genResource(g: G, kind: string, name: string): Resource {
  const head: Resource = { apiVersion: API_VERSIONS[kind]!, kind, metadata: genMetadata(g, name) };
  switch (kind) {
    case 'Deployment': {
      const spec: JsonMap = {};
      if (g.bool(0.6)) spec.replicas = g.pick(INTS);
      spec.selector = { matchLabels: { app: name } };
      spec.template = genPodTemplate(g, name);
      if (g.bool(0.2)) spec.strategy = { type: g.pick(['RollingUpdate', 'Recreate']) };
      return { ...head, spec, ...(g.bool(0.15) ? { status: {} } : {}) };
    }
    case 'StatefulSet': {
      const spec: JsonMap = { serviceName: name, replicas: g.pick(INTS), selector: { matchLabels: { app: name } }, template: genPodTemplate(g, name) };
      if (g.bool(0.5)) spec.volumeClaimTemplates = [genVolumeClaim(g)];
      return { ...head, spec };
    }
    case 'Service': {
      const spec: JsonMap = { selector: { app: name }, ports: uniqueList(g, 1, 3, () => genPort(g, 'port', g.pick(PORTS), g.pick(PROTOCOLS)), portId('port')) };
      if (g.bool(0.3)) spec.type = g.pick(['ClusterIP', 'NodePort']);
      return { ...head, spec };
    }
    case 'ConfigMap':
      return { ...head, data: strMap(g, DATA_KEYS, VALUES, 1, 4) };
    default: {
      const spec: JsonMap = {};
      if (g.bool(0.5)) spec.size = g.pick(INTS);
      if (g.bool(0.3)) spec.mode = g.pick(VALUES);
      if (g.bool(0.3)) spec.config = strMap(g, DATA_KEYS, VALUES, 1, 2);
      if (g.bool(0.4)) spec.tags = [...new Set(Array.from({ length: g.int(1, 3) }, () => g.pick(TAGS)))];
      spec.items = uniqueList(g, 1, 3, () => genWidgetItem(g, g.pick(WIDGET_IDS), g.pick(ZONES)), (e) => `${String(e.id)}/${String(e.zone ?? 'default')}`);
      return { ...head, spec };
    }
  }
}

function genWidgetItem(g: G, id: string, zone: string | undefined): JsonMap {
  const e: JsonMap = { id };
  if (zone !== undefined) e.zone = zone;
  if (g.bool(0.5)) e.size = g.pick(INTS);
  if (g.bool(0.3)) e.enabled = g.bool();
  if (g.bool(0.3)) e.note = g.pick(VALUES);
  return e;
}

function genPackage(g: G): Pkg {
  const pkg: Pkg = [clone(WIDGET_CRD)];
  const count = g.int(1, 3);
  for (let i = 0; i < count; i += 1) {
    const kind = g.pick(KINDS);
    const name = NAMES[kind]!.find((n) => !pkg.some((r) => r.kind === kind && (r.metadata as JsonMap).name === n));
    if (name) pkg.push(genResource(g, kind, name));
  }
  return uniquePortNames(pkg);
}

/** The port lists of a resource (Service ports, each container's ports). */
function portLists(r: Resource): JsonMap[][] {
  const spec = r.spec as JsonMap | undefined;
  if (r.kind === 'Service') return Array.isArray(spec?.ports) ? [spec.ports as JsonMap[]] : [];
  if (!WORKLOADS.has(String(r.kind))) return [];
  const pod = ((spec?.template as JsonMap | undefined)?.spec as JsonMap | undefined) ?? {};
  return (Array.isArray(pod.containers) ? (pod.containers as JsonMap[]) : []).flatMap((c) => (Array.isArray(c.ports) ? [c.ports as JsonMap[]] : []));
}

/** A valid version names each port of a list once (Kubernetes rejects two with one name): later namesakes lose the name. */
function uniquePortNames(pkg: Pkg): Pkg {
  for (const list of pkg.flatMap(portLists)) {
    const seen = new Set<Json>();
    for (const port of list) {
      if (port.name === undefined) continue;
      if (seen.has(port.name)) delete port.name;
      else seen.add(port.name);
    }
  }
  return pkg;
}

// --- edits -------------------------------------------------------------------------------------

type Container = JsonMap | Json[];

/** One position in a resource: `container[key]`, with the chain of positions above it. */
interface Pos {
  kind: string;
  container: Container;
  key: string | number;
  fp: string[];
  /** Positions from the resource root down to this one's parent. */
  above: { container: Container; key: string | number }[];
}

const valueAt = (p: { container: Container; key: string | number }): Json => (p.container as Record<string | number, Json>)[p.key]!;

function positions(r: Resource): Pos[] {
  const kind = String(r.kind);
  const out: Pos[] = [];
  const walk = (container: Container, fp: string[], above: Pos['above']) => {
    const entries: [string | number, Json][] = Array.isArray(container) ? container.map((v, i) => [i, v]) : Object.entries(container);
    for (const [key, value] of entries) {
      const childFp = [...fp, typeof key === 'number' ? '[]' : key];
      out.push({ kind, container, key, fp: childFp, above });
      if (typeof value === 'object' && value !== null) walk(value, childFp, [...above, { container, key }]);
    }
  };
  walk(r, [], []);
  return out;
}

function parentList(p: Pos): Json[] | undefined {
  return Array.isArray(p.container) ? p.container : undefined;
}

/** Only the CRD's labels and annotations change: its schema is what the merge keys Widget lists by. */
function editable(p: Pos): boolean {
  if (p.kind !== 'CustomResourceDefinition') return true;
  return p.fp[0] === 'metadata' && (p.fp[1] === 'labels' || p.fp[1] === 'annotations');
}

/** Fields that may be removed or set to null: not identity, not list keys, not the containers. */
function removable(p: Pos): boolean {
  if (Array.isArray(p.container) || !editable(p) || isKeyField(p.kind, p.fp)) return false;
  const path = p.fp.join('.');
  if (p.fp.length === 1) return (p.kind === 'ConfigMap' && path === 'data') || path === 'status';
  if (path === 'metadata.name' || path === 'metadata.namespace') return false;
  return path !== 'spec.template' && path !== 'spec.template.spec' && path !== CONTAINERS;
}

/** Removes a position; maps and lists it leaves empty go too, up to the resource root. */
function removeAt(p: { container: Container; key: string | number }, above: Pos['above']): void {
  if (Array.isArray(p.container)) p.container.splice(p.key as number, 1);
  else delete p.container[p.key as string];
  let emptied = p.container;
  for (let i = above.length - 1; i >= 0; i -= 1) {
    const parent = above[i]!;
    const empty = Array.isArray(emptied) ? emptied.length === 0 : Object.keys(emptied).length === 0;
    if (!empty || Array.isArray(parent.container)) return;
    delete parent.container[parent.key as string];
    emptied = parent.container;
  }
}

function setAt(p: { container: Container; key: string | number }, value: Json): void {
  (p.container as Record<string | number, Json>)[p.key] = value;
}

/** Inserts a key into a map after the pair at `at`, keeping the rest of the order. */
function insertKey(map: JsonMap, key: string, value: Json, at: number): void {
  const entries = Object.entries(map);
  entries.splice(Math.min(at, entries.length), 0, [key, value]);
  for (const k of Object.keys(map)) delete map[k];
  for (const [k, v] of entries) map[k] = v;
}

/** Optional fields a struct at `fp` may gain, with generators. */
function optionalFields(kind: string, fp: readonly string[]): Record<string, (g: G) => Json> {
  const p = fp.join('.');
  const labels = (g: G) => strMap(g, LABEL_KEYS, VALUES, 1, 2);
  const annotations = (g: G) => strMap(g, ANNOTATION_KEYS, VALUES, 1, 2);
  if (p === 'metadata' || p === 'spec.template.metadata') return { labels, annotations };
  if (kind === 'CustomResourceDefinition') return {};
  if (WORKLOADS.has(kind)) {
    if (p === 'spec' && kind === 'Deployment') return { replicas: (g) => g.pick(INTS), minReadySeconds: (g) => g.pick(INTS), paused: (g) => g.bool(), strategy: (g) => ({ type: g.pick(['RollingUpdate', 'Recreate']) }) };
    if (p === 'spec') return { replicas: (g) => g.pick(INTS), podManagementPolicy: (g) => g.pick(['OrderedReady', 'Parallel']), volumeClaimTemplates: (g) => [genVolumeClaim(g)] };
    if (p === 'spec.template.spec') return { nodeSelector: labels, serviceAccountName: (g) => g.pick(['default', 'builder']), terminationGracePeriodSeconds: (g) => g.pick(INTS) };
    if (p === `${CONTAINERS}.[]`) {
      return {
        image: (g) => g.pick(IMAGES),
        imagePullPolicy: (g) => g.pick(['IfNotPresent', 'Always']),
        args: (g) => [g.pick(ARGS)],
        env: (g) => [genEnv(g, g.pick(ENV_NAMES))],
        ports: (g) => [genPort(g, 'containerPort', g.pick(PORTS), g.pick(PROTOCOLS))],
        resources: (g) => ({ limits: genQuantities(g) }),
        workingDir: (g) => g.pick(['/srv', '/0755']),
      };
    }
    if (p === `${CONTAINERS}.[].env.[]`) return { value: (g) => g.pick(VALUES) };
    if (p === `${CONTAINERS}.[].ports.[]`) return { name: (g) => g.pick(PORT_NAMES), hostPort: (g) => g.pick(PORTS) };
    if (p === `${CONTAINERS}.[].resources`) return { limits: genQuantities, requests: genQuantities };
  }
  if (kind === 'Service') {
    if (p === 'spec') return { type: (g) => g.pick(['ClusterIP', 'NodePort']), sessionAffinity: (g) => g.pick(['None', 'ClientIP']), selector: labels };
    if (p === 'spec.ports.[]') return { name: (g) => g.pick(PORT_NAMES), targetPort: (g) => g.pick<Json>([8080, 'http']) };
  }
  if (kind === 'ConfigMap' && p === '') return { data: (g) => strMap(g, DATA_KEYS, VALUES, 1, 2) };
  if (kind === 'Widget') {
    if (p === 'spec') return { size: (g) => g.pick(INTS), mode: (g) => g.pick(VALUES), config: (g) => strMap(g, DATA_KEYS, VALUES, 1, 2), tags: (g) => [g.pick(TAGS)] };
    if (p === 'spec.items.[]') return { size: (g) => g.pick(INTS), enabled: (g) => g.bool(), note: (g) => g.pick(VALUES) };
  }
  return {};
}

/** Maps with free-form keys, and the keys and values they take. */
function freeMap(kind: string, fp: readonly string[]): { keys: readonly string[]; values: readonly Json[] } | undefined {
  const p = fp.join('.');
  const last = fp[fp.length - 1];
  if (last === 'labels' || last === 'matchLabels' || last === 'nodeSelector' || (kind === 'Service' && p === 'spec.selector')) return { keys: LABEL_KEYS, values: VALUES };
  if (last === 'annotations') return { keys: ANNOTATION_KEYS, values: VALUES };
  if (kind === 'CustomResourceDefinition') return undefined;
  if (last === 'limits' || last === 'requests') return p.startsWith(CONTAINERS) ? { keys: QUANTITY_KEYS, values: QUANTITIES } : undefined;
  if ((kind === 'ConfigMap' && p === 'data') || (kind === 'Widget' && p === 'spec.config')) return { keys: DATA_KEYS, values: VALUES };
  return undefined;
}

function scalarPool(fieldName: string, current: Json): readonly Json[] {
  if (typeof current === 'number') return INTS.concat(PORTS);
  if (typeof current === 'boolean') return [true, false];
  const pools: Record<string, readonly Json[]> = { image: IMAGES, args: ARGS, cpu: QUANTITIES, memory: QUANTITIES, storage: ['1Gi', '10Gi', '0755'], name: PORT_NAMES };
  return (pools[fieldName] ?? VALUES).filter((v) => typeof v === 'string');
}

/** A new element for a list, with an identity no element has; undefined when none is left. */
function newElement(g: G, kind: string, listFp: readonly string[], list: Json[]): Json | undefined {
  const rule = listRule(kind, listFp);
  const p = listFp.join('.');
  if (rule === 'set') {
    const fresh = TAGS.filter((t) => !list.includes(t));
    return fresh.length ? g.pick(fresh) : undefined;
  }
  if (rule === 'atomic') return p.endsWith('.args') ? g.pick(ARGS) : undefined;
  const taken = new Set(list.map((e) => rule.id(e as JsonMap)));
  let candidates: JsonMap[] = [];
  if (p === CONTAINERS) candidates = CONTAINER_NAMES.map((name) => ({ name }));
  else if (p.endsWith('.env')) candidates = ENV_NAMES.map((name) => ({ name }));
  else if (p.endsWith('ports')) {
    const field = p === 'spec.ports' ? 'port' : 'containerPort';
    candidates = PORTS.flatMap((port) => PROTOCOLS.map((protocol) => ({ [field]: port, ...(protocol ? { protocol } : {}) })));
  } else if (p === 'spec.items') candidates = WIDGET_IDS.flatMap((id) => ZONES.map((zone) => ({ id, ...(zone ? { zone } : {}) })));
  const fresh = candidates.filter((c) => !taken.has(rule.id(c)));
  if (!fresh.length) return undefined;
  const k = g.pick(fresh);
  if (p === CONTAINERS) return genContainer(g, String(k.name));
  if (p.endsWith('.env')) return genEnv(g, String(k.name));
  if (p.endsWith('ports')) return genPort(g, p === 'spec.ports' ? 'port' : 'containerPort', Number(k.port ?? k.containerPort), k.protocol as string | undefined);
  return genWidgetItem(g, String(k.id), k.zone as string | undefined);
}

const EDITS = ['change-scalar', 'add-key', 'remove-key', 'add-element', 'remove-element', 'reorder', 'toggle-default-key', 'add-resource', 'remove-resource'] as const;
type Edit = (typeof EDITS)[number] | 'set-null';

/** Applies one edit to a package in place; returns a description, or undefined when nothing fits. */
function applyEdit(g: G, pkg: Pkg, edit: Edit): string | undefined {
  if (edit === 'add-resource') {
    const options = KINDS.flatMap((kind) => NAMES[kind]!.filter((name) => !pkg.some((r) => r.kind === kind && (r.metadata as JsonMap).name === name)).map((name) => ({ kind, name })));
    if (!options.length) return undefined;
    const { kind, name } = g.pick(options);
    pkg.splice(g.int(1, pkg.length), 0, genResource(g, kind, name));
    return `add ${kind} ${name}`;
  }
  if (edit === 'remove-resource') {
    const options = pkg.filter((r) => r.kind !== 'CustomResourceDefinition');
    if (!options.length) return undefined;
    const r = g.pick(options);
    pkg.splice(pkg.indexOf(r), 1);
    return `remove ${identity(r)}`;
  }
  const resource = g.pick(pkg);
  const all = positions(resource).filter(editable);
  const where = (p: Pos) => `${identity(resource)} ${p.fp.join('.')}`;
  switch (edit) {
    case 'change-scalar': {
      const options = all.filter((p) => {
        const v = valueAt(p);
        if (!(typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') || isKeyField(p.kind, p.fp)) return false;
        if (p.fp.length === 1 || p.fp.join('.') === 'metadata.name' || p.fp.join('.') === 'metadata.namespace') return false;
        return !parentList(p) || listRule(p.kind, p.fp.slice(0, -1)) === 'atomic';
      });
      if (!options.length) return undefined;
      const p = g.pick(options);
      const current = valueAt(p);
      const name = p.fp.filter((s) => s !== '[]').pop()!;
      const pool = scalarPool(name, current).filter((v) => !deepEq(v, current) && typeof v === typeof current);
      if (!pool.length) return undefined;
      setAt(p, g.pick(pool));
      return `change ${where(p)}`;
    }
    case 'add-key': {
      const maps: { map: JsonMap; fp: string[] }[] = [{ map: resource, fp: [] }];
      for (const p of all) {
        const v = valueAt(p);
        if (isObj(v)) maps.push({ map: v, fp: p.fp });
      }
      const options = maps.flatMap(({ map, fp }) => {
        const free = freeMap(String(resource.kind), fp);
        const fields = optionalFields(String(resource.kind), fp);
        const keys = free ? free.keys.filter((k) => !(k in map)) : Object.keys(fields).filter((k) => !(k in map));
        return keys.map((key) => ({ map, fp, key, make: free ? (gg: G) => gg.pick(free.values) : fields[key]! }));
      });
      if (!options.length) return undefined;
      const { map, fp, key, make } = g.pick(options);
      insertKey(map, key, make(g), g.int(0, Object.keys(map).length));
      return `add ${identity(resource)} ${[...fp, key].join('.')}`;
    }
    case 'remove-key':
    case 'set-null': {
      const options = all.filter((p) => removable(p) && (edit === 'remove-key' || (valueAt(p) !== null && p.fp.join('.') !== 'metadata.annotations')));
      if (!options.length) return undefined;
      const p = g.pick(options);
      if (edit === 'set-null') setAt(p, null);
      else removeAt(p, p.above);
      return `${edit} ${where(p)}`;
    }
    case 'add-element': {
      const options = all.filter((p) => Array.isArray(valueAt(p)));
      if (!options.length) return undefined;
      const p = g.pick(options);
      const list = valueAt(p) as Json[];
      const element = newElement(g, p.kind, p.fp, list);
      if (element === undefined) return undefined;
      list.splice(g.int(0, list.length), 0, element);
      return `add element to ${where(p)}`;
    }
    case 'remove-element': {
      const options = all.filter((p) => parentList(p) && !(p.fp.join('.') === `${CONTAINERS}.[]` && parentList(p)!.length === 1));
      if (!options.length) return undefined;
      const p = g.pick(options);
      removeAt(p, p.above);
      return `remove element of ${where(p)}`;
    }
    case 'reorder': {
      const options = all.filter((p) => Array.isArray(valueAt(p)) && (valueAt(p) as Json[]).length >= 2);
      if (!options.length) return undefined;
      const p = g.pick(options);
      const list = valueAt(p) as Json[];
      const i = g.int(0, list.length - 1);
      const j = (i + g.int(1, list.length - 1)) % list.length;
      [list[i], list[j]] = [list[j]!, list[i]!];
      return `reorder ${where(p)}`;
    }
    case 'toggle-default-key': {
      const options = all.flatMap((p) => {
        const v = valueAt(p);
        const def = parentList(p) && isObj(v) ? defaultKey(p.kind, p.fp.slice(0, -1)) : undefined;
        return def && (v as JsonMap)[def.key] === undefined ? [{ p, def, add: true }] : def && (v as JsonMap)[def.key] === def.value ? [{ p, def, add: false }] : [];
      });
      if (!options.length) return undefined;
      const { p, def, add } = g.pick(options);
      const element = valueAt(p) as JsonMap;
      if (add) element[def.key] = def.value;
      else delete element[def.key];
      return `${add ? 'add' : 'drop'} explicit ${def.key} in ${where(p)}`;
    }
  }
}

const DELETIONS: readonly Edit[] = ['remove-key', 'remove-element', 'remove-resource'];

/** A version derived from origin: first a few fields set to null, then other edits (of the kinds given). */
function derive(g: G, origin: Pkg, log: string[], kinds: readonly Edit[] = EDITS): Pkg {
  const pkg = clone(origin);
  // Nulls go first so that they land on fields origin has: a null inside a subtree an edit adds
  // is a case the README leaves open (is it "an upstream null" or part of a new value?).
  const nulls = g.bool(0.3) ? g.int(1, 2) : 0;
  for (let i = 0; i < nulls; i += 1) {
    const done = applyEdit(g, pkg, 'set-null');
    if (done) log.push(done);
  }
  const edits = g.int(0, 6);
  for (let i = 0; i < edits; i += 1) {
    const done = applyEdit(g, pkg, g.pick(kinds));
    if (done) log.push(done);
  }
  return uniquePortNames(pkg);
}

// ---------------------------------------------------------------------------------------------
// Rendering and running
// ---------------------------------------------------------------------------------------------

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i += 1) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * How a version is written: `shape` places flow collections and comments, `quotes` quotes strings
 * (0: plain). Quoting and flow style are never changes; comments are upstream's rewrite, taken where
 * local left a value as origin had it (README), so a version "equal to origin" shares origin's shape.
 */
interface Styling {
  shape: number;
  quotes: number;
}

function style(node: Node | null, seeds: Styling, path: string, inFlow: boolean): void {
  if (!node) return;
  const h = hash(`${seeds.shape}:${path}`);
  if (isScalar(node)) {
    const q = hash(`${seeds.quotes}:${path}`);
    if (seeds.quotes !== 0 && typeof node.value === 'string' && path !== '') {
      if (q % 5 === 0) node.type = 'QUOTE_DOUBLE';
      else if (q % 5 === 1) node.type = 'QUOTE_SINGLE';
    }
    if (seeds.shape !== 0 && !inFlow && h % 13 === 2) node.comment = ' trailing note';
    return;
  }
  if (!isMap(node) && !isSeq(node)) return;
  const scalarsOnly = (node.items as unknown[]).every((item) => (isMap(node) ? isScalar((item as { value: unknown }).value) || (item as { value: unknown }).value === null : isScalar(item)));
  const flow = inFlow || (seeds.shape !== 0 && path !== '' && scalarsOnly && h % 4 === 3);
  if (flow) node.flow = true;
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = pair.key as Node;
      const sub = `${path}.${String(isScalar(key) ? key.value : key)}`;
      if (seeds.shape !== 0 && !flow && isScalar(key) && hash(`${seeds.shape}:${sub}#`) % 11 === 0) key.commentBefore = ' a comment';
      style(pair.value as Node | null, seeds, sub, flow);
    }
  } else {
    (node as YAMLSeq).items.forEach((item, i) => style(item as Node, seeds, `${path}[${i}]`, flow));
  }
}

/** One item's YAML text: the resource with its path annotations and, for tagged versions, its source. */
function render(r: Resource, tag: 'original' | 'updated' | undefined, seeds: Styling): string {
  const data = clone(r);
  const meta = data.metadata as JsonMap;
  meta.annotations = { ...((meta.annotations as JsonMap | undefined) ?? {}), [PATH]: fileOf(r), [INDEX]: '0', ...(tag ? { [MERGE_SOURCE]: tag } : {}) };
  const doc = new Document(data);
  style(doc.contents as Node, seeds, '', false);
  return doc.toString({ lineWidth: 0 });
}

interface Scenario {
  origin: Pkg;
  upstream: Pkg;
  local: Pkg;
  log: { upstream: string[]; local: string[] };
  seeds: { origin: Styling; upstream: Styling; local: Styling; order: number };
}

/** How upstream and local relate to origin: `deletions`: each side only deleted things (fields, elements, resources, nulls). */
type Relation = 'independent' | 'upstream=origin' | 'local=origin' | 'local=upstream' | 'deletions';

function scenario(g: G, relation: Relation): Scenario {
  const origin = genPackage(g);
  const log = { upstream: [] as string[], local: [] as string[] };
  const kinds = relation === 'deletions' ? DELETIONS : EDITS;
  const upstream = relation === 'upstream=origin' ? clone(origin) : derive(g, origin, log.upstream, kinds);
  const local = relation === 'local=origin' ? clone(origin) : relation === 'local=upstream' ? clone(upstream) : derive(g, origin, log.local, kinds);
  const seed = () => (g.bool(0.8) ? g.int(1, 1_000_000) : 0);
  const styling = (): Styling => ({ shape: seed(), quotes: seed() });
  const seeds = { origin: styling(), upstream: styling(), local: styling(), order: seed() };
  if (relation === 'upstream=origin') seeds.upstream.shape = seeds.origin.shape;
  return { origin, upstream, local, log, seeds };
}

/** Deterministic shuffle (seed 0: as given). */
function shuffle<T>(xs: T[], seed: number): T[] {
  if (seed === 0) return xs;
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = hash(`${seed}/${i}`) % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

interface Input {
  text: string;
  /** Local items' texts in the order they appear in the input. */
  localTexts: string[];
  taggedTexts: string[];
}

function buildInput(s: Scenario): Input {
  const items = [
    ...s.local.map((r) => ({ text: render(r, undefined, s.seeds.local), local: true })),
    ...s.origin.map((r) => ({ text: render(r, 'original', s.seeds.origin), local: false })),
    ...s.upstream.map((r) => ({ text: render(r, 'updated', s.seeds.upstream), local: false })),
  ];
  const ordered = shuffle(items, s.seeds.order);
  return {
    text: resourceList(ordered.map((i) => i.text)),
    localTexts: ordered.filter((i) => i.local).map((i) => i.text),
    taggedTexts: ordered.filter((i) => !i.local).map((i) => i.text),
  };
}

const plain = (v: unknown) => stringify(v, { lineWidth: 0 });

/** The versions of every resource some version changed, and what came out; unchanged ones are left out. */
function describe3(s: Scenario, output?: string): string {
  const [o, u, l] = [byIdentity(s.origin), byIdentity(s.upstream), byIdentity(s.local)];
  const out = output === undefined ? undefined : byIdentity(outputItems(output));
  const lines = [`upstream edits: ${s.log.upstream.join('; ') || 'none'}`, `local edits: ${s.log.local.join('; ') || 'none'}`];
  const shown = (v: Resource | undefined) => (v ? plain(v).trimEnd().replace(/^/gm, '    ') : '    (absent)');
  for (const id of new Set([...o.keys(), ...u.keys(), ...l.keys(), ...(out?.keys() ?? [])])) {
    const versions: [string, Resource | undefined][] = [['origin', o.get(id)], ['upstream', u.get(id)], ['local', l.get(id)]];
    if (out) versions.push(['output', out.get(id)]);
    const data = versions.map(([, v]) => (v ? normalise([v])[0] : undefined));
    if (data.every((d) => deepEq(d as Json, data[0] as Json))) continue;
    lines.push(`== ${id}`, ...versions.map(([name, v]) => `  ${name}:\n${shown(v)}`));
  }
  return lines.join('\n');
}

class PropertyViolation extends Error {}

function fail(message: string, s: Scenario, output?: string): never {
  throw new PropertyViolation(`${message}\n\n${describe3(s, output)}`);
}

function merged(input: string, s: Scenario): string {
  const outcome = runFunction(input);
  if (outcome.exitCode !== 0) {
    const errors = outcome.results.filter((r) => r.severity === 'error').map((r) => String(r.message));
    fail(`exit code ${outcome.exitCode}: ${errors.join(' | ')}`, s);
  }
  return outcome.output;
}

/** Output items as data, bookkeeping annotations dropped. */
function outputItems(output: string): Resource[] {
  const list = parse(output) as { items?: Resource[] | null };
  return normalise(list.items ?? []) as Resource[];
}

const asData = (pkg: Pkg): Resource[] => normalise(clone(pkg)) as Resource[];

const BOOKKEEPING = /^(internal\.config\.kubernetes\.io\/|config\.kubernetes\.io\/(path|index|merge-source)$)/;

/**
 * For the position-by-position checks: bookkeeping annotations dropped but `metadata.annotations`
 * kept, as `{}` if need be. Every version of every item carries its path annotations, so each has an
 * annotations map; `normalise` would drop a map that held only those, and local would seem to lack it.
 */
function view(r: Resource): Resource {
  const copy = clone(r);
  const meta = copy.metadata as JsonMap;
  const annotations = isObj(meta.annotations) ? meta.annotations : {};
  for (const key of Object.keys(annotations)) if (BOOKKEEPING.test(key)) delete annotations[key];
  meta.annotations = annotations;
  return copy;
}
const views = (pkg: readonly Resource[]) => new Map(pkg.map((r) => [identity(r), view(r)]));

function byIdentity(pkg: readonly Resource[]): Map<string, Resource> {
  return new Map(pkg.map((r) => [identity(r), r]));
}

function sameSet(actual: readonly Resource[], expected: readonly Resource[]): string | undefined {
  const a = byIdentity(actual);
  const e = byIdentity(expected);
  if (a.size !== actual.length) return 'the output holds two resources with one identity';
  for (const [id, r] of e) {
    if (!a.has(id)) return `${id} is missing`;
    if (!deepEq(a.get(id), r)) return `${id} differs:\n  expected ${JSON.stringify(r)}\n  actual   ${JSON.stringify(a.get(id))}`;
  }
  for (const id of a.keys()) if (!e.has(id)) return `${id} should not be in the output`;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Expectations
// ---------------------------------------------------------------------------------------------

const DROP = Symbol('drop');

/** Keyed lists sorted by identity: "local's order stands", so upstream's reordering is not data to compare. */
function canonical(kind: string, fp: readonly string[], v: Json): Json {
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, canonical(kind, [...fp, k], x)]));
  const rule = Array.isArray(v) ? listRule(kind, fp) : 'atomic';
  if (!Array.isArray(v) || typeof rule !== 'object') return v;
  const sorted = [...v].sort((a, b) => (rule.id(a as JsonMap) < rule.id(b as JsonMap) ? -1 : 1));
  return sorted.map((e) => canonical(kind, [...fp, '[]'], e));
}
const canonicalAll = (pkg: readonly Resource[]) => pkg.map((r) => canonical(String(r.kind), [], r) as Resource);

/**
 * What merge(o, u, o) must give for one resource origin holds: upstream's value, except that an
 * upstream null removes the field ("an upstream `null` removes the field"), where origin did not hold
 * that null already (then upstream did not change it and local's, origin's, null stays); and a map
 * left empty by such a deletion is removed, never left as `{}`. A subtree origin does not have at all
 * is upstream's new value, taken whole.
 */
function expectedFromUpstream(kind: string, fp: readonly string[], u: Json, o: Json | undefined): Json | typeof DROP {
  const sh = shape(kind, fp, u);
  if (sh === 'leaf' || o === undefined || shape(kind, fp, o) !== sh) return u;
  const oKids = children(kind, fp, o);
  if (sh === 'map') {
    const out: JsonMap = {};
    let removed = false;
    for (const [k, v] of Object.entries(u as JsonMap)) {
      const ov = oKids.get(`.${k}`)?.v;
      if (v === null && ov !== null) {
        removed = true;
        continue;
      }
      const r = expectedFromUpstream(kind, [...fp, k], v, ov);
      if (r === DROP) removed = true;
      else out[k] = r;
    }
    return removed && Object.keys(out).length === 0 ? DROP : out;
  }
  const rule = listRule(kind, fp) as Exclude<ListRule, string>;
  return (u as JsonMap[]).map((e) => expectedFromUpstream(kind, [...fp, '[]'], e, oKids.get(`[${rule.id(e)}]`)?.v) as Json);
}

/** Upstream's package as it lands over origin (expectedFromUpstream for each resource origin holds). */
function expectedOverOrigin(s: Scenario): Resource[] {
  const origin = byIdentity(asData(s.origin));
  return asData(s.upstream).flatMap((r) => {
    const o = origin.get(identity(r));
    if (!o) return [r];
    const e = expectedFromUpstream(String(r.kind), [], r, o);
    return e === DROP ? [] : [e as Resource];
  });
}

/**
 * No invented `{}` or `[]`, no stubs. At every position of the output:
 * - an empty map or list is empty in upstream or in local;
 * - where local has nothing (absent), the output is upstream's value whole (an addition, or
 *   upstream winning a deleted-vs-changed conflict: "never a stub"); where local has null, the output
 *   is that null or upstream's whole value;
 * - where local has a value and upstream has nothing or null, the output is local's value whole
 *   (local's addition, or local's value where upstream did not change it).
 */
function stubProblems(kind: string, fp: readonly string[], out: Json, u: Json | undefined, l: Json | undefined, at: string, problems: string[]): void {
  const emptyMap = (v: Json | undefined) => isObj(v) && Object.keys(v).length === 0;
  const emptyList = (v: Json | undefined) => Array.isArray(v) && v.length === 0;
  // In a ResourceList kpt's own annotations keep `metadata.annotations` alive; kpt's writer (and the
  // update command) drop it when nothing else is left, so `{}` there is no invented map.
  const annotationsMap = fp.length === 2 && fp[0] === 'metadata' && fp[1] === 'annotations';
  if (emptyMap(out) && !emptyMap(u) && !emptyMap(l) && !annotationsMap) problems.push(`${at} is {} but neither upstream (${JSON.stringify(u) ?? 'absent'}) nor local (${JSON.stringify(l) ?? 'absent'}) has {} there`);
  if (emptyList(out) && !emptyList(u) && !emptyList(l)) problems.push(`${at} is [] but neither upstream nor local has [] there`);
  if (!hasValue(l)) {
    if ((l === undefined || out !== null) && !deepEq(out, u)) {
      problems.push(`${at}: local has ${l === null ? 'null' : 'nothing'} there, so the output must be upstream's whole value ${JSON.stringify(u) ?? '(absent)'}, got ${JSON.stringify(out)}`);
      return;
    }
  } else if (!hasValue(u) && !deepEq(out, l)) {
    problems.push(`${at}: upstream has ${u === null ? 'null' : 'nothing'} there, so the output must be local's whole value ${JSON.stringify(l) ?? '(absent)'}, got ${JSON.stringify(out)}`);
    return;
  }
  const uKids = children(kind, fp, u);
  const lKids = children(kind, fp, l);
  const sh = shape(kind, fp, out);
  if (sh === 'leaf') return;
  for (const [k, child] of children(kind, fp, out)) {
    stubProblems(kind, child.fp, child.v, shape(kind, fp, u) === sh ? uKids.get(k)?.v : undefined, shape(kind, fp, l) === sh ? lKids.get(k)?.v : undefined, `${at}${k}`, problems);
  }
}

/**
 * Where only local changed a value (upstream has origin's value there), the output has local's value.
 * A change point is the highest position where local differs from origin and is not a map or
 * keyed list on both (a changed scalar, atomic list or set, a deletion, an addition, a null).
 */
function localOnlyProblems(kind: string, fp: readonly string[], o: Json | undefined, u: Json | undefined, l: Json | undefined, out: Json | undefined, at: string, problems: string[]): void {
  if (deepEq(l, o)) return;
  const sh = shape(kind, fp, o);
  if (sh !== 'leaf' && shape(kind, fp, l) === sh) {
    // Upstream replaced or removed the container itself: nothing below it is local-only.
    if (shape(kind, fp, u) !== sh) return;
    const [ok, uk, lk] = [children(kind, fp, o), children(kind, fp, u), children(kind, fp, l)];
    const outKids = shape(kind, fp, out) === sh ? children(kind, fp, out) : new Map<string, { v: Json; fp: string[] }>();
    for (const k of new Set([...ok.keys(), ...lk.keys()])) {
      const childFp = (ok.get(k) ?? lk.get(k))!.fp;
      localOnlyProblems(kind, childFp, ok.get(k)?.v, uk.get(k)?.v, lk.get(k)?.v, outKids.get(k)?.v, `${at}${k}`, problems);
    }
    return;
  }
  if (deepEq(u, o) && !deepEq(out, l)) {
    problems.push(`${at}: only local changed it (origin ${JSON.stringify(o) ?? 'absent'}, local ${JSON.stringify(l) ?? 'absent'}), but the output has ${JSON.stringify(out) ?? 'nothing'}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

const SEED = 20240611;
const RUNS = Number(process.env.PROPERTY_RUNS ?? 0) || 40;

/**
 * Shrinking replays the whole merge for every candidate, which can take minutes; after this many
 * candidates past the first failure the rest are passed unexamined, so a known failure costs
 * seconds and shrinks the same way on every machine.
 */
const SHRINK_BUDGET = Number(process.env.PROPERTY_SHRINK_BUDGET ?? 0) || 150;

function check(relation: Relation, body: (s: Scenario) => void, numRuns = RUNS): void {
  let failed = false;
  let tried = 0;
  fc.assert(
    fc.property(fc.gen(), (g) => {
      if (failed && (tried += 1) > SHRINK_BUDGET) return;
      try {
        body(scenario(drawer(g), relation));
      } catch (error) {
        failed = true;
        throw error;
      }
    }),
    { seed: SEED, numRuns },
  );
}

describe('three-way merge properties', () => {
  it('the harness: each rendered version reads back as the data it was made from', () => {
    check('independent', (s) => {
      for (const [pkg, tag, seed] of [[s.origin, 'original', s.seeds.origin], [s.upstream, 'updated', s.seeds.upstream], [s.local, undefined, s.seeds.local]] as const) {
        for (const r of pkg) {
          const back = parse(render(r, tag, seed)) as Resource;
          const annotations = (back.metadata as JsonMap).annotations as JsonMap;
          delete annotations[PATH];
          delete annotations[INDEX];
          delete annotations[MERGE_SOURCE];
          if (Object.keys(annotations).length === 0) delete (back.metadata as JsonMap).annotations;
          if (!deepEq(back, r)) fail(`${identity(r)} does not render faithfully:\n${render(r, tag, seed)}`, s);
        }
      }
    }, 20);
  });

  it('merge(o, o, l) = l: when upstream did not change, the local items come out byte for byte', () => {
    // Upstream is origin's data rendered with its own styling (comments, quoting and flow style are
    // not changes). The output is documented as the input text with only changed items re-rendered
    // and the results appended, so the exact comparison is: the output up to `results:` equals the
    // ResourceList text holding only the local items, in their input order. That checks every byte
    // of every local item, that nothing of the tagged items is left, and that the items keep
    // their order. (`results:` is at column 0; inside items every line is indented.)
    check('upstream=origin', (s) => {
      const input = buildInput(s);
      const output = merged(input.text, s);
      const cut = output.indexOf('\nresults:');
      const items = cut === -1 ? output : output.slice(0, cut + 1);
      const expected = resourceList(input.localTexts);
      if (items !== expected) {
        const at = [...items].findIndex((ch, i) => ch !== expected[i]);
        fail(`the output differs from local's input at offset ${at}:\n--- expected ---\n${expected.slice(Math.max(0, at - 200), at + 200)}\n--- actual ---\n${items.slice(Math.max(0, at - 200), at + 200)}`, s, output);
      }
    });
  });

  it('merge(o, u, o) = u: over an unchanged local package, upstream comes out as data', () => {
    check('local=origin', (s) => {
      const output = merged(buildInput(s).text, s);
      const problem = sameSet(canonicalAll(outputItems(output)), canonicalAll(expectedOverOrigin(s)));
      if (problem) fail(`merge(o, u, o) is not upstream: ${problem}`, s, output);
    });
  });

  it('merge(o, u, u) = u: when local made upstream\'s changes, upstream comes out as data', () => {
    // A field both set to null is one both removed (README): it goes, as in merge(o, u, o).
    check('local=upstream', (s) => {
      const output = merged(buildInput(s).text, s);
      const problem = sameSet(canonicalAll(outputItems(output)), canonicalAll(expectedOverOrigin(s)));
      if (problem) fail(`merge(o, u, u) is not upstream: ${problem}`, s, output);
    });
  });

  it('idempotence: merging the output again with the same origin and upstream changes nothing', () => {
    check('independent', (s) => {
      const input = buildInput(s);
      const first = merged(input.text, s);
      const firstItems = ((parseDocument(first).get('items') as YAMLSeq | null)?.items ?? []).map((n) => new Document(n).toString({ lineWidth: 0 }));
      const second = merged(resourceList([...firstItems, ...input.taggedTexts]), s);
      const problem = sameSet(outputItems(second), outputItems(first));
      if (problem) fail(`the second merge changed the first one's output: ${problem}`, s, first);
    });
  });

  it('determinism: the same input gives the same output, byte for byte', () => {
    check('independent', (s) => {
      const input = buildInput(s).text;
      const a = runFunction(input);
      const b = runFunction(input);
      if (a.exitCode !== 0) fail(`exit code ${a.exitCode}: ${JSON.stringify(a.results)}`, s);
      if (a.output !== b.output || a.exitCode !== b.exitCode) fail('two runs over the same input differ', s, a.output);
    });
  });

  it('no {} and no stubs: empty maps and lists, and values one side lacks, come from a version', () => {
    check('independent', (s) => {
      const output = merged(buildInput(s).text, s);
      const [upstream, local] = [views(s.upstream), views(s.local)];
      const problems: string[] = [];
      for (const r of (parse(output) as { items: Resource[] }).items.map(view)) {
        const id = identity(r);
        stubProblems(String(r.kind), [], r, upstream.get(id), local.get(id), id, problems);
      }
      if (problems.length) fail(problems.join('\n'), s, output);
    });
  });

  it('local-only changes survive: where upstream kept origin\'s value, the output has local\'s', () => {
    check('independent', (s) => {
      const output = merged(buildInput(s).text, s);
      const [origin, upstream, local] = [views(s.origin), views(s.upstream), views(s.local)];
      const out = views((parse(output) as { items: Resource[] }).items);
      const problems: string[] = [];
      for (const id of new Set([...origin.keys(), ...local.keys()])) {
        const [o, u, l] = [origin.get(id), upstream.get(id), local.get(id)];
        const kind = String((o ?? l)!.kind);
        if (o && l && !u) {
          // Deleted upstream: kept (with a warning) when changed locally, deleted when not.
          if (!deepEq(l, o) && !deepEq(out.get(id), l)) problems.push(`${id} was deleted upstream but changed locally: it must be kept as local's`);
          continue;
        }
        localOnlyProblems(kind, [], o, u, l, out.get(id), id, problems);
      }
      if (problems.length) fail(problems.join('\n'), s, output);
    });
  });

  it('deleting on both sides never conflicts: with conflicts: error the merge still succeeds', () => {
    check('deletions', (s) => {
      const input = buildInput(s).text.replace(/\n$/, `\n${ERROR_ON_CONFLICT}`);
      const outcome = runFunction(input);
      const conflicts = outcome.results.filter((r) => /merge conflict/.test(String(r.message)));
      if (outcome.exitCode !== 0 || conflicts.length) fail(`deletions conflicted (exit ${outcome.exitCode}): ${outcome.results.map((r) => r.message).join(' | ')}`, s, outcome.output);
    });
  });

  it('merge(o, u, l) never holds two elements with one key, nor two Service or container ports with one name', () => {
    const body = (s: Scenario) => {
      const output = merged(buildInput(s).text, s);
      const problems: string[] = [];
      for (const r of outputItems(output)) {
        duplicateKeys(String(r.kind), [], r, identity(r), problems);
        for (const list of portLists(r)) {
          const names = list.map((p) => p.name).filter((n) => n !== undefined);
          if (new Set(names).size !== names.length) problems.push(`${identity(r)} has two ports with one name: ${JSON.stringify(list)}`);
        }
      }
      if (problems.length) fail(problems.join('\n'), s, output);
    };
    check('independent', body);
    // Packages whose edits are all to named ports: renumbered, renamed, added, removed on both sides.
    fc.assert(
      fc.property(fc.gen(), (gen) => body(portScenario(drawer(gen)))),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('a missing key field and its schema default are interchangeable in any slot', () => {
    fc.assert(
      fc.property(fc.gen(), (gen) => {
        const g = drawer(gen);
        const s = scenario(g, 'independent');
        const slot = g.pick(['origin', 'upstream', 'local'] as const);
        const respelled: Scenario = { ...s, [slot]: respell(g, clone(s[slot])) };
        const [a, b] = [runFunction(buildInput(s).text), runFunction(buildInput(respelled).text)];
        if (a.exitCode !== b.exitCode) fail(`respelling ${slot}'s default keys changed the exit code from ${a.exitCode} to ${b.exitCode}`, respelled, b.output);
        if (a.exitCode !== 0) return;
        const data = (output: string) => canonicalAll(outputItems(output).map((r) => withDefaults(String(r.kind), [], r) as Resource));
        const problem = sameSet(data(b.output), data(a.output));
        if (problem) fail(`respelling ${slot}'s default keys changed the merge: ${problem}`, respelled, b.output);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

/** A Service and a Deployment with named ports; each side renumbers, renames, adds and removes ports (valid: unique ports and names). */
function portScenario(g: G): Scenario {
  const ports = (field: string): JsonMap[] =>
    g.pick([[0, 1], [1, 2, 3], [0, 2]]).map((i) => ({ name: PORT_NAMES[i]!, [field]: PORTS[i]!, ...(g.bool(0.3) ? { protocol: 'TCP' } : {}) }));
  const origin: Pkg = [
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: ports('port') } },
    { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { template: { spec: { containers: [{ name: 'app', image: 'app:1', ports: ports('containerPort') }] } } } },
  ];
  const edit = (pkg: Pkg, log: string[]): Pkg => {
    for (let n = g.int(1, 3); n > 0; n -= 1) {
      const lists = pkg.flatMap(portLists);
      const list = g.pick(lists);
      const field = list === lists[0] ? 'port' : 'containerPort';
      const freePort = PORTS.concat([9000, 9090, 8081]).filter((p) => !list.some((e) => e[field] === p));
      const freeName = PORT_NAMES.concat(['grpc']).filter((name) => !list.some((e) => e.name === name));
      const what = g.pick(['renumber', 'rename', 'add', 'remove'] as const);
      const port = list.length ? g.pick(list) : undefined;
      if (what === 'add' || !port) list.push({ name: g.pick(freeName), [field]: g.pick(freePort) });
      else if (what === 'renumber') port[field] = g.pick(freePort);
      else if (what === 'rename') port.name = g.pick(freeName);
      else list.splice(list.indexOf(port), 1);
      log.push(`${what} a port of ${field}`);
    }
    return pkg;
  };
  const log = { upstream: [] as string[], local: [] as string[] };
  const plainStyle = { shape: 0, quotes: 0 };
  return { origin, upstream: edit(clone(origin), log.upstream), local: edit(clone(origin), log.local), log, seeds: { origin: plainStyle, upstream: plainStyle, local: plainStyle, order: 0 } };
}

const ERROR_ON_CONFLICT = 'functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: options\n  data:\n    conflicts: error\n';

/** Keyed lists at and below `v` that hold one key twice. */
function duplicateKeys(kind: string, fp: readonly string[], v: Json, at: string, problems: string[]): void {
  const kids = children(kind, fp, v);
  if (Array.isArray(v) && typeof listRule(kind, fp) === 'object' && kids.size !== v.length) problems.push(`${at} holds one key twice: ${JSON.stringify(v)}`);
  for (const [k, child] of kids) duplicateKeys(kind, child.fp, child.v, `${at}${k}`, problems);
}

/** Each keyed element's default key (protocol, zone) written out or left out, at random. */
function respell(g: G, pkg: Pkg): Pkg {
  for (const r of pkg) {
    for (const p of positions(r)) {
      const v = valueAt(p);
      const def = parentList(p) && isObj(v) ? defaultKey(p.kind, p.fp.slice(0, -1)) : undefined;
      if (!def || !isObj(v) || !g.bool()) continue;
      if (v[def.key] === undefined) v[def.key] = def.value;
      else if (v[def.key] === def.value) delete v[def.key];
    }
  }
  return pkg;
}

/** Every keyed element with its default key written out. */
function withDefaults(kind: string, fp: readonly string[], v: Json): Json {
  if (Array.isArray(v)) {
    const def = defaultKey(kind, fp);
    return v.map((e) => {
      const filled = isObj(e) && def && e[def.key] === undefined ? { ...e, [def.key]: def.value } : e;
      return withDefaults(kind, [...fp, '[]'], filled);
    });
  }
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withDefaults(kind, [...fp, k], x)]));
  return v;
}
