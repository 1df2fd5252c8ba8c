#!/usr/bin/env node
/**
 * Generates the differential fixtures: seeded random three-way-merge cases (origin, upstream, local
 * packages of realistic Deployments, Services, ConfigMaps, StatefulSets, a CRD and its Widgets), each
 * run through the real `kpt pkg update` by scripts/kpt-oracle.sh, recorded with kpt's result in
 * test/fixtures/differential/case-NNN.yaml. test/differential/kpt-differential.test.ts compares the
 * function with them; kpt-live-sample.test.ts re-runs a few live to prove they are current.
 *
 * Usage: node scripts/gen-differential-fixtures.mjs [--count N] [--seed S] [--jobs J] [--only 3,17]
 *                                                   [--out DIR] [--dry-run]
 *   --count    number of cases (default 220)
 *   --seed     base seed (default 20240601); case i uses caseSeed(base, i), recorded in the fixture
 *   --jobs     oracle runs in parallel (default: number of CPUs)
 *   --only     regenerate only these case numbers
 *   --dry-run  print the generated inputs of the --only cases (or case 0) and do not run kpt
 *
 * Deterministic: the same seed and count give byte-identical fixtures (the oracle fixes git
 * identities and dates). Needs kpt 1.0.0-beta.56 and git on PATH; takes about count x 0.5 s / jobs.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Document, isScalar, stringify } from 'yaml';
import gitTrees from './lib/git-trees.cjs';
import { caseSeed, Rng } from './lib/seeded-random.mjs';

const { readFiles, writeFiles } = gitTrees;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ORACLE = join(ROOT, 'scripts', 'kpt-oracle.sh');
const DEFAULT_OUT = join(ROOT, 'test', 'fixtures', 'differential');

// ---------------------------------------------------------------------------------------------
// Data: comments ride along on objects and arrays under a symbol (key or index -> text)
// ---------------------------------------------------------------------------------------------

const COMMENTS = Symbol('comments');

function clone(value) {
  if (Array.isArray(value)) {
    const copy = value.map(clone);
    if (value[COMMENTS]) copy[COMMENTS] = { ...value[COMMENTS] };
    return copy;
  }
  if (value !== null && typeof value === 'object') {
    const copy = {};
    for (const key of Object.keys(value)) copy[key] = clone(value[key]);
    if (value[COMMENTS]) copy[COMMENTS] = { ...value[COMMENTS] };
    return copy;
  }
  return value;
}

const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function getAt(root, path) {
  let v = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = v[seg];
  }
  return v;
}

// ---------------------------------------------------------------------------------------------
// Vocabulary and value generators
// ---------------------------------------------------------------------------------------------

const APPS = ['web', 'api', 'cache', 'worker', 'frontend', 'backend', 'queue', 'search', 'auth', 'billing'];
const IMAGES = ['nginx', 'redis', 'busybox', 'envoyproxy/envoy', 'ghcr.io/acme/app', 'postgres', 'memcached', 'registry.k8s.io/pause'];
const TAGS = ['1.25', '1.26.1', '7.2', '1.36', 'v1.29.1', '2.4.0', '16.2', '3.9'];
const LABEL_KEYS = ['tier', 'team', 'env', 'version', 'app.kubernetes.io/part-of', 'owner', 'cost-center', 'track'];
const LABEL_VALUES = ['frontend', 'backend', 'platform', 'prod', 'staging', 'v1', 'v2', 'shop', 'payments', 'team-a', 'stable', 'canary'];
const ANNOTATION_KEYS = ['example.com/owner', 'example.com/revision', 'prometheus.io/scrape', 'prometheus.io/port', 'description', 'example.com/ticket'];
const ANNOTATION_VALUES = ['alice', 'bob', '3', '9090', 'managed by platform', 'OPS-1234', 'enabled', 'carol'];
const ENV_NAMES = ['LOG_LEVEL', 'PORT', 'MODE', 'CACHE_TTL', 'FEATURE_FLAGS', 'REGION', 'DB_HOST', 'WORKERS', 'TIMEOUT', 'DEBUG_ADDR'];
const ENV_VALUES = ['info', 'debug', '8080', 'fast', '300', 'eu-west-1', 'db.internal', '4', '30s', 'warn', 'a,b,c', 'us-east-2'];
const CM_KEYS = ['app.properties', 'LOG_LEVEL', 'feature.enabled', 'timeout', 'endpoint', 'nginx.conf', 'REGION', 'mode', 'retries'];
const CM_VALUES = ['info', 'debug', '30s', 'https://api.example.com', 'eu-west-1', 'strict', '5', 'worker_processes 2;\nevents {}\n', 'a=1\nb=2\n', 'cache.size=64\n'];
const PORTS = [80, 443, 8080, 8443, 9090, 9100, 5432, 6379, 3000, 5000];
const PORT_NAMES = ['http', 'https', 'metrics', 'grpc', 'admin', 'db', 'redis', 'web', 'api', 'probe'];
const ARGS = ['--verbose', '--port=8080', '--config=/etc/app/config.yaml', '--log-format=json', 'serve', '--workers=4', '--metrics', '-v=2'];
const NAMESPACES = ['shop', 'platform', 'default'];
const MOUNT_PATHS = ['/etc/config', '/var/cache', '/data', '/var/log/app', '/etc/tls', '/tmp', '/srv/static'];
const VOLUME_NAMES = ['config', 'cache', 'tls', 'scratch', 'static', 'logs'];
const CPU = ['100m', '250m', '500m', '1', '2', '750m'];
const MEMORY = ['64Mi', '128Mi', '256Mi', '512Mi', '1Gi'];
const WIDGET_ITEM_NAMES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'];
const WIDGET_HOSTS = ['a.example.com', 'b.example.com', 'c.example.com'];
const WIDGET_TAGS = ['blue', 'green', 'red', 'fast', 'slow', 'eu', 'us'];

const g = {
  labelKey: (r) => r.pick(LABEL_KEYS),
  labelValue: (r) => r.pick(LABEL_VALUES),
  annotationKey: (r) => r.pick(ANNOTATION_KEYS),
  annotationValue: (r) => r.pick(ANNOTATION_VALUES),
  image: (r) => `${r.pick(IMAGES)}:${r.pick(TAGS)}`,
  replicas: (r) => r.int(1, 6),
  pullPolicy: (r) => r.pick(['Always', 'IfNotPresent', 'Never']),
  arg: (r) => r.pick(ARGS),
  envValue: (r) => r.pick(ENV_VALUES),
  cpu: (r) => (r.chance(0.3) ? r.int(1, 2) : r.pick(CPU)),
  memory: (r) => r.pick(MEMORY),
  seconds: (r) => r.pick([5, 10, 15, 20, 30, 60]),
  bool: (r) => r.chance(0.5),
  intOrPercent: (r) => r.pick([0, 1, 2, '25%', '50%']),
  cmValue: (r) => r.pick(CM_VALUES),
  toleration: (r) =>
    r.chance(0.5)
      ? { key: r.pick(['dedicated', 'gpu', 'spot']), operator: 'Exists', effect: r.pick(['NoSchedule', 'NoExecute']) }
      : { key: r.pick(['dedicated', 'zone']), operator: 'Equal', value: r.pick(['infra', 'batch', 'a']), effect: 'NoSchedule' },
  pvc: (r, name) => ({
    metadata: { name: name ?? r.pick(['data', 'wal', 'backup']) },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: r.pick(['1Gi', '5Gi', '10Gi', '20Gi']) } } },
  }),
  widgetItem: (r) => ({ name: r.pick(WIDGET_ITEM_NAMES), value: r.pick(['on-demand', 'reserved', 'x', 'y', 'z']), ...(r.chance(0.5) ? { weight: r.int(1, 9) } : {}) }),
  endpoint: (r) => ({ host: r.pick(WIDGET_HOSTS), port: r.pick([80, 443, 8080]), ...(r.chance(0.5) ? { path: r.pick(['/', '/v1', '/healthz']) } : {}) }),
  tag: (r) => r.pick(WIDGET_TAGS),
};

// ---------------------------------------------------------------------------------------------
// Resource factories
// ---------------------------------------------------------------------------------------------

const DEFAULT_PROTOCOL = 'TCP';
const portKey = (p) => `${p.containerPort ?? p.port}/${p.protocol ?? DEFAULT_PROTOCOL}`;

function podPortNames(pod) {
  const names = new Set();
  for (const c of pod?.containers ?? []) for (const p of Array.isArray(c.ports) ? c.ports : []) if (p?.name) names.add(p.name);
  return names;
}

function freshFrom(r, pool, taken) {
  const free = pool.filter((x) => !taken.has(x));
  return free.length ? r.pick(free) : undefined;
}

function containerPort(r, pod, container) {
  const taken = new Set((Array.isArray(container?.ports) ? container.ports : []).map(portKey));
  const freePorts = PORTS.filter((p) => !taken.has(`${p}/TCP`));
  if (!freePorts.length) return undefined;
  const port = { containerPort: r.pick(freePorts) };
  const name = freshFrom(r, PORT_NAMES, podPortNames(pod));
  if (name && r.chance(0.8)) port.name = name;
  if (r.chance(0.45)) port.protocol = 'TCP';
  return port;
}

function envVar(r, container) {
  const taken = new Set((Array.isArray(container?.env) ? container.env : []).map((e) => e.name));
  const name = freshFrom(r, ENV_NAMES, taken);
  if (!name) return undefined;
  if (r.chance(0.2)) return { name, valueFrom: { configMapKeyRef: { name: `${r.pick(APPS)}-config`, key: r.pick(CM_KEYS) } } };
  return { name, value: g.envValue(r) };
}

function volumeNames(workload) {
  const pod = workload?.spec?.template?.spec;
  const names = (Array.isArray(pod?.volumes) ? pod.volumes : []).map((v) => v.name);
  for (const t of Array.isArray(workload?.spec?.volumeClaimTemplates) ? workload.spec.volumeClaimTemplates : []) names.push(t?.metadata?.name);
  return names.filter(Boolean);
}

function volumeMount(r, workload, container) {
  const names = volumeNames(workload);
  if (!names.length) return undefined;
  const taken = new Set((Array.isArray(container?.volumeMounts) ? container.volumeMounts : []).map((m) => m.mountPath));
  const mountPath = freshFrom(r, MOUNT_PATHS, taken);
  if (!mountPath) return undefined;
  return { name: r.pick(names), mountPath, ...(r.chance(0.3) ? { readOnly: true } : {}) };
}

function volume(r, pod) {
  const taken = new Set((Array.isArray(pod?.volumes) ? pod.volumes : []).map((v) => v.name));
  const name = freshFrom(r, VOLUME_NAMES, taken);
  if (!name) return undefined;
  const kind = r.int(0, 2);
  if (kind === 0) return { name, configMap: { name: `${r.pick(APPS)}-config`, ...(r.chance(0.3) ? { defaultMode: 420 } : {}) } };
  if (kind === 1) return { name, emptyDir: r.chance(0.7) ? {} : { medium: 'Memory' } };
  return { name, secret: { secretName: `${r.pick(APPS)}-tls` } };
}

function container(r, workload, name) {
  const pod = workload.spec.template.spec;
  const c = { name, image: g.image(r) };
  if (r.chance(0.3)) c.imagePullPolicy = g.pullPolicy(r);
  if (r.chance(0.3)) c.args = Array.from({ length: r.int(1, 3) }, () => g.arg(r));
  if (r.chance(0.1)) c.command = ['/bin/sh', '-c', r.pick(['exec app', 'sleep 3600', 'run.sh'])];
  if (r.chance(0.65)) {
    c.ports = [];
    for (let i = r.int(1, 2); i > 0; i--) {
      const p = containerPort(r, pod, c);
      if (p) c.ports.push(p);
    }
  }
  if (r.chance(0.5)) {
    c.env = [];
    for (let i = r.int(1, 2); i > 0; i--) {
      const e = envVar(r, c);
      if (e) c.env.push(e);
    }
  }
  if (r.chance(0.45)) {
    c.resources = {};
    if (r.chance(0.8)) c.resources.limits = { cpu: g.cpu(r), memory: g.memory(r) };
    if (r.chance(0.6) || !c.resources.limits) c.resources.requests = r.chance(0.5) ? { cpu: g.cpu(r) } : { cpu: g.cpu(r), memory: g.memory(r) };
  }
  if (r.chance(0.4)) {
    c.volumeMounts = [];
    for (let i = r.int(1, 2); i > 0; i--) {
      const m = volumeMount(r, workload, c);
      if (m) c.volumeMounts.push(m);
    }
    if (!c.volumeMounts.length) delete c.volumeMounts;
  }
  if (r.chance(0.2)) c.readinessProbe = { httpGet: { path: r.pick(['/healthz', '/ready']), port: r.pick([8080, 80, 9090]) }, periodSeconds: g.seconds(r) };
  return c;
}

function metadata(r, name, namespace) {
  const m = { name };
  if (namespace) m.namespace = namespace;
  if (r.chance(0.7)) m.labels = { app: name, ...(r.chance(0.5) ? { [g.labelKey(r)]: g.labelValue(r) } : {}) };
  if (r.chance(0.3)) m.annotations = { [g.annotationKey(r)]: g.annotationValue(r) };
  return m;
}

function workload(r, kind, name, namespace) {
  const w = { apiVersion: 'apps/v1', kind, metadata: metadata(r, name, namespace), spec: {} };
  if (kind === 'StatefulSet') w.spec.serviceName = name;
  w.spec.replicas = g.replicas(r);
  w.spec.selector = { matchLabels: { app: name } };
  if (kind === 'Deployment' && r.chance(0.35)) {
    w.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: g.intOrPercent(r), maxUnavailable: g.intOrPercent(r) } };
  }
  if (kind === 'StatefulSet' && r.chance(0.3)) w.spec.podManagementPolicy = r.pick(['OrderedReady', 'Parallel']);
  const pod = {};
  w.spec.template = { metadata: { labels: { app: name } }, spec: pod };
  if (r.chance(0.2)) w.spec.template.metadata.annotations = { [g.annotationKey(r)]: g.annotationValue(r) };
  if (r.chance(0.15)) pod.serviceAccountName = name;
  if (r.chance(0.2)) pod.securityContext = { runAsNonRoot: true, ...(r.chance(0.5) ? { runAsUser: 1000 } : {}) };
  if (r.chance(0.2)) pod.nodeSelector = { 'kubernetes.io/os': 'linux' };
  if (r.chance(0.15)) pod.tolerations = [g.toleration(r)];
  if (kind === 'StatefulSet' && r.chance(0.8)) w.spec.volumeClaimTemplates = [g.pvc(r, 'data')];
  if (r.chance(0.5)) {
    pod.volumes = [];
    for (let i = r.int(1, 2); i > 0; i--) {
      const v = volume(r, pod);
      if (v) pod.volumes.push(v);
    }
  }
  pod.containers = [];
  const names = r.shuffle([name, 'sidecar', 'proxy', 'metrics']).filter((n, i) => i === 0 || n !== name);
  const count = r.weighted([[10, 1], [3, 2], [0.7, 3]]);
  for (const cname of [name, ...names.filter((n) => n !== name)].slice(0, count)) pod.containers.push(container(r, w, cname));
  if (r.chance(0.3)) pod.terminationGracePeriodSeconds = g.seconds(r);
  return w;
}

function service(r, name, namespace) {
  const s = { apiVersion: 'v1', kind: 'Service', metadata: metadata(r, name, namespace), spec: { selector: { app: name.replace(/-svc$/, '') }, ports: [] } };
  if (r.chance(0.4)) s.spec.type = r.pick(['ClusterIP', 'NodePort']);
  for (let i = r.int(1, 2); i > 0; i--) {
    const p = servicePort(r, s);
    if (p) s.spec.ports.push(p);
  }
  if (r.chance(0.2)) s.spec.sessionAffinity = 'ClientIP';
  return s;
}

function servicePort(r, svc) {
  const ports = Array.isArray(svc.spec?.ports) ? svc.spec.ports : [];
  const taken = new Set(ports.map(portKey));
  const free = PORTS.filter((p) => !taken.has(`${p}/TCP`));
  const name = freshFrom(r, PORT_NAMES, new Set(ports.map((p) => p.name)));
  if (!free.length || !name) return undefined;
  const port = { name, port: r.pick(free), targetPort: r.chance(0.6) ? r.pick(PORTS) : r.pick(PORT_NAMES) };
  if (r.chance(0.45)) port.protocol = 'TCP';
  return port;
}

function configMap(r, name, namespace) {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: metadata(r, name, namespace), data: {} };
  for (let i = r.int(1, 4); i > 0; i--) cm.data[r.pick(CM_KEYS)] = g.cmValue(r);
  return cm;
}

const CRD_NAME = 'widgets.example.com';

function crd() {
  const obj = { type: 'object' };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: CRD_NAME },
    spec: {
      group: 'example.com',
      names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              ...obj,
              properties: {
                spec: {
                  ...obj,
                  properties: {
                    size: { type: 'integer' },
                    mode: { type: 'string' },
                    items: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['name'],
                      items: { ...obj, required: ['name'], properties: { name: { type: 'string' }, value: { type: 'string' }, weight: { type: 'integer' } } },
                    },
                    endpoints: {
                      type: 'array',
                      'x-kubernetes-list-type': 'map',
                      'x-kubernetes-list-map-keys': ['host', 'port'],
                      items: { ...obj, required: ['host', 'port'], properties: { host: { type: 'string' }, port: { type: 'integer' }, path: { type: 'string' } } },
                    },
                    tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
                    config: { ...obj, additionalProperties: { type: 'string' } },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
}

function keyedFill(r, count, make, key) {
  const out = [];
  const seen = new Set();
  for (let i = 0; i < count; i++) {
    const e = make(r);
    if (!seen.has(key(e))) {
      seen.add(key(e));
      out.push(e);
    }
  }
  return out;
}

const widgetItemKey = (e) => e.name;
const endpointKey = (e) => `${e.host}:${e.port}`;

function widget(r, name, namespace) {
  const w = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: metadata(r, name, namespace), spec: {} };
  if (r.chance(0.7)) w.spec.size = r.int(1, 9);
  if (r.chance(0.5)) w.spec.mode = r.pick(['fast', 'safe', 'auto']);
  if (r.chance(0.85)) w.spec.items = keyedFill(r, r.int(1, 3), g.widgetItem, widgetItemKey);
  if (r.chance(0.6)) w.spec.endpoints = keyedFill(r, r.int(1, 2), g.endpoint, endpointKey);
  if (r.chance(0.5)) w.spec.tags = [...new Set(Array.from({ length: r.int(1, 3) }, () => g.tag(r)))];
  if (r.chance(0.4)) w.spec.config = { [r.pick(['color', 'owner', 'tier'])]: r.pick(['blue', 'team-a', 'gold']) };
  return w;
}

function makeResource(r, kind, name, namespace) {
  switch (kind) {
    case 'Deployment':
    case 'StatefulSet':
      return workload(r, kind, name, namespace);
    case 'Service':
      return service(r, name, namespace);
    case 'ConfigMap':
      return configMap(r, name, namespace);
    case 'Widget':
      return widget(r, name, namespace);
    case 'CustomResourceDefinition':
      return crd();
  }
  throw new Error(kind);
}

const fileFor = (obj) => `${obj.kind.toLowerCase()}-${obj.metadata.name}.yaml`;

// ---------------------------------------------------------------------------------------------
// Edit rules: what may be edited where, keyed by path pattern (`*` any key, `[]` any element)
// ---------------------------------------------------------------------------------------------

const NODE = { cls: 'node' };
const PROTECTED = { cls: 'protected' };
const scalar = (gen, o = {}) => ({ cls: 'scalar', gen, ...o });
const free = (key, value, o = {}) => ({ cls: 'free', key, value, ...o });
const struct = (fields, o = {}) => ({ cls: 'struct', fields, ...o });
const keyed = (key, make, o = {}) => ({ cls: 'keyed', key, make, ...o });
const element = (fields) => ({ cls: 'element', fields });
const atomic = (item, o = {}) => ({ cls: 'atomic', item, ...o });
const set = (item, o = {}) => ({ cls: 'set', item, ...o });
const OPT = { optional: true };

const META_RULES = {
  metadata: struct({ labels: (r) => ({ [g.labelKey(r)]: g.labelValue(r) }), annotations: (r) => ({ [g.annotationKey(r)]: g.annotationValue(r) }) }),
  'metadata.labels': free(g.labelKey, g.labelValue, OPT),
  'metadata.labels.*': scalar(g.labelValue, OPT),
  'metadata.annotations': free(g.annotationKey, g.annotationValue, { ...OPT, protect: ['internal.kpt.dev/upstream-identifier'] }),
  'metadata.annotations.*': scalar(g.annotationValue, OPT),
};

const POD = 'spec.template.spec';
const C = `${POD}.containers[]`;

const WORKLOAD_RULES = {
  ...META_RULES,
  spec: struct({ replicas: g.replicas }),
  'spec.replicas': scalar(g.replicas, OPT),
  'spec.strategy': struct({ rollingUpdate: (r) => ({ maxSurge: g.intOrPercent(r) }) }, OPT),
  'spec.strategy.type': scalar(() => 'RollingUpdate', OPT),
  'spec.strategy.rollingUpdate': struct({ maxSurge: g.intOrPercent, maxUnavailable: g.intOrPercent }, OPT),
  'spec.strategy.rollingUpdate.*': scalar(g.intOrPercent, OPT),
  'spec.serviceName': scalar((r) => `${r.pick(APPS)}-headless`),
  'spec.podManagementPolicy': scalar((r) => r.pick(['OrderedReady', 'Parallel']), OPT),
  'spec.volumeClaimTemplates': atomic((r) => g.pvc(r), { ...OPT, itemKey: (p) => p?.metadata?.name }),
  'spec.template': NODE,
  'spec.template.metadata': struct({ annotations: (r) => ({ [g.annotationKey(r)]: g.annotationValue(r) }) }),
  'spec.template.metadata.labels': free(g.labelKey, g.labelValue, { protect: ['app'] }),
  'spec.template.metadata.labels.*': scalar(g.labelValue, OPT),
  'spec.template.metadata.annotations': free(g.annotationKey, g.annotationValue, OPT),
  'spec.template.metadata.annotations.*': scalar(g.annotationValue, OPT),
  [POD]: struct({
    nodeSelector: (r) => ({ [r.pick(['kubernetes.io/os', 'node-role', 'topology.kubernetes.io/zone'])]: r.pick(['linux', 'worker', 'eu-west-1a']) }),
    securityContext: (r) => ({ runAsNonRoot: true, fsGroup: 2000 }),
    tolerations: (r) => [g.toleration(r)],
    serviceAccountName: (r) => r.pick(APPS),
    terminationGracePeriodSeconds: g.seconds,
    volumes: (r, ctx) => [volume(r, {})],
  }),
  [`${POD}.nodeSelector`]: free((r) => r.pick(['kubernetes.io/os', 'node-role', 'disktype']), (r) => r.pick(['linux', 'worker', 'ssd']), OPT),
  [`${POD}.nodeSelector.*`]: scalar((r) => r.pick(['linux', 'worker', 'ssd', 'infra']), OPT),
  [`${POD}.securityContext`]: struct({ runAsNonRoot: () => true, runAsUser: () => 1000, fsGroup: () => 2000 }, OPT),
  [`${POD}.securityContext.runAsNonRoot`]: scalar(g.bool, OPT),
  [`${POD}.securityContext.runAsUser`]: scalar((r) => r.pick([1000, 1001, 65532]), OPT),
  [`${POD}.securityContext.fsGroup`]: scalar((r) => r.pick([2000, 3000]), OPT),
  [`${POD}.tolerations`]: atomic(g.toleration, OPT),
  [`${POD}.serviceAccountName`]: scalar((r) => r.pick(APPS), OPT),
  [`${POD}.terminationGracePeriodSeconds`]: scalar(g.seconds, OPT),
  [`${POD}.containers`]: keyed((c) => c.name, (r, ctx) => {
    const taken = new Set(ctx.list.map((c) => c.name));
    const name = freshFrom(r, ['sidecar', 'proxy', 'metrics', 'init-db', 'log-shipper'], taken);
    return name && container(r, ctx.resource, name);
  }, { minLength: 1 }),
  [C]: element({
    imagePullPolicy: g.pullPolicy,
    args: (r) => [g.arg(r)],
    workingDir: (r) => r.pick(['/app', '/srv']),
    env: (r, ctx) => [envVar(r, {})],
    resources: (r) => ({ limits: { cpu: g.cpu(r), memory: g.memory(r) } }),
    readinessProbe: (r) => ({ httpGet: { path: '/healthz', port: 8080 }, periodSeconds: g.seconds(r) }),
    ports: (r, ctx) => [containerPort(r, ctx.resource.spec.template.spec, { ports: [] })],
    volumeMounts: (r, ctx) => [volumeMount(r, ctx.resource, {})],
  }),
  [`${C}.name`]: PROTECTED,
  [`${C}.image`]: scalar(g.image),
  [`${C}.imagePullPolicy`]: scalar(g.pullPolicy, OPT),
  [`${C}.workingDir`]: scalar((r) => r.pick(['/app', '/srv', '/work']), OPT),
  [`${C}.args`]: atomic(g.arg, OPT),
  [`${C}.command`]: atomic((r) => r.pick(['/bin/sh', '-c', 'exec app', '--']), OPT),
  [`${C}.ports`]: keyed(portKey, (r, ctx) => containerPort(r, ctx.resource.spec.template.spec, { ports: ctx.list }), OPT),
  [`${C}.ports[]`]: element({ name: (r, ctx) => freshFrom(r, PORT_NAMES, podPortNames(ctx.resource.spec.template.spec)), protocol: () => 'TCP' }),
  [`${C}.ports[].containerPort`]: PROTECTED,
  [`${C}.ports[].name`]: scalar((r, ctx) => freshFrom(r, PORT_NAMES, podPortNames(ctx.resource.spec.template.spec)), OPT),
  [`${C}.ports[].protocol`]: scalar((r) => r.pick(['TCP', 'UDP']), { ...OPT, keyPart: true }),
  [`${C}.env`]: keyed((e) => e.name, (r, ctx) => envVar(r, { env: ctx.list }), OPT),
  [`${C}.env[]`]: element({ value: g.envValue }),
  [`${C}.env[].name`]: PROTECTED,
  [`${C}.env[].value`]: scalar(g.envValue, OPT),
  [`${C}.env[].valueFrom`]: NODE,
  [`${C}.env[].valueFrom.configMapKeyRef`]: struct({ optional: () => true }),
  [`${C}.env[].valueFrom.configMapKeyRef.name`]: scalar((r) => `${r.pick(APPS)}-config`),
  [`${C}.env[].valueFrom.configMapKeyRef.key`]: scalar((r) => r.pick(CM_KEYS)),
  [`${C}.env[].valueFrom.configMapKeyRef.optional`]: scalar(g.bool, OPT),
  [`${C}.resources`]: struct({ limits: (r) => ({ cpu: g.cpu(r) }), requests: (r) => ({ memory: g.memory(r) }) }, OPT),
  [`${C}.resources.limits`]: free((r) => r.pick(['cpu', 'memory']), (r) => g.cpu(r), { ...OPT, valueFor: { cpu: g.cpu, memory: g.memory } }),
  [`${C}.resources.requests`]: free((r) => r.pick(['cpu', 'memory']), (r) => g.cpu(r), { ...OPT, valueFor: { cpu: g.cpu, memory: g.memory } }),
  [`${C}.resources.*.cpu`]: scalar(g.cpu, { ...OPT, quantity: true }),
  [`${C}.resources.*.memory`]: scalar(g.memory, OPT),
  [`${C}.volumeMounts`]: keyed((m) => m.mountPath, (r, ctx) => volumeMount(r, ctx.resource, { volumeMounts: ctx.list }), OPT),
  [`${C}.volumeMounts[]`]: element({ readOnly: () => true }),
  [`${C}.volumeMounts[].name`]: PROTECTED,
  [`${C}.volumeMounts[].mountPath`]: PROTECTED,
  [`${C}.volumeMounts[].readOnly`]: scalar(g.bool, OPT),
  [`${C}.readinessProbe`]: struct({ periodSeconds: g.seconds, initialDelaySeconds: g.seconds, timeoutSeconds: (r) => r.int(1, 5) }, OPT),
  [`${C}.readinessProbe.httpGet`]: NODE,
  [`${C}.readinessProbe.httpGet.path`]: scalar((r) => r.pick(['/healthz', '/ready', '/livez'])),
  [`${C}.readinessProbe.httpGet.port`]: scalar((r) => r.pick([80, 8080, 9090])),
  [`${C}.readinessProbe.*`]: scalar(g.seconds, OPT),
  [`${POD}.volumes`]: keyed((v) => v.name, (r, ctx) => volume(r, { volumes: ctx.list }), OPT),
  [`${POD}.volumes[]`]: element({}),
  [`${POD}.volumes[].name`]: PROTECTED,
  [`${POD}.volumes[].configMap`]: struct({ defaultMode: () => 420, optional: () => true }),
  [`${POD}.volumes[].configMap.name`]: scalar((r) => `${r.pick(APPS)}-config`),
  [`${POD}.volumes[].configMap.defaultMode`]: scalar((r) => r.pick([420, 256, 292]), OPT),
  [`${POD}.volumes[].configMap.optional`]: scalar(g.bool, OPT),
  [`${POD}.volumes[].emptyDir`]: struct({ medium: () => 'Memory', sizeLimit: (r) => r.pick(['64Mi', '1Gi']) }),
  [`${POD}.volumes[].emptyDir.*`]: scalar((r) => r.pick(['Memory', '']), OPT),
  [`${POD}.volumes[].emptyDir.sizeLimit`]: scalar((r) => r.pick(['64Mi', '128Mi', '1Gi']), OPT),
  [`${POD}.volumes[].secret`]: struct({ defaultMode: () => 256 }),
  [`${POD}.volumes[].secret.secretName`]: scalar((r) => `${r.pick(APPS)}-tls`),
  [`${POD}.volumes[].secret.defaultMode`]: scalar((r) => r.pick([256, 420]), OPT),
};

const SERVICE_RULES = {
  ...META_RULES,
  spec: struct({ type: (r) => r.pick(['ClusterIP', 'NodePort']), sessionAffinity: () => 'ClientIP' }),
  'spec.type': scalar((r) => r.pick(['ClusterIP', 'NodePort']), OPT),
  'spec.sessionAffinity': scalar((r) => r.pick(['None', 'ClientIP']), OPT),
  'spec.ports': keyed(portKey, (r, ctx) => servicePort(r, { spec: { ports: ctx.list } }), { minLength: 1 }),
  'spec.ports[]': element({ protocol: () => 'TCP', targetPort: (r) => r.pick(PORTS) }),
  'spec.ports[].port': PROTECTED,
  'spec.ports[].name': scalar((r, ctx) => freshFrom(r, PORT_NAMES, new Set(ctx.parentList.map((p) => p.name)))),
  'spec.ports[].targetPort': scalar((r) => (r.chance(0.5) ? r.pick(PORTS) : r.pick(PORT_NAMES)), OPT),
  'spec.ports[].protocol': scalar((r) => r.pick(['TCP', 'UDP']), { ...OPT, keyPart: true }),
};

const CONFIGMAP_RULES = {
  ...META_RULES,
  '': struct({ data: (r) => ({ [r.pick(CM_KEYS)]: g.cmValue(r) }) }),
  data: free((r) => r.pick(CM_KEYS), g.cmValue, OPT),
  'data.*': scalar(g.cmValue, OPT),
};

const WIDGET_RULES = {
  ...META_RULES,
  spec: struct({
    size: (r) => r.int(1, 9),
    mode: (r) => r.pick(['fast', 'safe']),
    items: (r) => [g.widgetItem(r)],
    endpoints: (r) => [g.endpoint(r)],
    tags: (r) => [g.tag(r)],
    config: (r) => ({ color: r.pick(['red', 'blue']) }),
  }),
  'spec.size': scalar((r) => r.int(1, 9), OPT),
  'spec.mode': scalar((r) => r.pick(['fast', 'safe', 'auto']), OPT),
  'spec.items': keyed(widgetItemKey, (r) => g.widgetItem(r), OPT),
  'spec.items[]': element({ weight: (r) => r.int(1, 9), value: (r) => r.pick(['x', 'y']) }),
  'spec.items[].name': PROTECTED,
  'spec.items[].value': scalar((r) => r.pick(['on-demand', 'reserved', 'x', 'y', 'z']), OPT),
  'spec.items[].weight': scalar((r) => r.int(1, 9), OPT),
  'spec.endpoints': keyed(endpointKey, (r) => g.endpoint(r), OPT),
  'spec.endpoints[]': element({ path: (r) => r.pick(['/', '/v2']) }),
  'spec.endpoints[].host': PROTECTED,
  'spec.endpoints[].port': PROTECTED,
  'spec.endpoints[].path': scalar((r) => r.pick(['/', '/v1', '/v2', '/healthz']), OPT),
  'spec.tags': set(g.tag, OPT),
  'spec.config': free((r) => r.pick(['color', 'owner', 'tier', 'zone']), (r) => r.pick(['blue', 'team-a', 'gold', 'eu'])),
  'spec.config.*': scalar((r) => r.pick(['blue', 'team-a', 'gold', 'eu', 'green']), OPT),
};

const RULES = {
  Deployment: WORKLOAD_RULES,
  StatefulSet: WORKLOAD_RULES,
  Service: SERVICE_RULES,
  ConfigMap: CONFIGMAP_RULES,
  Widget: WIDGET_RULES,
  CustomResourceDefinition: META_RULES,
};

const tokenise = (pattern) => (pattern === '' ? [] : pattern.split('.').flatMap((t) => (t.endsWith('[]') ? [t.slice(0, -2), '[]'] : [t])));
const COMPILED = Object.fromEntries(
  Object.entries(RULES).map(([kind, rules]) => [kind, Object.entries(rules).map(([p, rule]) => ({ tokens: tokenise(p), rule }))]),
);

function ruleFor(kind, path) {
  const tokens = path.map((s) => (typeof s === 'number' ? '[]' : s));
  let best;
  for (const { tokens: pat, rule } of COMPILED[kind] ?? []) {
    if (pat.length !== tokens.length) continue;
    if (!pat.every((t, i) => t === tokens[i] || (t === '*' && tokens[i] !== '[]'))) continue;
    const score = pat.filter((t) => t !== '*').length; // the most specific pattern wins
    if (!best || score > best.score) best = { score, rule };
  }
  return best?.rule ?? PROTECTED;
}

/** Every editable position in a resource: {path, rule}. */
function sites(obj) {
  const out = [];
  const walk = (value, path, parentRule) => {
    let rule = ruleFor(obj.kind, path);
    const last = path[path.length - 1];
    if (parentRule?.protect?.includes(last)) rule = PROTECTED;
    if (path.length) out.push({ path, rule });
    if (rule.cls === 'atomic' || rule.cls === 'set') return;
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, i], rule));
    else if (isObj(value)) for (const k of Object.keys(value)) walk(value[k], [...path, k], rule);
  };
  walk(obj, [], undefined);
  const root = ruleFor(obj.kind, []);
  if (root.cls === 'struct') out.push({ path: [], rule: root });
  return out.filter((s) => s.rule.cls !== 'protected' && s.rule.cls !== 'node');
}

const fmtPath = (path) => path.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('').replace(/^\./, '') || '(root)';

// ---------------------------------------------------------------------------------------------
// Edits
// ---------------------------------------------------------------------------------------------

/** Keeps a workload valid after an edit: mounts refer to existing volumes; no empty lists. */
function repair(obj) {
  const pod = obj?.spec?.template?.spec;
  if (!isObj(pod) || !Array.isArray(pod.containers)) return;
  const names = new Set(volumeNames(obj));
  for (const c of pod.containers) {
    if (!isObj(c) || !Array.isArray(c.volumeMounts)) continue;
    c.volumeMounts = c.volumeMounts.filter((m) => names.has(m.name));
    if (!c.volumeMounts.length) delete c.volumeMounts;
  }
}

function uniqueAfter(list, keyOf, index, replacement) {
  const keys = list.map((e, i) => (i === index ? keyOf(replacement) : keyOf(e)));
  return new Set(keys).size === keys.length;
}

/**
 * Applies one random edit at `site` of `res.obj`. Returns a description, or undefined when the
 * chosen edit does not apply here.
 */
function editAt(r, res, site, side) {
  const { path, rule } = site;
  const obj = res.obj;
  const parentPath = path.slice(0, -1);
  const key = path[path.length - 1];
  const parent = path.length ? getAt(obj, parentPath) : undefined;
  const value = path.length ? getAt(obj, path) : obj;
  const parentRule = ruleFor(obj.kind, parentPath);
  const inElementList = typeof key === 'string' && typeof parentPath[parentPath.length - 1] === 'number';
  const parentList = Array.isArray(parent) ? parent : inElementList ? getAt(obj, parentPath.slice(0, -1)) : [];
  const ctx = { resource: obj, list: Array.isArray(value) ? value : [], parentList };
  const where = `${obj.kind}/${obj.metadata.name} ${fmtPath(path)}`;
  const optional = rule.optional || parentRule.cls === 'free';
  const ops = [];
  const add = (w, name, fn) => ops.push([w, [name, fn]]);

  if (optional && !Array.isArray(parent)) {
    add(2, 'delete', () => {
      delete parent[key];
      return true;
    });
    add(1.2, 'null', () => {
      if (value === null) return false;
      parent[key] = null;
      return true;
    });
  }
  switch (rule.cls) {
    case 'scalar':
      add(5, 'change', () => {
        if (value === null) return false;
        for (let i = 0; i < 4; i++) {
          let next = rule.gen(r, ctx);
          if (parentRule.valueFor?.[key]) next = parentRule.valueFor[key](r);
          if (next === undefined || next === value) continue;
          if (rule.keyPart && inElementList) {
            const list = ctx.parentList;
            const index = parentPath[parentPath.length - 1];
            if (!uniqueAfter(list, portKey, index, { ...list[index], [key]: next })) return false;
          }
          parent[key] = next;
          return true;
        }
        return false;
      });
      if (rule.quantity && (typeof value === 'number' || /^\d+$/.test(String(value)))) {
        add(6, 'type-only change', () => {
          parent[key] = typeof value === 'number' ? String(value) : Number(value);
          return true;
        });
      }
      break;
    case 'free':
      add(5, 'add key', () => {
        if (!isObj(value)) return false;
        const k = rule.key(r, ctx);
        if (k in value) return false;
        value[k] = rule.valueFor?.[k] ? rule.valueFor[k](r) : rule.value(r, ctx);
        return true;
      });
      break;
    case 'struct':
    case 'element':
      add(4, 'add field', () => {
        if (!isObj(value)) return false;
        const absent = Object.keys(rule.fields).filter((f) => !(f in value));
        if (!absent.length) return false;
        const f = r.pick(absent);
        const v = rule.fields[f](r, { ...ctx, resource: obj });
        if (v === undefined || (Array.isArray(v) && v.some((x) => x === undefined))) return false;
        if (rule.cls === 'element' && f === 'protocol' && !uniqueAfter(ctx.parentList, portKey, key, { ...value, protocol: v })) return false;
        value[f] = v;
        return true;
      });
      break;
    case 'keyed':
      add(5, 'add element', () => {
        if (!Array.isArray(value)) return false;
        const e = rule.make(r, ctx);
        if (!e || value.some((x) => rule.key(x) === rule.key(e))) return false;
        value.splice(r.int(0, value.length), 0, e);
        return true;
      });
      add(4, 'delete element', () => {
        if (!Array.isArray(value) || value.length <= (rule.minLength ?? 0)) return false;
        value.splice(r.int(0, value.length - 1), 1);
        if (!value.length) delete parent[key];
        return true;
      });
      add(1, 'reorder', () => {
        if (!Array.isArray(value) || value.length < 2) return false;
        value.push(value.shift());
        return true;
      });
      break;
    case 'atomic':
    case 'set':
      add(4, 'add item', () => {
        if (!Array.isArray(value)) return false;
        const item = rule.item(r, ctx);
        if (rule.cls === 'set' && value.includes(item)) return false;
        if (rule.itemKey && value.some((x) => rule.itemKey(x) === rule.itemKey(item))) return false;
        value.splice(r.int(0, value.length), 0, item);
        return true;
      });
      add(3, 'remove item', () => {
        if (!Array.isArray(value) || value.length < 2) return false;
        value.splice(r.int(0, value.length - 1), 1);
        return true;
      });
      if (rule.cls === 'atomic') {
        add(3, 'change item', () => {
          if (!Array.isArray(value) || !value.length) return false;
          const i = r.int(0, value.length - 1);
          const item = rule.item(r, ctx);
          if (JSON.stringify(item) === JSON.stringify(value[i])) return false;
          if (rule.itemKey && value.some((x, j) => j !== i && rule.itemKey(x) === rule.itemKey(item))) return false;
          value[i] = item;
          return true;
        });
      }
      break;
  }
  if (!ops.length) return undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const [name, fn] = r.weighted(ops);
    if (fn()) {
      repair(obj);
      return `${side} ${where}: ${name}`;
    }
  }
  return undefined;
}

/** An upstream comment-only change: a comment on a scalar, preferably an atomic list's item. */
function commentAt(r, res, side) {
  const obj = res.obj;
  const all = sites(obj);
  const lists = all.filter((s) => s.rule.cls === 'atomic' && Array.isArray(getAt(obj, s.path)) && getAt(obj, s.path).some((x) => typeof x !== 'object'));
  const scalars = all.filter((s) => s.rule.cls === 'scalar' && getAt(obj, s.path) !== null && typeof getAt(obj, s.path) !== 'object');
  let holder;
  let key;
  let path;
  if (lists.length && r.chance(0.7)) {
    const site = r.pick(lists);
    holder = getAt(obj, site.path);
    key = r.int(0, holder.length - 1);
    if (typeof holder[key] === 'object') return undefined;
    path = [...site.path, key];
  } else if (scalars.length) {
    const site = r.pick(scalars);
    holder = getAt(obj, site.path.slice(0, -1));
    key = site.path[site.path.length - 1];
    path = site.path;
  } else return undefined;
  holder[COMMENTS] = { ...(holder[COMMENTS] ?? {}), [key]: r.pick(['pinned', 'see OPS-1234', 'reviewed', 'do not change']) };
  return { text: `${side} ${obj.kind}/${obj.metadata.name} ${fmtPath(path)}: comment-only change`, list: Array.isArray(holder) ? path.slice(0, -1) : undefined };
}

/**
 * Both sides edit the same list (or what is in it): where keyed, atomic and set merges differ, and
 * where kpt's treatment of CRD lists shows. Widgets' lists are preferred when there are any.
 */
function duel(r, origin, upstream, local, ops) {
  const both = origin.filter((o) => upstream.some((u) => u.file === o.file) && local.some((l) => l.file === o.file));
  const lists = both.flatMap((o) =>
    sites(o.obj)
      .filter((s) => ['keyed', 'set', 'atomic'].includes(s.rule.cls))
      .map((s) => ({ file: o.file, kind: o.obj.kind, path: s.path })),
  );
  if (!lists.length) return;
  const widgets = lists.filter((l) => l.kind === 'Widget');
  const target = widgets.length && r.chance(0.6) ? r.pick(widgets) : r.pick(lists);
  for (const [side, pkg] of [['upstream', upstream], ['local', local]]) {
    const res = pkg.find((x) => x.file === target.file);
    const within = sites(res.obj).filter((s) => s.path.length >= target.path.length && target.path.every((seg, i) => s.path[i] === seg));
    for (let attempt = 0; attempt < 4 && within.length; attempt++) {
      const done = editAt(r, res, r.pick(within), side);
      if (done) {
        ops.push(done);
        break;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------------

const KINDS = [
  [4, 'Deployment'],
  [3, 'Service'],
  [3, 'ConfigMap'],
  [2, 'StatefulSet'],
  [2, 'Widget'],
];

const identity = (obj) => `${obj.kind}|${obj.metadata.namespace ?? ''}|${obj.metadata.name}`;

function newResource(r, pkg, namespace, suffixes) {
  const hasCrd = pkg.some((x) => x.obj.kind === 'CustomResourceDefinition');
  for (let attempt = 0; attempt < 8; attempt++) {
    const kind = r.weighted(KINDS);
    if (kind === 'Widget' && !hasCrd) continue;
    const base = r.pick(APPS);
    const name = kind === 'Service' && r.chance(0.3) ? `${base}-svc` : `${base}${r.pick(suffixes)}`;
    const obj = makeResource(r, kind, name, namespace);
    if (pkg.some((x) => x.file === fileFor(obj) || identity(x.obj) === identity(obj))) continue;
    return { file: fileFor(obj), obj };
  }
  return undefined;
}

export function generateCase(seed) {
  const r = new Rng(seed);
  const strategy = r.weighted([
    [17, 'resource-merge'],
    [1.5, 'fast-forward'],
    [1.5, 'force-delete-replace'],
  ]);
  const namespace = r.chance(0.4) ? r.pick(NAMESPACES) : undefined;
  const fastForwardClean = strategy === 'fast-forward' && r.chance(0.5);

  // origin
  const origin = [];
  const count = r.weighted([[4, 2], [5, 3], [3, 4], [1, 5], [0.5, 6]]);
  if (r.chance(0.4)) {
    origin.push({ file: fileFor(crd()), obj: crd() });
    const w = widget(r, r.pick(APPS), namespace);
    origin.push({ file: fileFor(w), obj: w });
  }
  while (origin.length < count) {
    const res = newResource(r, origin, namespace, ['']);
    if (res) origin.push(res);
    else break;
  }
  // occasional origin comments (a real package has some)
  for (const res of origin) if (r.chance(0.2)) commentAt(r, res, 'origin');

  const upstream = origin.map((x) => ({ ...x, obj: clone(x.obj) }));
  const local = origin.map((x) => ({ ...x, obj: clone(x.obj) }));
  const ops = [];
  const fetchedStyle = r.chance(0.4);
  if (fetchedStyle) {
    // what `kpt pkg get` writes on every resource it fetches
    for (const res of local) {
      const ns = res.obj.metadata.namespace ?? '';
      res.mergeComment = `${ns}/${res.obj.metadata.name}`;
      const group = res.obj.apiVersion.includes('/') ? res.obj.apiVersion.split('/')[0] : '';
      res.obj.metadata.annotations = { ...(res.obj.metadata.annotations ?? {}), 'internal.kpt.dev/upstream-identifier': `${group}|${res.obj.kind}|${ns || 'default'}|${res.obj.metadata.name}` };
    }
    ops.push('local fetched by kpt pkg get: # kpt-merge comments and upstream-identifier annotations');
  }

  const upstreamEdits = r.weighted([[1, 0], [3, 1], [4, 2], [4, 3], [3, 4], [2, 6]]);
  const localEdits = fastForwardClean ? 0 : r.weighted([[2, 0], [3, 1], [4, 2], [4, 3], [3, 4], [2, 6]]);
  const upstreamPaths = [];

  const fieldEdits = (side, pkg, n, steer) => {
    for (let i = 0, tries = 0; i < n && tries < n * 6; tries++) {
      const candidates = pkg.filter((x) => origin.some((o) => o.file === x.file));
      if (!candidates.length) return;
      let res;
      let site;
      if (steer && upstreamPaths.length && r.chance(0.45)) {
        // aim at (or next to) something upstream changed, for conflicts
        const [file, path] = r.pick(upstreamPaths);
        res = pkg.find((x) => x.file === file);
        if (!res) continue;
        const near = sites(res.obj).filter((s) => {
          let common = 0;
          while (common < s.path.length && common < path.length && s.path[common] === path[common]) common++;
          return common >= 1 && common >= Math.min(s.path.length, path.length) - 1;
        });
        if (!near.length) continue;
        site = r.pick(near);
      } else {
        res = r.pick(candidates);
        const all = sites(res.obj);
        if (!all.length) continue;
        // choose the kind of position first, so that lists and maps are edited as often as scalars
        const weight = { scalar: 3, free: 1.5, struct: 1.2, element: 1.5, keyed: 2.5, atomic: 1.2, set: 0.8 };
        const classes = [...new Set(all.map((s) => s.rule.cls))];
        const quantities = all.filter((s) => s.rule.quantity);
        const cls = r.weighted(classes.map((k) => [weight[k] ?? 1, k]));
        site = quantities.length && r.chance(0.1) ? r.pick(quantities) : r.pick(all.filter((s) => s.rule.cls === cls));
      }
      const done = editAt(r, res, site, side);
      if (done) {
        ops.push(done);
        if (side === 'upstream') upstreamPaths.push([res.file, site.path]);
        i++;
      }
    }
  };

  fieldEdits('upstream', upstream, upstreamEdits, false);
  if (r.chance(0.1)) {
    const res = r.pick(upstream);
    const done = commentAt(r, res, 'upstream');
    if (done) {
      ops.push(done.text);
      // the situation where comment-only changes matter: local edits the same list
      const mine = local.find((x) => x.file === res.file);
      const site = mine && sites(mine.obj).find((s) => s.path.join('.') === done.list?.join('.'));
      const edited = !fastForwardClean && site && r.chance(0.7) && editAt(r, mine, site, 'local');
      if (edited) ops.push(edited);
    }
  }
  if (!fastForwardClean && r.chance(0.35)) duel(r, origin, upstream, local, ops);
  fieldEdits('local', local, localEdits, true);

  // resource level, upstream
  if (r.chance(0.25)) {
    const res = newResource(r, upstream, namespace, ['-new', '', '-v2']);
    if (res) {
      upstream.push(res);
      ops.push(`upstream add ${identity(res.obj)}`);
    }
  }
  if (r.chance(0.04) && !upstream.some((x) => x.obj.kind === 'CustomResourceDefinition')) {
    upstream.push({ file: fileFor(crd()), obj: crd() });
    const w = widget(r, `${r.pick(APPS)}-widget`, namespace);
    upstream.push({ file: fileFor(w), obj: w });
    ops.push('upstream add CRD and a Widget');
  }
  const deletable = (pkg) => pkg.filter((x) => x.obj.kind !== 'CustomResourceDefinition' || !pkg.some((y) => y.obj.kind === 'Widget'));
  if (r.chance(0.2) && upstream.length > 1) {
    const res = r.pick(deletable(upstream));
    upstream.splice(upstream.indexOf(res), 1);
    ops.push(`upstream delete ${identity(res.obj)}`);
  }
  if (r.chance(0.08)) {
    const res = r.pick(upstream.filter((x) => x.obj.kind !== 'CustomResourceDefinition'));
    if (res) {
      const renamed = { file: '', obj: clone(res.obj) };
      renamed.obj.metadata.name = `${res.obj.metadata.name}-v2`;
      renamed.file = fileFor(renamed.obj);
      if (!upstream.some((x) => x.file === renamed.file)) {
        upstream.splice(upstream.indexOf(res), 1, renamed);
        ops.push(`upstream rename ${identity(res.obj)} -> ${renamed.obj.metadata.name} (new file)`);
      }
    }
  }
  if (r.chance(0.04)) {
    const res = r.pick(upstream.filter((x) => x.obj.kind !== 'CustomResourceDefinition'));
    if (res) {
      res.obj.metadata.namespace = res.obj.metadata.namespace === 'platform' ? 'shop' : 'platform';
      ops.push(`upstream namespace change ${res.file} -> ${res.obj.metadata.namespace} (same file)`);
    }
  }
  if (r.chance(0.04)) {
    // kpt's identity includes the file path; ours does not (README deviation table)
    const res = r.pick(upstream.filter((x) => origin.some((o) => o.file === x.file) && x.obj.kind !== 'CustomResourceDefinition'));
    if (res) {
      ops.push(`upstream move ${res.file} -> moved/${res.file}`);
      res.file = `moved/${res.file}`;
    }
  }
  if (r.chance(0.015)) {
    upstream.length = 0;
    ops.push('upstream deletes every resource');
  }

  // resource level, local
  if (!fastForwardClean) {
    if (r.chance(0.2)) {
      const res = newResource(r, local, namespace, ['-local', '-extra']);
      if (res) {
        local.push(res);
        ops.push(`local add ${identity(res.obj)}`);
      }
    }
    if (r.chance(0.05)) {
      const res = newResource(r, [...local, ...upstream], namespace, ['-both']);
      if (res) {
        upstream.push({ ...res, obj: clone(res.obj) });
        const mine = { ...res, obj: clone(res.obj) };
        const site = r.pick(sites(mine.obj));
        const done = site && editAt(r, mine, site, 'local');
        local.push(mine);
        ops.push(`both add ${identity(res.obj)}${done ? ` (${done})` : ''}`);
      }
    }
    if (r.chance(0.15) && local.length > 1) {
      const res = r.pick(deletable(local));
      local.splice(local.indexOf(res), 1);
      ops.push(`local delete ${identity(res.obj)}`);
    }
    const fromOrigin = local.filter((x) => origin.some((o) => o.file === x.file) && x.obj.kind !== 'CustomResourceDefinition');
    if (r.chance(0.2) && fromOrigin.length) {
      const res = r.pick(fromOrigin);
      const o = origin.find((x) => x.file === res.file).obj;
      const name = `${o.metadata.name}-${r.pick(['prod', 'eu', 'blue', 'team-a'])}`;
      if (!local.some((x) => x.obj.kind === res.obj.kind && x.obj.metadata.name === name)) {
        res.obj.metadata.name = name;
        res.mergeComment = `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
        ops.push(`local rename ${identity(o)} -> ${name} (# kpt-merge comment)`);
      }
    }
    if (r.chance(0.12) && fromOrigin.length) {
      const res = r.pick(fromOrigin);
      const o = origin.find((x) => x.file === res.file).obj;
      res.obj.metadata.namespace = r.pick(['team-a', 'prod', 'staging'].filter((n) => n !== o.metadata.namespace));
      res.mergeComment = `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
      ops.push(`local namespace ${identity(o)} -> ${res.obj.metadata.namespace} (# kpt-merge comment)`);
    }
  }

  // With kpt pkg get's bookkeeping, a file local did not edit must be byte for byte what kpt wrote
  // (kpt compares files as text); main() fetches those from kpt.
  const fetched = fetchedStyle
    ? local
        .filter((res) => {
          const o = origin.find((x) => x.file === res.file);
          if (!o || res.mergeComment !== `${o.obj.metadata.namespace ?? ''}/${o.obj.metadata.name}`) return false;
          const mine = clone(res.obj);
          if (!isObj(mine.metadata?.annotations)) return false;
          delete mine.metadata.annotations['internal.kpt.dev/upstream-identifier'];
          if (!Object.keys(mine.metadata.annotations).length && !o.obj.metadata.annotations) delete mine.metadata.annotations;
          return sortedJson(mine) === sortedJson(o.obj);
        })
        .map((res) => res.file)
    : [];

  return {
    seed,
    strategy,
    ops,
    origin: renderPackage(origin),
    upstream: renderPackage(upstream),
    local: renderPackage(local),
    fetched,
  };
}

function sortedJson(value) {
  return JSON.stringify(value, (_, v) => (isObj(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v));
}

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

function applyComments(value, node) {
  if (value === null || typeof value !== 'object' || !node || !Array.isArray(node.items)) return;
  const comments = value[COMMENTS] ?? {};
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      const item = node.items[i];
      if (comments[i] !== undefined && isScalar(item)) item.comment = ` ${comments[i]}`;
      applyComments(v, item);
    });
  } else {
    for (const pair of node.items) {
      const k = pair.key?.value;
      if (comments[k] !== undefined && isScalar(pair.value)) pair.value.comment = ` ${comments[k]}`;
      applyComments(value[k], pair.value);
    }
  }
}

function renderResource(res) {
  const doc = new Document(res.obj, { aliasDuplicateObjects: false });
  applyComments(res.obj, doc.contents);
  let text = doc.toString({ lineWidth: 0, indentSeq: false });
  if (res.mergeComment !== undefined) text = text.replace(/^metadata:$/m, `metadata: # kpt-merge: ${res.mergeComment}`);
  return text;
}

function renderPackage(pkg) {
  const files = {};
  for (const res of [...pkg].sort((a, b) => a.file.localeCompare(b.file))) files[res.file] = renderResource(res);
  return files;
}

// ---------------------------------------------------------------------------------------------
// Oracle
// ---------------------------------------------------------------------------------------------

function run(cmd, args, env) {
  return new Promise((resolvePromise) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

/** kpt's error lines without anything that names a scratch directory. */
export function kptErrorText(stderr) {
  return stderr
    .split('\n')
    .filter((l) => /error/i.test(l) && !/^kpt-oracle: kpt pkg update/.test(l))
    .map((l) => l.replace(/\/[^\s'"]*kpt-(oracle|diff)[^\s'"]*/g, '<scratch>').trim())
    // kpt lists modified files in map order, which varies from run to run
    .map((l) => l.replace(/\[([^\]]*)\]/g, (_, files) => `[${files.split(/\s+/).filter(Boolean).sort().join(' ')}]`))
    .join('\n');
}

/**
 * Runs the oracle on one case's three packages; returns kpt's package or its error, and with
 * `withFetched` also the package as `kpt pkg get` wrote it (`fetched`).
 */
export async function runOracle(c, scratchRoot, { withFetched = false } = {}) {
  const dir = mkdtempSync(join(scratchRoot, 'case-'));
  try {
    writeFiles(join(dir, 'origin'), c.origin);
    writeFiles(join(dir, 'upstream'), c.upstream);
    writeFiles(join(dir, 'local'), c.local);
    const env = withFetched ? { KPT_ORACLE_FETCHED_DIR: join(dir, 'fetched') } : {};
    const res = await run('bash', [ORACLE, join(dir, 'origin'), join(dir, 'upstream'), join(dir, 'local'), join(dir, 'out'), c.strategy], env);
    if (res.code === 0) return { exitCode: 0, files: readFiles(join(dir, 'out')), ...(withFetched ? { fetched: readFiles(join(dir, 'fetched')) } : {}) };
    if (res.code === 3) return { exitCode: 3, error: kptErrorText(res.stderr) };
    throw new Error(`kpt-oracle.sh exited ${res.code}:\n${res.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Local files left as fetched become the text `kpt pkg get` wrote (a no-op update shows it). */
export async function applyFetched(c, scratchRoot) {
  if (!c.fetched?.length) return c;
  const fetched = await runOracle({ ...c, upstream: c.origin, local: c.origin, strategy: 'resource-merge' }, scratchRoot);
  if (fetched.exitCode !== 0) throw new Error(`kpt pkg get of origin failed: ${fetched.error}`);
  const local = { ...c.local };
  for (const file of c.fetched) local[file] = fetched.files[file];
  return { ...c, local };
}

/** `head`: the fields that name the case (`case` and `seed` here; gen-rule-fixtures.mjs has its own). */
export function fixtureText(head, c, kpt, generator = 'scripts/gen-differential-fixtures.mjs') {
  const fixture = {
    ...head,
    strategy: c.strategy,
    generator,
    ops: c.ops,
    origin: c.origin,
    upstream: c.upstream,
    local: c.local,
    kpt,
  };
  // A file that upstream or local left as it was in origin is a YAML alias of origin's text: the
  // parsed fixture holds every package in full, and the file stays small and shows what changed.
  const doc = new Document(fixture);
  const originMap = doc.get('origin', true);
  for (const side of ['upstream', 'local']) {
    const map = doc.get(side, true);
    for (const pair of map?.items ?? []) {
      const file = pair.key.value;
      if (c.origin[file] !== c[side][file]) continue;
      const target = originMap.get(file, true);
      target.anchor ??= `origin-${file.replace(/\.yaml$/, '').replace(/[^A-Za-z0-9_.-]/g, '_')}`;
      pair.value = doc.createAlias(target);
    }
  }
  return doc.toString({ lineWidth: 0, blockQuote: 'literal' });
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

/** The command line both fixture generators take (see their headers); `defaults` gives count, seed, out. */
export function parseCaseArgs(argv, defaults, scriptUrl) {
  const opts = { jobs: Math.max(1, cpus().length), only: undefined, dryRun: false, ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i];
    if (a === '--count') opts.count = Number(next());
    else if (a === '--seed') opts.seed = Number(next());
    else if (a === '--jobs') opts.jobs = Number(next());
    else if (a === '--out') opts.out = resolve(next());
    else if (a === '--only') opts.only = next().split(',').map(Number);
    else if (a === '--dry-run') opts.dryRun = true;
    else if (a === '--help' || a === '-h') {
      const header = readFileSync(fileURLToPath(scriptUrl), 'utf8').split('\n');
      console.log(header.slice(1, header.indexOf(' */') + 1).join('\n'));
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

async function main() {
  const opts = parseCaseArgs(process.argv.slice(2), { count: 220, seed: 20240601, out: DEFAULT_OUT }, import.meta.url);
  const indices = opts.only ?? Array.from({ length: opts.count }, (_, i) => i);
  if (opts.dryRun) {
    for (const i of opts.only ?? [0]) console.log(stringify({ case: i, ...generateCase(caseSeed(opts.seed, i)) }, { lineWidth: 0, blockQuote: 'literal' }));
    return;
  }
  mkdirSync(opts.out, { recursive: true });
  if (!opts.only) {
    for (const f of readdirSync(opts.out)) if (/^case-\d+\.yaml$/.test(f)) rmSync(join(opts.out, f));
  }
  await recordCases(indices, opts, 'kpt-diff-', async (i, scratch) => {
    const c = await applyFetched(generateCase(caseSeed(opts.seed, i)), scratch);
    const kpt = await runOracle(c, scratch);
    writeFileSync(join(opts.out, `case-${String(i).padStart(3, '0')}.yaml`), fixtureText({ case: i, seed: c.seed }, c, kpt));
    return kpt.exitCode === 0;
  });
}

/**
 * Records cases in parallel, `opts.jobs` at a time, in one scratch directory; `record` writes a case's
 * fixture and says whether kpt updated (else refused). Prints progress and a tally.
 */
export async function recordCases(indices, opts, scratchPrefix, record) {
  const scratch = mkdtempSync(join(tmpdir(), scratchPrefix));
  const started = Date.now();
  let next = 0;
  let done = 0;
  const tally = { ok: 0, refused: 0 };
  const worker = async () => {
    while (next < indices.length) {
      const i = indices[next++];
      tally[(await record(i, scratch)) ? 'ok' : 'refused']++;
      done++;
      if (done % 20 === 0 || done === indices.length) process.stderr.write(`  ${done}/${indices.length} cases\n`);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(opts.jobs, indices.length) }, worker));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`wrote ${indices.length} fixtures to ${relative(process.cwd(), opts.out) || '.'} in ${seconds} s (kpt succeeded ${tally.ok}, refused ${tally.refused})`);
}

/** Runs `main` when the module at `url` is the script node was started with. */
export function runAsScript(url, main) {
  if (!process.argv[1] || resolve(process.argv[1]) !== fileURLToPath(url)) return;
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}

runAsScript(import.meta.url, main);
