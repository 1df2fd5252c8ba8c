// PackageVariantSet fan-out at fleet scale.
//
// The issue's requirement: "10,000 Repository targets with four expressions each expand in under
// 5 s with peak RSS under 500 MB on this machine; report the time per target and how it grows from
// 1,000 to 10,000."
//
// For each size N (default 1,000, 2,500, 5,000, 10,000) a ResourceList is generated as `kpt fn
// eval` would send a fleet package: N Repository items (three labels each, kpt's path and index
// annotations) and a PackageVariantSet functionConfig whose repositorySelector selects all of them
// and whose template has four CEL expressions (packageExpr, a labelExprs and an annotationExprs
// valueExpr, an injector nameExpr). `node dist/main.js` runs on it with the ResourceList on stdin,
// BENCH_FANOUT_RUNS times (default 3; median reported); NODE_EXTRA_CA_CERTS is removed from its
// environment, as in startup.bench.mjs. Peak RSS and CPU time (user + system, which machine load
// does not inflate the way it does wall time) come from a -r preload that writes
// process.resourceUsage() when the process exits. Every run must exit 0 and its output is
// checked: N PackageVariants, the info result's counts, and every expression's value on a sample.
//
// For information: a re-run over the largest size's own output (every PackageVariant unchanged), the
// steady state of a fleet package in CI; and the same package with an options ConfigMap instead
// of the set, which reads and writes the ResourceList and does nothing else: the share of the
// time that any run over such a package pays, whatever it does.
//
// pass = median time at 10,000 < 5 s && peak RSS at 10,000 < 500 MB, with correct output.
//
// Tunables (environment): BENCH_FANOUT_SIZES (default 1000,2500,5000,10000), BENCH_FANOUT_RUNS.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

export const name = 'fanout';
export const description = 'PackageVariantSet fan-out over N Repository targets with four CEL expressions each (wall time, per target, peak RSS, growth)';

const MAX_SECONDS = 5;
const MAX_RSS_MB = 500;
const TARGET_SIZE = 10_000;
const SIZES = (process.env.BENCH_FANOUT_SIZES ?? '1000,2500,5000,10000')
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n > 0);
const RUNS = Math.max(1, Number(process.env.BENCH_FANOUT_RUNS) || 3);
const REGIONS = ['useast1', 'uswest1', 'euwest1', 'apsouth1'];
const ORGS = ['hr', 'finance', 'retail'];

const round = (value, digits = 3) => Number(value.toFixed(digits));
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const clusterName = (i) => `cluster-${String(i).padStart(5, '0')}`;

const SET_CONFIG = `functionConfig:
  apiVersion: config.porch.kpt.dev/v1alpha2
  kind: PackageVariantSet
  metadata:
    name: edge
    namespace: fleet
  spec:
    upstream:
      repo: catalog
      package: proxy
      revision: 7
    targets:
    - repositorySelector:
        matchLabels:
          env: prod
      template:
        downstream:
          packageExpr: "packageDefault + '-' + repository.labels['region']"
        labelExprs:
        - key: org
          valueExpr: "repository.labels['org']"
        annotationExprs:
        - key: fleet.example.com/cluster
          valueExpr: "target.name + '.' + target.namespace"
        injectors:
        - nameExpr: "repository.labels['region'] + '-endpoints'"
`;

/** Options that make the function read the list and change nothing (no merge sources). */
const OPTIONS_CONFIG = `functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: options
  data:
    strategy: resource-merge
`;

/** A fleet package as kpt sends it, with the set (or, for the baseline, options) as functionConfig. */
export function fleetResourceList(size, functionConfig = SET_CONFIG) {
  const items = [];
  for (let i = 0; i < size; i++) {
    items.push(`- apiVersion: config.porch.kpt.dev/v1alpha1
  kind: Repository
  metadata:
    name: ${clusterName(i)}
    namespace: fleet
    labels:
      env: prod
      region: ${REGIONS[i % REGIONS.length]}
      org: ${ORGS[i % ORGS.length]}
    annotations:
      config.kubernetes.io/index: '${i}'
      config.kubernetes.io/path: 'repositories.yaml'
      internal.config.kubernetes.io/index: '${i}'
      internal.config.kubernetes.io/path: 'repositories.yaml'
      internal.config.kubernetes.io/seqindent: 'compact'
  spec:
    type: git
    deployment: true
    git:
      repo: https://git.example.com/fleet/${clusterName(i)}.git
      branch: main
`);
  }
  return `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
${items.join('')}${functionConfig}`;
}

/** Runs the function on `input`; resolves { code, seconds, stdout, stderr, rssKib, cpuSeconds }. */
function runFunction(mainJs, preload, rssFile, input) {
  const env = { ...process.env, BENCH_RSS_FILE: rssFile };
  delete env.NODE_EXTRA_CA_CERTS;
  rmSync(rssFile, { force: true });
  return new Promise((resolve, reject) => {
    const out = [];
    const err = [];
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, ['-r', preload, mainJs], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const usage = existsSync(rssFile) ? JSON.parse(readFileSync(rssFile, 'utf8')) : null;
      resolve({
        code,
        seconds,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        rssKib: usage?.maxRSS ?? null,
        cpuSeconds: usage ? (usage.userCPUTime + usage.systemCPUTime) / 1e6 : null,
      });
    });
    child.stdin.end(input);
  });
}

/** Checks a first run's output; returns a list of problems. */
function verify(output, size) {
  const problems = [];
  const list = parse(output, { maxAliasCount: -1 });
  const variants = list.items.filter((item) => item.kind === 'PackageVariant');
  if (variants.length !== size) problems.push(`${variants.length} PackageVariants, expected ${size}`);
  const info = (list.results ?? []).find((r) => r.severity === 'info');
  if (info?.tags?.created !== String(size)) problems.push(`info result ${JSON.stringify(info)}`);
  for (const i of [0, Math.floor(size / 2), size - 1]) {
    const variant = variants.find((v) => v.spec.downstream.repo === clusterName(i));
    const region = REGIONS[i % REGIONS.length];
    const expected = {
      downstream: { repo: clusterName(i), package: `proxy-${region}` },
      labels: { org: ORGS[i % ORGS.length] },
      annotations: { 'fleet.example.com/cluster': `${clusterName(i)}.fleet` },
      injectors: [{ name: `${region}-endpoints` }],
    };
    const actual = variant && { downstream: variant.spec.downstream, labels: variant.spec.labels, annotations: variant.spec.annotations, injectors: variant.spec.injectors };
    if (JSON.stringify(actual) !== JSON.stringify(expected)) problems.push(`${clusterName(i)}: got ${JSON.stringify(actual)}`);
  }
  return problems;
}

const mb = (kib) => (kib === null ? null : round((kib * 1024) / 1e6, 1));

export async function run({ log, root }) {
  const mainJs = join(root, 'dist', 'main.js');
  if (!existsSync(mainJs)) throw new Error(`${mainJs} not found: run \`npm run build\` first (npm run bench does)`);
  const tmp = mkdtempSync(join(os.tmpdir(), 'pv-bench-fanout-'));
  const preload = join(tmp, 'rss.cjs');
  const rssFile = join(tmp, 'rss');
  writeFileSync(preload, "process.on('exit', () => require('node:fs').writeFileSync(process.env.BENCH_RSS_FILE, JSON.stringify(process.resourceUsage())));\n");
  const figures = {};
  const problems = [];
  let largestOutput;
  try {
    for (const size of SIZES) {
      const input = fleetResourceList(size);
      const times = [];
      const cpu = [];
      let rssKib = 0;
      for (let r = 0; r < RUNS; r++) {
        const outcome = await runFunction(mainJs, preload, rssFile, input);
        if (outcome.code !== 0) throw new Error(`N=${size}: exit ${outcome.code}: ${outcome.stderr.slice(0, 400)}${outcome.stdout.slice(-800)}`);
        if (r === 0) {
          problems.push(...verify(outcome.stdout, size).map((p) => `N=${size}: ${p}`));
          if (size === Math.max(...SIZES)) largestOutput = outcome.stdout;
        }
        times.push(outcome.seconds);
        cpu.push(outcome.cpuSeconds ?? Number.NaN);
        rssKib = Math.max(rssKib, outcome.rssKib ?? 0);
      }
      const seconds = median(times);
      figures[`n_${size}`] = {
        input_mb: round(Buffer.byteLength(input) / 1e6, 1),
        median_s: round(seconds),
        per_target_ms: round((seconds * 1000) / size),
        median_cpu_s: round(median(cpu)),
        peak_rss_mb: mb(rssKib),
        runs_s: times.map((t) => round(t)),
      };
      log(`N=${size}: median ${round(seconds)} s (${round((seconds * 1000) / size)} ms per target), CPU ${round(median(cpu))} s, peak RSS ${mb(rssKib)} MB`);
    }

    if (largestOutput) {
      const size = Math.max(...SIZES);
      const rerunInput = largestOutput.slice(0, largestOutput.indexOf('\nresults:\n') + 1);
      const outcome = await runFunction(mainJs, preload, rssFile, rerunInput);
      if (outcome.code !== 0) throw new Error(`re-run at N=${size}: exit ${outcome.code}`);
      if (outcome.stdout.slice(0, rerunInput.length) !== rerunInput) problems.push(`re-run at N=${size}: the items changed`);
      figures[`info_rerun_unchanged_n_${size}`] = { seconds: round(outcome.seconds), cpu_s: round(outcome.cpuSeconds ?? Number.NaN), peak_rss_mb: mb(outcome.rssKib) };
      log(`re-run over its own output at N=${size}: ${round(outcome.seconds)} s, CPU ${round(outcome.cpuSeconds ?? Number.NaN)} s, peak RSS ${mb(outcome.rssKib)} MB`);

      const baseline = await runFunction(mainJs, preload, rssFile, fleetResourceList(size, OPTIONS_CONFIG));
      if (baseline.code !== 0) throw new Error(`baseline at N=${size}: exit ${baseline.code}`);
      figures[`info_read_and_write_only_n_${size}`] = { seconds: round(baseline.seconds), cpu_s: round(baseline.cpuSeconds ?? Number.NaN), peak_rss_mb: mb(baseline.rssKib) };
      log(`the same package with an options ConfigMap (read and write only) at N=${size}: ${round(baseline.seconds)} s, CPU ${round(baseline.cpuSeconds ?? Number.NaN)} s, peak RSS ${mb(baseline.rssKib)} MB`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }

  const small = figures.n_1000;
  const large = figures[`n_${TARGET_SIZE}`];
  if (small && large) {
    figures.growth_1000_to_10000 = { time_ratio: round(large.median_s / small.median_s, 2), per_target_ratio: round(large.per_target_ms / small.per_target_ms, 2) };
  }
  const notes = problems.length ? problems : [];
  if (!large) notes.push(`N=${TARGET_SIZE} was not measured (BENCH_FANOUT_SIZES), so the target counts as missed`);
  return {
    pass: problems.length === 0 && !!large && large.median_s < MAX_SECONDS && large.peak_rss_mb !== null && large.peak_rss_mb < MAX_RSS_MB,
    target: `N=${TARGET_SIZE}: median wall time < ${MAX_SECONDS} s and peak RSS < ${MAX_RSS_MB} MB, output correct at every size`,
    figures,
    notes,
  };
}
