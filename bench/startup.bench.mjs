// Start-up cost of the bundled function against a bare Node process.
//
// Acceptance criterion: the median wall time of `node dist/main.js` on a 10-resource package is at
// most 1.1x (issue 14) that of `node -e 0` measured in the same run; both figures are reported.
//
// Both commands get the same ResourceList on stdin and run interleaved (A B A B ...) so that drift
// in machine load affects both alike. NODE_EXTRA_CA_CERTS is removed from the children's
// environment for the checked pair: Node 20 loads that CA bundle eagerly at start-up (~90 ms on this
// machine), and kpt's function containers do not inherit it. The pair with the environment as-is is
// measured too, for information only.
//
// Tunables (environment): BENCH_STARTUP_RUNS (default 30), BENCH_STARTUP_WARMUPS (default 3).
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const name = 'startup';
export const description =
  'median wall time of `node dist/main.js` on a 10-resource package vs `node -e 0`, same stdin, interleaved';

const MAX_RATIO = 1.1;
const RUNS = Math.max(1, Number(process.env.BENCH_STARTUP_RUNS) || 30);
const WARMUPS = Math.max(0, Number(process.env.BENCH_STARTUP_WARMUPS ?? 3) || 0);
const OUTPUT_PREFIX = 'apiVersion: config.kubernetes.io/v1';

/** The annotations `kpt fn eval` adds to every resource it sends. */
function kptAnnotations(path, index, id) {
  return [
    `      config.kubernetes.io/index: '${index}'`,
    `      config.kubernetes.io/path: '${path}'`,
    `      internal.config.kubernetes.io/index: '${index}'`,
    `      internal.config.kubernetes.io/path: '${path}'`,
    `      internal.config.kubernetes.io/seqindent: 'compact'`,
    `      internal.config.kubernetes.io/annotations-migration-resource-id: '${id}'`,
    `      internal.config.kubernetes.io/id: '${id + 1}'`,
    `      config.k8s.io/id: '${id + 1}'`,
  ].join('\n');
}

function deployment(app, image, port, replicas, path, index, id) {
  return `- # ${app}: the ${app} tier
  apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: ${app} # keep in sync with the Service selector
    namespace: shop
    labels:
      app.kubernetes.io/name: ${app}
      app.kubernetes.io/part-of: shop
    annotations:
      owner: "team-${app}"
${kptAnnotations(path, index, id)}
  spec:
    replicas: ${replicas} # scaled by the HPA in production
    selector:
      matchLabels:
        app.kubernetes.io/name: ${app}
    strategy:
      type: RollingUpdate
      rollingUpdate: {maxSurge: 1, maxUnavailable: 0}
    template:
      metadata:
        labels:
          app.kubernetes.io/name: ${app}
          app.kubernetes.io/part-of: shop
      spec:
        serviceAccountName: ${app}
        securityContext:
          runAsNonRoot: true
          seccompProfile: {type: RuntimeDefault}
        containers:
        # the main container
        - name: ${app}
          image: ${image} # pinned by digest in the release pipeline
          args: ["--port", "${port}", --log-format=json]
          ports:
          - name: http
            containerPort: ${port}
            protocol: TCP
          env:
          - name: LOG_LEVEL
            value: info
          - name: CONFIG_PATH
            value: /etc/${app}/config.yaml
          - name: POD_NAME
            valueFrom:
              fieldRef: {fieldPath: metadata.name}
          envFrom:
          - configMapRef:
              name: ${app}-config
          resources:
            requests: {cpu: 100m, memory: 128Mi}
            limits:
              memory: 256Mi
          readinessProbe:
            httpGet: {path: /healthz, port: http}
            periodSeconds: 10
          volumeMounts:
          - name: config
            mountPath: /etc/${app}
            readOnly: true
        volumes:
        - name: config
          configMap:
            name: ${app}-config
`;
}

function service(app, port, path, index, id) {
  return `- apiVersion: v1
  kind: Service
  metadata:
    name: ${app}
    namespace: shop
    labels:
      app.kubernetes.io/name: ${app}
    annotations:
${kptAnnotations(path, index, id)}
  spec:
    type: ClusterIP
    selector:
      app.kubernetes.io/name: ${app} # must match the Deployment's pod labels
    ports:
    - name: http
      port: 80
      targetPort: http # the container's named port (${port})
      protocol: TCP
`;
}

function configMap(app, path, index, id) {
  return `- # settings read at start-up by ${app}
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: ${app}-config
    namespace: shop
    annotations:
${kptAnnotations(path, index, id)}
  data:
    # plain values
    LOG_FORMAT: json
    FEATURE_FLAGS: "checkout-v2,fast-search"
    TIMEOUT_SECONDS: "30" # quoted: ConfigMap values are strings
    config.yaml: |
      server:
        port: 8080
        gracefulShutdown: 15s
      upstreams:
        - name: catalog
          url: http://catalog.shop.svc.cluster.local
`;
}

/** A 10-resource ResourceList as `kpt fn eval` sends it: 4 Deployments, 3 Services, 3 ConfigMaps. */
export function tenResourceList() {
  let id = 0;
  const items = [
    deployment('web', 'nginx:1.25.4', 8080, 3, 'web/deployment.yaml', 0, id++),
    service('web', 8080, 'web/service.yaml', 0, id++),
    configMap('web', 'web/configmap.yaml', 0, id++),
    deployment('api', 'ghcr.io/example/shop-api:2.4.1', 9090, 2, 'api/deployment.yaml', 0, id++),
    service('api', 9090, 'api/service.yaml', 0, id++),
    configMap('api', 'api/configmap.yaml', 0, id++),
    deployment('worker', 'ghcr.io/example/shop-worker:2.4.1', 9100, 1, 'worker/deployment.yaml', 0, id++),
    configMap('worker', 'worker/configmap.yaml', 0, id++),
    deployment('cache', 'redis:7.2-alpine', 6379, 1, 'cache.yaml', 0, id++),
    service('cache', 6379, 'cache.yaml', 1, id++),
  ];
  return `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
${items.join('')}functionConfig:
  metadata:
    name: function-input
  data: {}
  kind: ConfigMap
  apiVersion: v1
`;
}

/** Linear-interpolated quantile of a sorted array, q in [0, 1]. */
function quantile(sorted, q) {
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low] + (sorted[high] - sorted[low]) * (position - low);
}

function summarise(millis) {
  const sorted = [...millis].sort((a, b) => a - b);
  const round = (value) => Number(value.toFixed(2));
  return {
    median_ms: round(quantile(sorted, 0.5)),
    p10_ms: round(quantile(sorted, 0.1)),
    p90_ms: round(quantile(sorted, 0.9)),
    min_ms: round(sorted[0]),
    max_ms: round(sorted[sorted.length - 1]),
    runs: sorted.length,
  };
}

function timeOnce(args, input, env) {
  const start = process.hrtime.bigint();
  const child = spawnSync(process.execPath, args, { input, env, maxBuffer: 64 * 1024 * 1024 });
  const millis = Number(process.hrtime.bigint() - start) / 1e6;
  return { millis, child };
}

function checkFunctionOutput(child, label) {
  if (child.error) throw new Error(`${label}: could not run the function: ${child.error.message}`);
  const stdout = child.stdout.toString('utf8');
  if (child.status !== 0 || !stdout.startsWith(OUTPUT_PREFIX)) {
    const stderr = child.stderr.toString('utf8').trim();
    throw new Error(
      `${label}: invalid function output (exit ${child.status ?? child.signal}, ` +
        `stdout starts ${JSON.stringify(stdout.slice(0, 80))}${stderr ? `, stderr ${JSON.stringify(stderr.slice(0, 400))}` : ''})`,
    );
  }
}

function checkBaseline(child, label) {
  if (child.error) throw new Error(`${label}: could not run node -e 0: ${child.error.message}`);
  if (child.status !== 0) throw new Error(`${label}: node -e 0 exited ${child.status ?? child.signal}`);
}

/** Interleaves the function (A) and `node -e 0` (B) with one environment; returns both summaries. */
function measurePair(mainJs, input, env, label, log) {
  const fnArgs = [mainJs];
  const baseArgs = ['-e', '0'];
  for (let i = 0; i < WARMUPS; i++) {
    checkFunctionOutput(timeOnce(fnArgs, input, env).child, `${label} warm-up ${i + 1}`);
    checkBaseline(timeOnce(baseArgs, input, env).child, `${label} warm-up ${i + 1}`);
  }
  const fn = [];
  const base = [];
  for (let i = 0; i < RUNS; i++) {
    const a = timeOnce(fnArgs, input, env);
    checkFunctionOutput(a.child, `${label} run ${i + 1}`);
    fn.push(a.millis);
    const b = timeOnce(baseArgs, input, env);
    checkBaseline(b.child, `${label} run ${i + 1}`);
    base.push(b.millis);
  }
  const fnSummary = summarise(fn);
  const baseSummary = summarise(base);
  const ratio = Number((fnSummary.median_ms / baseSummary.median_ms).toFixed(3));
  log(`${label}: function median ${fnSummary.median_ms} ms, node -e 0 median ${baseSummary.median_ms} ms, ratio ${ratio}x`);
  return { function: fnSummary, node_e_0: baseSummary, ratio_of_medians: ratio };
}

export async function run({ log, root }) {
  const mainJs = join(root, 'dist', 'main.js');
  if (!existsSync(mainJs)) throw new Error(`${mainJs} not found: run \`npm run build\` first (npm run bench does)`);
  const input = Buffer.from(tenResourceList(), 'utf8');

  const cleanEnv = { ...process.env };
  delete cleanEnv.NODE_EXTRA_CA_CERTS;
  const extraCaCerts = process.env.NODE_EXTRA_CA_CERTS;

  log(`input: 10 resources, ${input.length} bytes; bundle ${(statSync(mainJs).size / 1024).toFixed(0)} KiB; ${WARMUPS} warm-ups + ${RUNS} interleaved runs per command and environment`);
  const clean = measurePair(mainJs, input, cleanEnv, 'without NODE_EXTRA_CA_CERTS', log);
  const asIs = measurePair(mainJs, input, { ...process.env }, 'environment as-is', log);

  const notes = [];
  if (extraCaCerts === undefined) notes.push('NODE_EXTRA_CA_CERTS is not set here, so both pairs ran with the same environment');
  return {
    pass: clean.ratio_of_medians <= MAX_RATIO,
    target: `median(node dist/main.js) / median(node -e 0) ≤ ${MAX_RATIO}x, without NODE_EXTRA_CA_CERTS (the as-is pair is informational)`,
    figures: {
      input_bytes: input.length,
      checked_without_NODE_EXTRA_CA_CERTS: clean,
      info_environment_as_is: { NODE_EXTRA_CA_CERTS: extraCaCerts ?? '(unset)', ...asIs },
    },
    notes,
  };
}
