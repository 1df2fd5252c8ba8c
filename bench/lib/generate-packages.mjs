// Seeded generator of three versions of a package of N Deployments, for the merge benchmark.
//
//   origin    N Deployments, one a file (deployments/<name>.yaml), 50–80 lines each: labels,
//             annotations, comments, a main container (args, ports, env, envFrom, resources,
//             probes, volume mounts), sometimes a sidecar, volumes; plus a Kptfile.
//   upstream  origin with a random fifth of the Deployments edited (1–3 edits each: image bump,
//             env var added, replicas changed, label added, container port added, memory limit).
//   local     origin with a different random fifth edited (1–2 edits each). A quarter of the local
//             fifth overlaps upstream's fifth: most of those are edited on fields upstream did not
//             touch, some (about one in six, at least one) on the same field (replicas or image),
//             which makes a conflict that upstream wins.
//
// With `wide: true` each Deployment also has what larger ones carry (pod annotations, an init
// container, affinity, tolerations, spread constraints, more environment), about 4 KB a document
// instead of about 2 KB, 115–150 lines; drawn from a second seeded stream, so the Deployments without
// it are byte for byte those of the default.
//
// Every edit is recorded with the value the merged package must hold afterwards, so a benchmark
// can check the result: see `expectations` in the returned object.
//
// Node builtins only. Usage:
//   import { generatePackages, writePackages } from './lib/generate-packages.mjs';
//   const gen = generatePackages(1000, { seed: 42 });
//   writePackages(gen, '/tmp/x');   // → /tmp/x/{origin,upstream,local}
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** mulberry32: small, fast, good enough for test data. */
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (array) => array[Math.floor(next() * array.length)],
    chance: (p) => next() < p,
    shuffle(array) {
      const copy = [...array];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [copy[i], copy[j]] = [copy[j], copy[i]];
      }
      return copy;
    },
  };
}

const WORDS = ['cart', 'checkout', 'catalog', 'search', 'billing', 'ledger', 'auth', 'session', 'email', 'notify',
  'inventory', 'pricing', 'reviews', 'profile', 'media', 'thumbs', 'ingest', 'export', 'report', 'audit'];
const TEAMS = ['payments', 'storefront', 'platform', 'data', 'identity', 'growth'];
const TIERS = ['frontend', 'backend', 'worker'];
const REGISTRIES = ['ghcr.io/example', 'registry.example.com/shop', 'docker.io/examplecorp'];
const ENV_POOL = [
  ['LOG_LEVEL', 'info'], ['LOG_FORMAT', 'json'], ['HTTP_TIMEOUT', '30s'], ['CACHE_TTL', '300'],
  ['MAX_CONNECTIONS', '200'], ['FEATURE_FLAGS', 'fast-path,new-ui'], ['REGION', 'eu-west-1'],
  ['TRACING_ENABLED', 'true'], ['RETRY_LIMIT', '5'], ['QUEUE_NAME', 'jobs'], ['BATCH_SIZE', '64'],
  ['GOMAXPROCS', '2'],
];

const clone = (value) => structuredClone(value);

const ZONES = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'];
const TAINTS = [['dedicated', 'shop'], ['workload', 'batch'], ['example.com/spot', 'true'], ['gpu', 'absent']];
const WIDE_ENV = ['DB_HOST', 'DB_PORT', 'DB_NAME', 'DB_POOL_SIZE', 'REDIS_URL', 'KAFKA_BROKERS', 'METRICS_PORT',
  'SHUTDOWN_GRACE', 'UPSTREAM_URL', 'RATE_LIMIT', 'SESSION_TTL', 'LOCALE', 'TZ', 'SENTRY_ENVIRONMENT'];

/** What a wide Deployment adds to its model (see the header), from its own stream `r`. */
function wideParts(d, r) {
  const hex = () => Array.from({ length: 64 }, () => '0123456789abcdef'[r.int(0, 15)]).join('');
  const env = r.shuffle(WIDE_ENV).slice(0, r.int(4, 8)).map((name) => ({ name, value: `${d.word}-${name.toLowerCase().replace(/_/g, '-')}-${r.int(1, 999)}` }));
  return {
    podAnnotations: [['prometheus.io/scrape', 'true'], ['prometheus.io/port', String(r.pick([9090, 9102, 8081]))], ['prometheus.io/path', '/metrics'], ['checksum/config', hex()]],
    init: { image: `${r.pick(REGISTRIES)}/${d.word}-migrate:${r.int(1, 4)}.${r.int(0, 20)}.${r.int(0, 9)}`, timeout: r.int(30, 600) },
    wideEnv: env,
    zone: r.pick(ZONES),
    taints: r.shuffle(TAINTS).slice(0, r.int(2, 3)),
    maxSkew: r.int(1, 2),
    grace: r.pick([30, 45, 60, 90]),
    priority: r.pick(['shop-critical', 'shop-default', 'batch-low']),
  };
}

function renderWidePod(d, lines) {
  const w = d.wide;
  lines.push(`      terminationGracePeriodSeconds: ${w.grace}`, `      priorityClassName: ${w.priority}`, '      nodeSelector:', '        kubernetes.io/os: linux', `        topology.kubernetes.io/zone: ${w.zone}`);
  lines.push('      affinity:', '        podAntiAffinity:', '          preferredDuringSchedulingIgnoredDuringExecution:', '          - weight: 100', '            podAffinityTerm:');
  lines.push('              labelSelector:', '                matchExpressions:', '                - key: app.kubernetes.io/name', '                  operator: In', `                  values: [${d.name}]`, '              topologyKey: kubernetes.io/hostname');
  lines.push('      tolerations:');
  for (const [key, value] of w.taints) lines.push(`      - key: ${key}`, '        operator: Equal', `        value: ${q(value)}`, '        effect: NoSchedule');
  lines.push('      topologySpreadConstraints:', `      - maxSkew: ${w.maxSkew}`, '        topologyKey: topology.kubernetes.io/zone', '        whenUnsatisfiable: ScheduleAnyway', '        labelSelector:', '          matchLabels:', `            app.kubernetes.io/name: ${d.name}`);
  lines.push('      initContainers:', '      - name: migrate # runs the schema migrations before the service starts', `        image: ${w.init.image}`, `        command: ["/bin/migrate", "--timeout=${w.init.timeout}s", "--lock-table=schema_lock"]`);
  lines.push('        env:');
  for (const e of w.wideEnv.slice(0, 3)) lines.push(`        - name: ${e.name}`, `          value: ${q(e.value)}`);
  lines.push('        resources:', '          requests: {cpu: 50m, memory: 64Mi}', '          limits:', '            memory: 128Mi');
}

function makeDeployment(r, i) {
  const word = r.pick(WORDS);
  const name = `${word}-${String(i).padStart(5, '0')}`;
  const port = r.pick([8080, 8443, 9000, 3000, 5000]);
  const envCount = r.int(1, 3);
  const env = r.shuffle(ENV_POOL).slice(0, envCount).map(([k, v]) => ({ name: k, value: v }));
  const sidecar = r.chance(0.4);
  const volumes = [{ name: 'config', kind: 'configMap', ref: `${name}-config`, mountPath: `/etc/${word}` }];
  if (r.chance(0.5)) volumes.push({ name: 'cache', kind: 'emptyDir', mountPath: '/var/cache/app' });
  if (r.chance(0.3)) volumes.push({ name: 'tls', kind: 'secret', ref: `${name}-tls`, mountPath: '/etc/tls' });
  return {
    name,
    word,
    namespace: r.pick(['shop', 'shop-internal', 'batch']),
    team: r.pick(TEAMS),
    tier: r.pick(TIERS),
    labels: [['app.kubernetes.io/name', name], ['app.kubernetes.io/part-of', 'shop'], ['app.kubernetes.io/component', r.pick(TIERS)]],
    annotations: [['owner', `team-${r.pick(TEAMS)}@example.com`], ['description', `The ${word} service (#${i})`]],
    replicas: r.int(1, 6),
    rollingUpdate: r.chance(0.7),
    securityContext: r.chance(0.7),
    containers: [
      {
        name: word,
        image: `${r.pick(REGISTRIES)}/${word}:${r.int(1, 4)}.${r.int(0, 20)}.${r.int(0, 9)}`,
        args: ['--port', String(port), '--log-format=json'],
        ports: [{ name: 'http', containerPort: port, protocol: 'TCP' }],
        env,
        requests: { cpu: `${r.pick([50, 100, 250, 500])}m`, memory: `${r.pick([64, 128, 256, 512])}Mi` },
        limits: { memory: `${r.pick([256, 512, 1024])}Mi` },
        probes: r.chance(0.75),
        mounts: volumes.map((v) => ({ name: v.name, mountPath: v.mountPath, readOnly: v.kind !== 'emptyDir' })),
      },
      ...(sidecar
        ? [{
            name: 'log-shipper',
            image: `docker.io/fluent/fluent-bit:${r.int(2, 3)}.${r.int(0, 9)}`,
            ports: [],
            env: [{ name: 'FLUENT_OUTPUT', value: 'loki' }],
            requests: { cpu: '20m', memory: '32Mi' },
            limits: { memory: '64Mi' },
            probes: false,
            mounts: [{ name: 'cache', mountPath: '/var/log/app', readOnly: true }],
          }]
        : []),
    ],
    volumes,
  };
}

const q = (s) => (/^[\w./:@-]+$/.test(s) && !/^(true|false|null|yes|no|on|off|~|[-+]?[\d.]+(e[-+]?\d+)?)$/i.test(s) && !s.startsWith('-') ? s : JSON.stringify(s));

function renderContainer(c, isMain, lines, wideEnv) {
  lines.push(`      - name: ${c.name}${isMain ? ' # the main container' : ''}`);
  lines.push(`        image: ${c.image}${isMain ? ' # bumped by the release pipeline' : ''}`);
  if (c.args) lines.push(`        args: [${c.args.map((a) => JSON.stringify(a)).join(', ')}]`);
  if (c.ports.length) {
    lines.push('        ports:');
    for (const p of c.ports) lines.push(`        - name: ${p.name}`, `          containerPort: ${p.containerPort}`, `          protocol: ${p.protocol}`);
  }
  lines.push('        env:');
  for (const e of c.env) lines.push(`        - name: ${e.name}`, `          value: ${q(e.value)}`);
  for (const e of (isMain && wideEnv) || []) lines.push(`        - name: ${e.name}`, `          value: ${q(e.value)}`);
  if (isMain) {
    lines.push('        - name: POD_NAME', '          valueFrom:', '            fieldRef: {fieldPath: metadata.name}');
    lines.push('        envFrom:', '        - configMapRef:', `            name: ${c.name}-settings`);
  }
  lines.push('        resources:', `          requests: {cpu: ${c.requests.cpu}, memory: ${c.requests.memory}}`, '          limits:', `            memory: ${c.limits.memory}`);
  if (c.probes) {
    lines.push('        readinessProbe:', '          httpGet: {path: /healthz, port: http}', '          periodSeconds: 10');
    lines.push('        livenessProbe: {httpGet: {path: /livez, port: http}, initialDelaySeconds: 15}');
  }
  lines.push('        volumeMounts:');
  for (const m of c.mounts) lines.push(`        - {name: ${m.name}, mountPath: ${m.mountPath}${m.readOnly ? ', readOnly: true' : ''}}`);
}

/** Renders one Deployment model to YAML text (with comments, mixed flow and block style). */
export function renderDeployment(d) {
  const lines = [];
  lines.push(`# ${d.name}: owned by team ${d.team}, ${d.tier} tier`);
  lines.push('apiVersion: apps/v1', 'kind: Deployment', 'metadata:');
  lines.push(`  name: ${d.name} # must match the Service selector`, `  namespace: ${d.namespace}`, '  labels:');
  for (const [k, v] of d.labels) lines.push(`    ${k}: ${q(v)}`);
  lines.push('  annotations:');
  for (const [k, v] of d.annotations) lines.push(`    ${k}: ${q(v)}`);
  lines.push('spec:', `  replicas: ${d.replicas} # the HPA scales this in production`, '  selector:', '    matchLabels:', `      app.kubernetes.io/name: ${d.name}`);
  if (d.rollingUpdate) lines.push('  strategy:', '    type: RollingUpdate', '    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}');
  lines.push('  template:', '    metadata:', '      labels:', `        app.kubernetes.io/name: ${d.name}`, '        app.kubernetes.io/part-of: shop');
  if (d.wide) {
    lines.push('      annotations:');
    for (const [k, v] of d.wide.podAnnotations) lines.push(`        ${k}: ${q(v)}`);
  }
  lines.push('    spec:', `      serviceAccountName: ${d.name}`);
  if (d.securityContext) lines.push('      securityContext:', '        runAsNonRoot: true', '        seccompProfile: {type: RuntimeDefault}');
  if (d.wide) renderWidePod(d, lines);
  lines.push('      containers:');
  d.containers.forEach((c, index) => renderContainer(c, index === 0, lines, d.wide?.wideEnv));
  lines.push('      volumes:');
  for (const v of d.volumes) {
    lines.push(`      - name: ${v.name}`);
    if (v.kind === 'configMap') lines.push('        configMap:', `          name: ${v.ref}`);
    else if (v.kind === 'secret') lines.push('        secret:', `          secretName: ${v.ref}`, '          defaultMode: 420 # 0644');
    else lines.push('        emptyDir: {} # scratch space, lost on restart');
  }
  return `${lines.join('\n')}\n`;
}

const MIN_LINES = 50;
const MAX_ORIGIN_LINES = 72; // edits add up to ~8 lines; every version stays within 50–80

function lineCount(d) {
  return renderDeployment(d).split('\n').length - 1;
}

/** Pads or trims the main container's env list so the rendered origin is 50–72 lines. */
function fitLines(d, r) {
  const main = d.containers[0];
  const pool = ENV_POOL.filter(([k]) => !main.env.some((e) => e.name === k));
  while (lineCount(d) < MIN_LINES + r.int(0, 12) && pool.length) {
    const [k, v] = pool.splice(r.int(0, pool.length - 1), 1)[0];
    main.env.push({ name: k, value: v });
  }
  while (lineCount(d) > MAX_ORIGIN_LINES && main.env.length > 1) main.env.pop();
  while (lineCount(d) > MAX_ORIGIN_LINES && d.volumes.length > 1) {
    const removed = d.volumes.pop();
    for (const c of d.containers) c.mounts = c.mounts.filter((m) => m.name !== removed.name);
  }
  if (d.containers[1] && !d.containers[1].mounts.length) d.containers[1].mounts.push({ name: 'config', mountPath: '/etc/shipper', readOnly: true });
}

// --- edits ----------------------------------------------------------------------------------------
// Each edit: field (what it touches, to avoid or provoke overlap), apply(model, r) → expectation
// { description, check(js) → boolean } on the parsed merged Deployment.

const mainOf = (js) => js?.spec?.template?.spec?.containers?.[0];

function bumpImage(tagPrefix) {
  return {
    field: 'image',
    apply(d, r) {
      const c = d.containers[0];
      const image = `${c.image.split(':')[0]}:${tagPrefix}${r.int(5, 9)}.${r.int(0, 30)}.${r.int(0, 9)}`;
      c.image = image;
      return { description: `image ${image}`, check: (js) => mainOf(js)?.image === image };
    },
  };
}

function setReplicas(lo, hi) {
  return {
    field: 'replicas',
    apply(d, r) {
      let replicas = r.int(lo, hi);
      if (replicas === d.replicas) replicas += 1;
      d.replicas = replicas;
      return { description: `replicas ${replicas}`, check: (js) => js?.spec?.replicas === replicas };
    },
  };
}

function addEnv(name, value) {
  return {
    field: `env:${name}`,
    apply(d) {
      d.containers[0].env.push({ name, value });
      return { description: `env ${name}=${value}`, check: (js) => (mainOf(js)?.env ?? []).some((e) => e.name === name && e.value === value) };
    },
  };
}

function addLabel(key, valueOf) {
  return {
    field: `label:${key}`,
    apply(d, r) {
      const value = valueOf(r);
      d.labels.push([key, value]);
      return { description: `label ${key}=${value}`, check: (js) => js?.metadata?.labels?.[key] === value };
    },
  };
}

function addAnnotation(key, valueOf) {
  return {
    field: `annotation:${key}`,
    apply(d, r) {
      const value = valueOf(r);
      d.annotations.push([key, value]);
      return { description: `annotation ${key}=${value}`, check: (js) => js?.metadata?.annotations?.[key] === value };
    },
  };
}

const addMetricsPort = {
  field: 'port:metrics',
  apply(d) {
    d.containers[0].ports.push({ name: 'metrics', containerPort: 9090, protocol: 'TCP' });
    return { description: 'port metrics 9090', check: (js) => (mainOf(js)?.ports ?? []).some((p) => p.name === 'metrics' && p.containerPort === 9090) };
  },
};

function setMemoryLimit(values) {
  return {
    field: 'limits.memory',
    apply(d, r) {
      const c = d.containers[0];
      const options = values.filter((v) => v !== c.limits.memory);
      const memory = r.pick(options);
      c.limits.memory = memory;
      return { description: `limits.memory ${memory}`, check: (js) => mainOf(js)?.resources?.limits?.memory === memory };
    },
  };
}

function setCpuRequest(values) {
  return {
    field: 'requests.cpu',
    apply(d, r) {
      const c = d.containers[0];
      const cpu = r.pick(values.filter((v) => v !== c.requests.cpu));
      c.requests.cpu = cpu;
      return { description: `requests.cpu ${cpu}`, check: (js) => mainOf(js)?.resources?.requests?.cpu === cpu };
    },
  };
}

const UPSTREAM_EDITS = [
  bumpImage('2'),
  setReplicas(2, 8),
  addEnv('OTEL_EXPORTER_OTLP_ENDPOINT', 'http://otel-collector.observability:4317'),
  addLabel('app.kubernetes.io/version', (r) => `v2.${r.int(0, 30)}`),
  addMetricsPort,
  setMemoryLimit(['384Mi', '768Mi', '1536Mi']),
];

const LOCAL_EDITS = [
  addLabel('example.com/cost-center', (r) => `cc-${r.int(100, 999)}`),
  addEnv('LOCAL_PROFILE', 'staging'),
  setCpuRequest(['75m', '150m', '300m', '750m']),
  addAnnotation('example.com/oncall', (r) => r.pick(TEAMS)),
];

// The same-field edits that make conflicts (upstream wins).
const LOCAL_CONFLICTING = { replicas: setReplicas(10, 20), image: bumpImage('9') };

function pickEdits(r, pool, min, max, avoid = new Set()) {
  return r.shuffle(pool.filter((e) => !avoid.has(e.field))).slice(0, r.int(min, max));
}

/**
 * Generates the three versions. Returns { n, seed, files: { origin, upstream, local } (path → text),
 * expectations: Map<path, { kind, checks: [{ side, description, check }] }>, counts }.
 */
export function generatePackages(n, { seed = 1, wide = false } = {}) {
  const r = rng(seed * 1000003 + n);
  const w = wide ? rng(seed * 2000003 + n) : null;
  const kptfile = [
    'apiVersion: kpt.dev/v1', 'kind: Kptfile', 'metadata:', '  name: bench-pkg',
    '  annotations:', '    config.kubernetes.io/local-config: "true"',
    'info:', `  description: generated benchmark package, ${n} Deployments`, '',
  ].join('\n');
  const origin = new Map([['Kptfile', kptfile]]);
  const upstream = new Map([['Kptfile', kptfile]]);
  const local = new Map([['Kptfile', kptfile]]);
  const models = [];
  for (let i = 0; i < n; i++) {
    const d = makeDeployment(r, i);
    fitLines(d, r);
    if (w) d.wide = wideParts(d, w);
    models.push(d);
  }

  const fifth = Math.max(1, Math.round(n / 5));
  const order = r.shuffle([...Array(n).keys()]);
  const upstreamSet = order.slice(0, fifth);
  const overlapCount = Math.max(1, Math.round(fifth / 4));
  const overlap = upstreamSet.slice(0, overlapCount);
  const localSet = [...overlap, ...order.slice(fifth, fifth + (fifth - overlapCount))];
  const conflictCount = Math.max(1, Math.round(overlapCount / 6));

  const expectations = new Map();
  const lines = [];
  const upEdits = new Map();
  let conflicts = 0;

  for (const i of upstreamSet) {
    const d = clone(models[i]);
    const edits = pickEdits(r, UPSTREAM_EDITS, 1, 3);
    const checks = edits.map((e) => ({ side: 'upstream', field: e.field, ...e.apply(d, r) }));
    upEdits.set(i, { model: d, checks, fields: new Set(edits.map((e) => e.field)) });
  }
  const localModels = new Map();
  const localChecks = new Map();
  localSet.forEach((i, k) => {
    const d = clone(models[i]);
    const up = upEdits.get(i);
    let edits;
    if (up && k < conflictCount) {
      // Same field on both sides: a conflict; upstream's value must win.
      const shared = ['replicas', 'image'].find((f) => up.fields.has(f));
      edits = [shared ? LOCAL_CONFLICTING[shared] : LOCAL_CONFLICTING.replicas];
      if (!shared) {
        // Make it a real conflict: upstream changes replicas too.
        const extra = { side: 'upstream', field: 'replicas', ...UPSTREAM_EDITS[1].apply(up.model, r) };
        up.checks.push(extra);
        up.fields.add('replicas');
      }
      conflicts += 1;
    } else {
      edits = pickEdits(r, LOCAL_EDITS, 1, 2, up?.fields);
    }
    const checks = edits.map((e) => ({ side: 'local', field: e.field, ...e.apply(d, r) }));
    localModels.set(i, d);
    localChecks.set(i, checks);
  });

  for (let i = 0; i < n; i++) {
    const path = `deployments/${models[i].name}.yaml`;
    const base = renderDeployment(models[i]);
    origin.set(path, base);
    const up = upEdits.get(i);
    const upText = up ? renderDeployment(up.model) : base;
    upstream.set(path, upText);
    const loc = localModels.get(i);
    const locText = loc ? renderDeployment(loc) : base;
    local.set(path, locText);
    for (const text of new Set([base, upText, locText])) lines.push(text.split('\n').length - 1);

    const upChecks = up?.checks ?? [];
    const locChecks = localChecks.get(i) ?? [];
    if (!up && !loc) continue;
    const conflicting = locChecks.filter((c) => upChecks.some((u) => u.field === c.field));
    const kind = up && loc ? (conflicting.length ? 'conflict' : 'both') : up ? 'upstream-only' : 'local-only';
    expectations.set(path, {
      kind,
      index: i,
      // Upstream wins conflicts; the losing local edit is expected absent.
      checks: [...upChecks, ...locChecks.filter((c) => !conflicting.includes(c))],
      overridden: conflicting,
    });
  }

  return {
    n,
    seed,
    files: { origin, upstream, local },
    expectations,
    counts: {
      deployments: n,
      upstream_edited: upstreamSet.length,
      local_edited: localSet.length,
      edited_on_both_sides: overlapCount,
      same_field_conflicts: conflicts,
      lines_per_deployment: { min: Math.min(...lines), max: Math.max(...lines) },
      bytes_over_three_versions: [origin, upstream, local].reduce((sum, files) => sum + [...files.values()].reduce((s, text) => s + Buffer.byteLength(text), 0), 0),
    },
  };
}

/** Writes origin/, upstream/ and local/ under dir. */
export function writePackages(gen, dir) {
  const made = new Set();
  for (const [side, files] of Object.entries(gen.files)) {
    for (const [path, text] of files) {
      const full = join(dir, side, path);
      const parent = dirname(full);
      if (!made.has(parent)) {
        mkdirSync(parent, { recursive: true });
        made.add(parent);
      }
      writeFileSync(full, text);
    }
  }
  return { origin: join(dir, 'origin'), upstream: join(dir, 'upstream'), local: join(dir, 'local') };
}

/**
 * The same three versions with every `every`-th Deployment moved below `dir`, a subpackage with a
 * Kptfile of its own (the same in every version): a composite package, as kpt users have them.
 */
export function withSubpackage(gen, dir, every = 10) {
  const kptfile = ['apiVersion: kpt.dev/v1', 'kind: Kptfile', 'metadata:', `  name: ${dir}`, '  annotations:', '    config.kubernetes.io/local-config: "true"', 'info:', '  description: a subpackage of the generated benchmark package', ''].join('\n');
  const moved = new Map();
  [...gen.files.origin.keys()].filter((path) => path !== 'Kptfile').forEach((path, i) => {
    if (i % every === 0) moved.set(path, `${dir}/${path}`);
  });
  const move = (files) => new Map([...[...files].map(([path, text]) => [moved.get(path) ?? path, text]), [`${dir}/Kptfile`, kptfile]]);
  return {
    ...gen,
    files: { origin: move(gen.files.origin), upstream: move(gen.files.upstream), local: move(gen.files.local) },
    expectations: new Map([...gen.expectations].map(([path, expectation]) => [moved.get(path) ?? path, expectation])),
    counts: { ...gen.counts, subpackage: { directory: dir, deployments: moved.size } },
  };
}
