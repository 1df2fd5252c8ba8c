// PackageVariantSet fan-out at fleet scale.
//
// The requirements: issue 5, "10,000 Repository targets with four expressions each expand in under
// 5 s with peak RSS under 500 MB on this machine; report the time per target and how it grows from
// 1,000 to 10,000"; issue 14, "Fan-out, 100,000 Repository targets, four expressions each: under
// 10 s and under 1 GB peak RSS. Output byte-identical to the 10,000-target run's scheme."
//
// For each size N (default 1,000, 2,500, 5,000, 10,000, 100,000) a ResourceList is generated as
// `kpt fn eval` would send a fleet package: N Repository items (three labels each, kpt's path and
// index annotations) and a PackageVariantSet functionConfig whose repositorySelector selects all of
// them and whose template has four CEL expressions (packageExpr, a labelExprs and an
// annotationExprs valueExpr, an injector nameExpr). `node dist/main.js` runs on it with the
// ResourceList on stdin, BENCH_FANOUT_RUNS times (default 3; median reported); NODE_EXTRA_CA_CERTS
// is removed from its environment, as in startup.bench.mjs. Peak RSS (VmHWM from /proc/self/status)
// and CPU time (user + system, which machine load does not inflate the way it does wall time) come
// from a -r preload that writes them when the process exits. Every run must exit 0 and its output is
// checked: N PackageVariants, the info result's counts, and every expression's value on a sample.
// The scheme: every PackageVariant the 10,000-target run writes must be in the 100,000-target
// run's output byte for byte (the first 10,000 Repositories are the same in both).
//
// For information: a re-run over the 10,000-target run's own output (every PackageVariant
// unchanged), the steady state of a fleet package in CI (the 100,000-target output, 130 MB, is
// beyond the function's input limit); at the largest size, the same package with an options
// ConfigMap instead of the set, which reads and writes the ResourceList and does nothing else (the
// share of the time that any run over such a package pays), and the same fleet given as a v1 List
// functionConfig (the Repositories as the List's objects, standing for the cluster's).
//
// pass = at 10,000: median time < 5 s && peak RSS < 500 MB; at 100,000: median time < 10 s &&
// peak RSS < 1 GB; output correct at every size and the scheme the same.
//
// Tunables (environment): BENCH_FANOUT_SIZES (default 1000,2500,5000,10000,100000), BENCH_FANOUT_RUNS.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';

export const name = 'fanout';
export const description = 'PackageVariantSet fan-out over N Repository targets with four CEL expressions each (wall time, per target, peak RSS, growth)';

/** Per checked size: median wall time and peak RSS must stay under these. */
const TARGETS = [
  { size: 10_000, seconds: 5, rssMb: 500 },
  { size: 100_000, seconds: 10, rssMb: 1000 },
];
const SCHEME_SIZE = 10_000;
const SIZES = (process.env.BENCH_FANOUT_SIZES ?? '1000,2500,5000,10000,100000')
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

/**
 * Repository i as a sequence item at column `indent`; as kpt sends a package's items, with its path
 * and index annotations, or, as a List's object standing for a cluster object, without.
 */
function repository(i, indent, kptAnnotations) {
  const lines = [
    'apiVersion: config.porch.kpt.dev/v1alpha1',
    'kind: Repository',
    'metadata:',
    `  name: ${clusterName(i)}`,
    '  namespace: fleet',
    '  labels:',
    '    env: prod',
    `    region: ${REGIONS[i % REGIONS.length]}`,
    `    org: ${ORGS[i % ORGS.length]}`,
    ...(kptAnnotations
      ? [
          '  annotations:',
          `    config.kubernetes.io/index: '${i}'`,
          "    config.kubernetes.io/path: 'repositories.yaml'",
          `    internal.config.kubernetes.io/index: '${i}'`,
          "    internal.config.kubernetes.io/path: 'repositories.yaml'",
          "    internal.config.kubernetes.io/seqindent: 'compact'",
        ]
      : []),
    'spec:',
    '  type: git',
    '  deployment: true',
    '  git:',
    `    repo: https://git.example.com/fleet/${clusterName(i)}.git`,
    '    branch: main',
  ];
  const pad = ' '.repeat(indent);
  return lines.map((line, j) => `${pad}${j === 0 ? '- ' : '  '}${line}\n`).join('');
}

/** A fleet package as kpt sends it, with the set (or, for the baseline, options) as functionConfig. */
export function fleetResourceList(size, functionConfig = SET_CONFIG) {
  const items = [];
  for (let i = 0; i < size; i++) items.push(repository(i, 0, true));
  return `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
${items.join('')}${functionConfig}`;
}

/** The same fleet with the Repositories as objects of a v1 List functionConfig, beside the set. */
export function fleetAsList(size) {
  const set = SET_CONFIG.replace(/^functionConfig:\n/, '').replace(/^ {2}(?=\S)/, '  - ').replace(/^(?!  - )/gm, '  ').trimEnd();
  const repositories = [];
  for (let i = 0; i < size; i++) repositories.push(repository(i, 2, false));
  return `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items: []
functionConfig:
  apiVersion: v1
  kind: List
  items:
${set}
${repositories.join('')}`;
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
        rssKib: usage?.vmHwmKib ?? usage?.maxRSS ?? null,
        cpuSeconds: usage ? (usage.userCPUTime + usage.systemCPUTime) / 1e6 : null,
      });
    });
    child.stdin.end(input);
  });
}

/**
 * Each PackageVariant's text in an output, by name. The output is split as text, not parsed: at
 * 100,000 targets it is 130 MB, which `yaml` would take minutes to read.
 */
function variantTexts(output) {
  const start = output.indexOf('\nitems:\n') + 8;
  const end = Math.min(...['\nfunctionConfig:\n', '\nresults:\n'].map((key) => output.indexOf(key, start)).filter((at) => at !== -1));
  const items = output.slice(start, end + 1).split(/^(?=- )/m);
  const variants = new Map();
  for (const item of items) {
    if (!item.includes('\n  kind: PackageVariant\n')) continue;
    variants.set(/^ {4}name: (.*)$/m.exec(item)?.[1], item);
  }
  return variants;
}

/** Checks a first run's output; returns a list of problems. */
function verify(output, size) {
  const problems = [];
  const variants = variantTexts(output);
  if (variants.size !== size) problems.push(`${variants.size} PackageVariants, expected ${size}`);
  const info = (parse(output.slice(output.indexOf('\nresults:\n') + 1)).results ?? []).find((r) => r.severity === 'info');
  if (info?.tags?.created !== String(size)) problems.push(`info result ${JSON.stringify(info)}`);
  const byRepository = new Map([...variants.values()].map((text) => [/ {4}downstream:\n {6}repo: (.*)$/m.exec(text)?.[1], text]));
  for (const i of [0, Math.floor(size / 2), size - 1]) {
    const text = byRepository.get(clusterName(i));
    const variant = text && parse(text)[0];
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

/** The PackageVariants of the smaller run that the larger one does not write byte for byte. */
function schemeDifferences(smaller, larger) {
  const large = variantTexts(larger);
  return [...variantTexts(smaller)].filter(([name, text]) => large.get(name) !== text).map(([name]) => name);
}

const mb = (kib) => (kib === null ? null : round((kib * 1024) / 1e6, 1));

/** Runs the function once on `input` for information; returns its figures. */
async function infoRun(mainJs, preload, rssFile, input, what, log) {
  const outcome = await runFunction(mainJs, preload, rssFile, input);
  if (outcome.code !== 0) throw new Error(`${what}: exit ${outcome.code}: ${outcome.stdout.slice(-400)}`);
  const figures = { seconds: round(outcome.seconds), cpu_s: round(outcome.cpuSeconds ?? Number.NaN), peak_rss_mb: mb(outcome.rssKib) };
  log(`${what}: ${figures.seconds} s, CPU ${figures.cpu_s} s, peak RSS ${figures.peak_rss_mb} MB`);
  return { outcome, figures };
}

export async function run({ log, root }) {
  const mainJs = join(root, 'dist', 'main.js');
  if (!existsSync(mainJs)) throw new Error(`${mainJs} not found: run \`npm run build\` first (npm run bench does)`);
  const tmp = mkdtempSync(join(os.tmpdir(), 'pv-bench-fanout-'));
  const preload = join(tmp, 'rss.cjs');
  const rssFile = join(tmp, 'rss');
  // The peak is VmHWM, the process's own high-water mark: resourceUsage().maxRSS starts at the
  // RSS of the process that spawned it (Linux keeps it across exec), and this one holds 100 MB outputs.
  writeFileSync(
    preload,
    "process.on('exit', () => { const fs = require('node:fs'); const hwm = /VmHWM:\\s+(\\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8')); fs.writeFileSync(process.env.BENCH_RSS_FILE, JSON.stringify({ ...process.resourceUsage(), vmHwmKib: hwm ? Number(hwm[1]) : null })); });\n",
  );
  const figures = {};
  const problems = [];
  const outputs = new Map();
  const largest = Math.max(...SIZES);
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
          if (size === SCHEME_SIZE || size === largest) outputs.set(size, outcome.stdout);
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

    const schemeOutput = outputs.get(SCHEME_SIZE);
    if (schemeOutput && largest > SCHEME_SIZE) {
      const differing = schemeDifferences(schemeOutput, outputs.get(largest));
      if (differing.length) problems.push(`${differing.length} PackageVariants of the ${SCHEME_SIZE}-target run differ at N=${largest}, e.g. ${differing[0]}`);
      figures.scheme = { compared: SCHEME_SIZE, differing: differing.length };
      log(`the ${SCHEME_SIZE} PackageVariants of N=${SCHEME_SIZE} in the N=${largest} output, byte for byte: ${differing.length} differ`);
    }
    if (schemeOutput) {
      const rerunInput = schemeOutput.slice(0, schemeOutput.indexOf('\nresults:\n') + 1);
      const rerun = await infoRun(mainJs, preload, rssFile, rerunInput, `re-run over its own output at N=${SCHEME_SIZE}`, log);
      if (rerun.outcome.stdout.slice(0, rerunInput.length) !== rerunInput) problems.push(`re-run at N=${SCHEME_SIZE}: the items changed`);
      figures[`info_rerun_unchanged_n_${SCHEME_SIZE}`] = rerun.figures;
    }
    outputs.clear();
    const baseline = await infoRun(mainJs, preload, rssFile, fleetResourceList(largest, OPTIONS_CONFIG), `the same package with an options ConfigMap (read and write only) at N=${largest}`, log);
    figures[`info_read_and_write_only_n_${largest}`] = baseline.figures;
    const listForm = await infoRun(mainJs, preload, rssFile, fleetAsList(largest), `the fleet as a v1 List functionConfig at N=${largest}`, log);
    problems.push(...verify(listForm.outcome.stdout, largest).map((p) => `List form, N=${largest}: ${p}`));
    figures[`info_list_form_n_${largest}`] = { input_mb: round(Buffer.byteLength(fleetAsList(largest)) / 1e6, 1), ...listForm.figures };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }

  const small = figures.n_1000;
  const ten = figures.n_10000;
  if (small && ten) {
    figures.growth_1000_to_10000 = { time_ratio: round(ten.median_s / small.median_s, 2), per_target_ratio: round(ten.per_target_ms / small.per_target_ms, 2) };
  }
  const notes = problems.length ? problems : [];
  const met = TARGETS.map(({ size, seconds, rssMb }) => {
    const measured = figures[`n_${size}`];
    if (!measured) notes.push(`N=${size} was not measured (BENCH_FANOUT_SIZES), so its target counts as missed`);
    return !!measured && measured.median_s < seconds && measured.peak_rss_mb !== null && measured.peak_rss_mb < rssMb;
  });
  return {
    pass: problems.length === 0 && met.every(Boolean),
    target: `${TARGETS.map(({ size, seconds, rssMb }) => `N=${size}: median wall time < ${seconds} s and peak RSS < ${rssMb} MB`).join('; ')}; output correct at every size, the ${SCHEME_SIZE}-target PackageVariants the same at N=${largest}`,
    figures,
    notes,
  };
}
