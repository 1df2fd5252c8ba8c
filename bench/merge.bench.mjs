// `package-variant update` (the CLI three-way merge) against the real `kpt pkg update`.
//
// The issue's requirement: "`kpt pkg update` grows quadratically: about 3 s for 100 resources and
// about 97 s for 1,000 on this machine. On generated packages of 100, 1,000 and 5,000 resources
// (Deployments of 50 to 80 lines, a fifth edited on each side), measure the CLI against `kpt pkg
// update` on the same three versions in the same run, and the peak RSS. Targets: at 1,000
// resources at least 30x faster than `kpt pkg update`; at 5,000 resources under 400 MB peak RSS;
// time from 1,000 to 5,000 resources grows at most 6x."
//
// For each size N, bench/lib/generate-packages.mjs (seeded) writes origin/, upstream/ and local/;
// then
//   - the CLI runs `node dist/main.js update <fresh copy of local> --origin … --upstream …`
//     (NODE_EXTRA_CA_CERTS removed from its environment, as in startup.bench.mjs), 3 times for
//     N < 5000 and once for N ≥ 5000 (BENCH_MERGE_RUNS / BENCH_MERGE_RUNS_LARGE); wall time is
//     measured around the child process, peak RSS and CPU time (user+sys, for information) with
//     /usr/bin/time -f '%M %U %S' (or, when that is missing, a -r preload that records
//     process.resourceUsage() at exit); the CLI runs from a copy of dist/ taken at the start;
//   - every run must exit 0, and its output is checked: untouched and local-only files are
//     byte-identical to local, upstream-only files equal upstream (parsed), every recorded upstream
//     and local edit is present, and same-field conflicts hold upstream's value;
//   - scripts/kpt-oracle.sh runs the real `kpt pkg update` on the same three directories, once per
//     size for N ≤ 1000 (N = 5000 takes ~40 min: only with BENCH_MERGE_KPT_5000=1). A `kpt` shim
//     first on PATH times the `kpt pkg update` call itself (and its peak RSS); the oracle's total
//     wall time, which adds git repository set-up and `kpt pkg get`, is reported as well. The
//     speed-up is taken against `kpt pkg update` alone (the stricter of the two). kpt's result is
//     compared with the CLI's (parsed, ignoring kpt's upstream-identifier annotation), for
//     information.
//
// Wall times on a shared machine move with its load: each size records the load average when it
// started (and a note when it exceeds the CPU count), and the kpt/CLI CPU-time ratio and the CPU
// growth are reported next to the wall-time figures, for information; the targets use wall time.
//
// pass = speed-up at 1000 ≥ 30x && peak RSS at 5000 < 400 MB && CLI(5000)/CLI(1000) ≤ 6, and the
// CLI's output is correct at every size. A target whose size was not measured counts as missed.
//
// Tunables (environment): BENCH_MERGE_SIZES (default 100,1000,5000), BENCH_MERGE_RUNS (default 3),
// BENCH_MERGE_RUNS_LARGE (runs for N ≥ 5000, default 1), BENCH_MERGE_KPT=0 (skip kpt entirely),
// BENCH_MERGE_KPT_5000=1 (also run kpt at N ≥ 5000), BENCH_MERGE_SEED (default 1),
// BENCH_MERGE_KEEP=1 (keep the temp directory; its path is logged).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { generatePackages, writePackages } from './lib/generate-packages.mjs';

export const name = 'merge';
export const description =
  '`package-variant update` vs real `kpt pkg update` on generated packages of 100/1,000/5,000 Deployments (wall time, peak RSS, growth)';

const MIN_SPEEDUP_1000 = 30;
const MAX_RSS_5000_MB = 400;
const MAX_GROWTH = 6;

const SIZES = (process.env.BENCH_MERGE_SIZES ?? '100,1000,5000')
  .split(',')
  .map((s) => Number(s.trim()))
  .filter((n) => Number.isInteger(n) && n > 0);
const RUNS = Math.max(1, Number(process.env.BENCH_MERGE_RUNS) || 3);
const RUNS_LARGE = Math.max(1, Number(process.env.BENCH_MERGE_RUNS_LARGE) || 1);
const RUN_KPT = process.env.BENCH_MERGE_KPT !== '0';
const KPT_LARGE = process.env.BENCH_MERGE_KPT_5000 === '1';
const SEED = Number(process.env.BENCH_MERGE_SEED) || 1;
const KEEP = process.env.BENCH_MERGE_KEEP === '1';
const LARGE = 5000;
const TIME_BIN = '/usr/bin/time';
const KPT_IDENTIFIER = 'internal.kpt.dev/upstream-identifier';

const round = (value, digits = 3) => (value === null || value === undefined ? value : Number(value.toFixed(digits)));
const kibToMB = (kib) => round((kib * 1024) / 1e6, 1);

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Spawns a command, resolves { code, signal, seconds, stdout, stderr }. */
function runTimed(command, args, env) {
  return new Promise((resolve, reject) => {
    const out = [];
    const err = [];
    const start = process.hrtime.bigint();
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      resolve({ code, signal, seconds, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** Last number in a file (/usr/bin/time -o prepends "Command exited with non-zero status" lines). */
function readKib(file) {
  if (!existsSync(file)) return null;
  const numbers = readFileSync(file, 'utf8').trim().split('\n').map(Number).filter(Number.isFinite);
  return numbers.length ? numbers[numbers.length - 1] : null;
}

/** The last line of a `%M %U %S` /usr/bin/time file (or the preload's): { rssKib, cpuSeconds }. */
function readUsage(file) {
  if (!existsSync(file)) return { rssKib: null, cpuSeconds: null };
  const last = readFileSync(file, 'utf8').trim().split('\n').pop().trim().split(/\s+/).map(Number);
  if (last.length !== 3 || !last.every(Number.isFinite)) return { rssKib: null, cpuSeconds: null };
  return { rssKib: last[0], cpuSeconds: last[1] + last[2] };
}

function listFiles(root, dir = '') {
  const found = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) found.push(...listFiles(root, path));
    else found.push(path);
  }
  return found.sort();
}

/**
 * Checks a merged package against the generator's expectations. Returns { checked, failures: [..],
 * headCommentLost }. strict: untouched and local-only files must be byte-identical to local, and
 * upstream-only files equal upstream including list order (true for the CLI, which writes only
 * changed files; kpt rewrites every file and appends new list entries, so its output is checked
 * with strict=false: parsed, named list entries compared in any order).
 */
function verifyMerged(gen, dir, { strict }) {
  const failures = [];
  const fail = (message) => failures.push(message);
  const present = new Set(listFiles(dir).filter((p) => !p.startsWith('.')));
  let checked = 0;
  let headCommentLost = 0;
  if (!present.has('Kptfile')) fail('Kptfile missing');
  for (const [path, localText] of gen.files.local) {
    if (path === 'Kptfile') continue;
    if (!present.has(path)) {
      fail(`${path}: missing`);
      continue;
    }
    const text = readFileSync(join(dir, path), 'utf8');
    const expectation = gen.expectations.get(path);
    checked += 1;
    if (localText.startsWith('# ') && !text.startsWith(localText.slice(0, localText.indexOf('\n') + 1))) headCommentLost += 1;
    if (!expectation || expectation.kind === 'local-only') {
      if (strict ? text !== localText : !isDeepStrictEqual(canonical(strip(parse(text))), canonical(parse(localText)))) fail(`${path} (${expectation?.kind ?? 'untouched'}): differs from local`);
      if (!expectation) continue;
    }
    let js;
    try {
      js = strip(parse(text));
    } catch (error) {
      fail(`${path}: does not parse: ${error.message}`);
      continue;
    }
    const same = strict ? isDeepStrictEqual(js, parse(gen.files.upstream.get(path))) : isDeepStrictEqual(canonical(js), canonical(parse(gen.files.upstream.get(path))));
    if (expectation.kind === 'upstream-only' && !same) fail(`${path} (upstream-only): differs from upstream`);
    for (const check of expectation.checks) if (!check.check(js)) fail(`${path} (${expectation.kind}): ${check.side} edit "${check.description}" missing`);
    for (const lost of expectation.overridden) if (lost.check(js)) fail(`${path} (conflict): local "${lost.description}" kept, upstream should win`);
  }
  for (const path of present) if (!gen.files.local.has(path)) fail(`${path}: unexpected file`);
  return { checked, failures, headCommentLost };
}

/** Drops kpt's upstream-identifier annotation (kpt adds it to every resource it merges). */
function strip(js) {
  const annotations = js?.metadata?.annotations;
  if (annotations && KPT_IDENTIFIER in annotations) delete annotations[KPT_IDENTIFIER];
  return js;
}

/** Sorts lists of named objects by name (kpt appends new list entries; the CLI keeps upstream's order). */
function canonical(value) {
  if (Array.isArray(value)) {
    const items = value.map(canonical);
    return items.every((item) => item && typeof item === 'object' && typeof item.name === 'string')
      ? items.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))
      : items;
  }
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, canonical(v)]));
  return value;
}

/**
 * Parsed comparison of two merged packages' deployment files: { differ: paths that differ,
 * orderOnly: how many of those differ only in the order of named list entries }.
 */
function comparePackages(gen, a, b) {
  const differ = [];
  let orderOnly = 0;
  for (const path of gen.files.local.keys()) {
    if (path === 'Kptfile') continue;
    const pa = join(a, path);
    const pb = join(b, path);
    if (!existsSync(pa) || !existsSync(pb)) {
      differ.push(path);
      continue;
    }
    const ja = strip(parse(readFileSync(pa, 'utf8')));
    const jb = strip(parse(readFileSync(pb, 'utf8')));
    if (isDeepStrictEqual(ja, jb)) continue;
    differ.push(path);
    if (isDeepStrictEqual(canonical(ja), canonical(jb))) orderOnly += 1;
  }
  return { differ, orderOnly };
}

function sameBytes(gen, a, b) {
  return [...gen.files.local.keys()].every((path) => {
    const pa = join(a, path);
    const pb = join(b, path);
    return existsSync(pa) && existsSync(pb) && readFileSync(pa).equals(readFileSync(pb));
  });
}

/** A `kpt` first on PATH that times `kpt pkg update` (ms, and peak RSS) and execs the real kpt. */
function writeKptShim(dir, realKpt, haveTime) {
  mkdirSync(dir, { recursive: true });
  const shim = join(dir, 'kpt');
  const measured = haveTime
    ? `${TIME_BIN} -f '%M %U %S' -o "$BENCH_KPT_TIMING_FILE.rss" "$BENCH_REAL_KPT" "$@" || rc=$?`
    : '"$BENCH_REAL_KPT" "$@" || rc=$?';
  writeFileSync(
    shim,
    `#!/usr/bin/env bash
# written by bench/merge.bench.mjs: times \`kpt pkg update\`, passes everything else through
if [[ "\${1:-}" == pkg && "\${2:-}" == update && -n "\${BENCH_KPT_TIMING_FILE:-}" ]]; then
  start=$(date +%s%N)
  rc=0
  ${measured}
  end=$(date +%s%N)
  echo $(( (end - start) / 1000000 )) > "$BENCH_KPT_TIMING_FILE"
  exit $rc
fi
exec "$BENCH_REAL_KPT" "$@"
`,
  );
  chmodSync(shim, 0o755);
  return shim;
}

async function runCli({ mainJs, dirs, work, run, env, haveTime, preload }) {
  const target = join(work, `cli-run-${run}`);
  rmSync(target, { recursive: true, force: true });
  cpSync(dirs.local, target, { recursive: true });
  const rssFile = join(work, `cli-run-${run}.rss`);
  rmSync(rssFile, { force: true });
  const cliArgs = [mainJs, 'update', target, '--origin', dirs.origin, '--upstream', dirs.upstream];
  const result = haveTime
    ? await runTimed(TIME_BIN, ['-f', '%M %U %S', '-o', rssFile, process.execPath, ...cliArgs], env)
    : await runTimed(process.execPath, ['-r', preload, ...cliArgs], { ...env, BENCH_MERGE_RSS_FILE: rssFile });
  if (result.code !== 0) {
    throw new Error(
      `CLI run ${run} exited ${result.code ?? result.signal}: ${result.stderr.trim().slice(0, 800)}\n${result.stdout.trim().slice(-800)}`,
    );
  }
  const lines = result.stdout.split('\n').filter(Boolean);
  return {
    dir: target,
    seconds: result.seconds,
    ...readUsage(rssFile),
    written: lines.filter((l) => l.startsWith('updated ')).length,
    conflicts: lines.filter((l) => /merge conflict/.test(l)).length,
    summary: lines.find((l) => /merged upstream changes/.test(l)) ?? null,
  };
}

async function runKpt({ root, dirs, work, shimDir, realKpt }) {
  const out = join(work, 'kpt-out');
  rmSync(out, { recursive: true, force: true });
  const timingFile = join(work, 'kpt-update.ms');
  rmSync(timingFile, { force: true });
  const env = {
    ...process.env,
    PATH: `${shimDir}:${process.env.PATH}`,
    BENCH_REAL_KPT: realKpt,
    BENCH_KPT_TIMING_FILE: timingFile,
  };
  const result = await runTimed('bash', [join(root, 'scripts', 'kpt-oracle.sh'), dirs.origin, dirs.upstream, dirs.local, out], env);
  if (result.code !== 0) throw new Error(`kpt-oracle.sh exited ${result.code ?? result.signal}: ${result.stderr.trim().slice(-1500)}`);
  const updateMs = readKib(timingFile);
  if (updateMs === null) throw new Error('the kpt shim recorded no `kpt pkg update` time (was the shim first on PATH?)');
  return { dir: out, oracleSeconds: result.seconds, updateSeconds: updateMs / 1000, ...readUsage(`${timingFile}.rss`) };
}

export async function run({ log, root }) {
  const mainJs = join(root, 'dist', 'main.js');
  if (!existsSync(mainJs)) throw new Error(`${mainJs} not found: run \`npm run build\` first (npm run bench does)`);
  if (SIZES.length === 0) throw new Error(`BENCH_MERGE_SIZES="${process.env.BENCH_MERGE_SIZES}" names no size`);

  const notes = [];
  const haveTime = existsSync(TIME_BIN);
  const tmp = mkdtempSync(join(os.tmpdir(), 'bench-merge-'));
  // The CLI runs from a snapshot of dist/, so a rebuild during this long benchmark cannot change
  // what is measured half-way through.
  const snapshot = join(tmp, 'dist');
  mkdirSync(snapshot);
  for (const file of readdirSync(join(root, 'dist'))) if (/^(main|function)\.js(\.map)?$/.test(file)) cpSync(join(root, 'dist', file), join(snapshot, file));
  const cliJs = join(snapshot, 'main.js');
  const bundle = createHash('sha256').update(readFileSync(join(snapshot, 'function.js'))).digest('hex').slice(0, 12);
  log(`work directory ${tmp}${KEEP ? ' (kept)' : ''}; seed ${SEED}; sizes ${SIZES.join(', ')}; dist snapshot, function.js sha256 ${bundle}…`);
  let preload = null;
  if (!haveTime) {
    preload = join(tmp, 'max-rss-preload.cjs');
    writeFileSync(
      preload,
      "process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').writeFileSync(process.env.BENCH_MERGE_RSS_FILE, `${u.maxRSS} ${u.userCPUTime / 1e6} ${u.systemCPUTime / 1e6}`); });\n",
    );
    notes.push(`${TIME_BIN} not found: peak RSS from process.resourceUsage().maxRSS at exit (-r preload)`);
  }

  const cliEnv = { ...process.env };
  delete cliEnv.NODE_EXTRA_CA_CERTS;

  let realKpt = null;
  let shimDir = null;
  if (RUN_KPT) {
    const which = spawnSync('bash', ['-c', 'command -v kpt'], { encoding: 'utf8' });
    realKpt = which.status === 0 ? which.stdout.trim() : null;
    if (!realKpt) notes.push('kpt not found on PATH: kpt was not run, so no speed-up could be measured');
    else {
      shimDir = join(tmp, 'kpt-shim');
      writeKptShim(shimDir, realKpt, haveTime);
      const version = spawnSync(realKpt, ['version'], { encoding: 'utf8' });
      log(`kpt ${version.stdout.trim() || '(version unknown)'} at ${realKpt}`);
    }
  } else notes.push('BENCH_MERGE_KPT=0: kpt was not run, so no speed-up could be measured');

  const figures = { seed: SEED, function_js_sha256: bundle, rss_unit: 'MB = 10^6 bytes', sizes: {} };
  const cliMedian = {};
  const cliCpuMedian = {};
  const cliRssMax = {};
  const kptUpdate = {};
  const kptCpu = {};
  const failures = [];

  try {
    for (const n of SIZES) {
      const work = join(tmp, `n${n}`);
      const began = process.hrtime.bigint();
      const gen = generatePackages(n, { seed: SEED });
      const dirs = writePackages(gen, work);
      log(`N=${n}: generated in ${(Number(process.hrtime.bigint() - began) / 1e9).toFixed(1)} s: ${JSON.stringify(gen.counts)}`);

      const runs = n >= LARGE ? RUNS_LARGE : RUNS;
      const loadavg = os.loadavg().map((load) => round(load, 2));
      if (loadavg[0] > os.cpus().length) notes.push(`N=${n}: load average ${loadavg[0]} on ${os.cpus().length} CPUs when it started: wall times are inflated by other processes (info_cpu_s_median is less affected)`);
      const cli = [];
      let cliError = null;
      for (let i = 1; i <= runs && !cliError; i++) {
        let result;
        try {
          result = await runCli({ mainJs: cliJs, dirs, work, run: i, env: cliEnv, haveTime, preload });
        } catch (error) {
          cliError = error.message;
          break;
        }
        cli.push(result);
        log(`N=${n}: CLI run ${i}/${runs}: ${result.seconds.toFixed(2)} s (CPU ${result.cpuSeconds === null ? '?' : result.cpuSeconds.toFixed(2)} s), peak RSS ${result.rssKib === null ? '?' : `${kibToMB(result.rssKib)} MB`}, ${result.written} files written, ${result.conflicts} conflicts reported`);
      }
      if (cliError) {
        failures.push(`N=${n}: ${cliError}`);
        log(`N=${n}: ${cliError.split('\n')[0]}`);
        figures.sizes[`n_${n}`] = { deployments: n, loadavg_at_start: loadavg, generated: gen.counts, cli: { error: cliError.split('\n')[0] }, kpt: 'not run: the CLI failed' };
        if (!KEEP) rmSync(work, { recursive: true, force: true });
        continue;
      }
      const verification = verifyMerged(gen, cli[0].dir, { strict: true });
      const identicalRuns = cli.slice(1).every((r) => sameBytes(gen, cli[0].dir, r.dir));
      if (!identicalRuns) verification.failures.push('CLI runs produced different output');
      for (const f of verification.failures) failures.push(`N=${n}: ${f}`);
      log(`N=${n}: CLI output checked: ${verification.checked} files, ${verification.failures.length} failures${verification.failures.length ? ` (first: ${verification.failures[0]})` : ''}`);

      const times = cli.map((r) => r.seconds);
      const rssValues = cli.map((r) => r.rssKib).filter((v) => v !== null);
      cliMedian[n] = median(times);
      const cpuTimes = cli.map((r) => r.cpuSeconds).filter((v) => v !== null);
      if (cpuTimes.length) cliCpuMedian[n] = median(cpuTimes);
      cliRssMax[n] = rssValues.length ? Math.max(...rssValues) : null;
      const entry = {
        deployments: n,
        loadavg_at_start: loadavg,
        generated: gen.counts,
        cli: {
          runs,
          wall_s_median: round(cliMedian[n]),
          wall_s_min: round(Math.min(...times)),
          wall_s_max: round(Math.max(...times)),
          info_cpu_s_median: cliCpuMedian[n] === undefined ? null : round(cliCpuMedian[n]),
          peak_rss_mb_max: cliRssMax[n] === null ? null : kibToMB(cliRssMax[n]),
          files_written: cli[0].written,
          conflicts_reported: cli[0].conflicts,
          output_check_failures: verification.failures.length,
          info_head_comment_lost: verification.headCommentLost,
        },
      };

      if (realKpt && (n < LARGE || KPT_LARGE)) {
        log(`N=${n}: running scripts/kpt-oracle.sh (real kpt pkg update)…`);
        const kpt = await runKpt({ root, dirs, work, shimDir, realKpt });
        kptUpdate[n] = kpt.updateSeconds;
        const kptCheck = verifyMerged(gen, kpt.dir, { strict: false });
        const { differ, orderOnly } = comparePackages(gen, cli[0].dir, kpt.dir);
        entry.kpt = {
          runs: 1,
          pkg_update_wall_s: round(kpt.updateSeconds),
          oracle_total_wall_s: round(kpt.oracleSeconds),
          pkg_update_peak_rss_mb: kpt.rssKib === null ? null : kibToMB(kpt.rssKib),
          info_pkg_update_cpu_s: kpt.cpuSeconds === null ? null : round(kpt.cpuSeconds),
          info_expectation_failures_on_kpt_output: kptCheck.failures.length,
        };
        entry.speedup_vs_kpt_pkg_update = round(kpt.updateSeconds / cliMedian[n], 2);
        entry.speedup_vs_oracle_total = round(kpt.oracleSeconds / cliMedian[n], 2);
        if (kpt.cpuSeconds !== null && cliCpuMedian[n] !== undefined) {
          entry.info_cpu_time_ratio_kpt_to_cli = round(kpt.cpuSeconds / cliCpuMedian[n], 2);
          kptCpu[n] = kpt.cpuSeconds;
        }
        entry.info_files_differing_cli_vs_kpt = { parsed: differ.length, only_in_list_entry_order: orderOnly };
        entry.kpt.info_head_comment_lost = kptCheck.headCommentLost;
        log(`N=${n}: kpt pkg update ${kpt.updateSeconds.toFixed(2)} s (oracle total ${kpt.oracleSeconds.toFixed(2)} s), peak RSS ${kpt.rssKib === null ? '?' : `${kibToMB(kpt.rssKib)} MB`}; speed-up ${entry.speedup_vs_kpt_pkg_update}x; ${differ.length} files differ from the CLI's (parsed)${differ.length ? `, e.g. ${differ.slice(0, 3).join(', ')}` : ''}`);
        if (differ.length) notes.push(`N=${n}: ${differ.length} merged files differ (parsed) between the CLI and kpt, ${orderOnly} of them only in the order of named list entries (kpt appends entries upstream added; the CLI keeps upstream's order), e.g. ${differ.slice(0, 3).join(', ')}`);
        if (verification.headCommentLost) notes.push(`N=${n}: the CLI dropped the leading "# …" comment line of ${verification.headCommentLost} of the files it wrote (kpt: ${kptCheck.headCommentLost})`);
        if (kptCheck.failures.length) notes.push(`N=${n}: kpt's own output fails ${kptCheck.failures.length} generator expectations, e.g. ${kptCheck.failures[0]}`);
      } else if (realKpt) {
        entry.kpt = `not run at N=${n} (about 40 min; BENCH_MERGE_KPT_5000=1 runs it)`;
      }
      figures.sizes[`n_${n}`] = entry;
      if (!KEEP) rmSync(work, { recursive: true, force: true });
    }
  } finally {
    if (!KEEP) rmSync(tmp, { recursive: true, force: true });
  }

  if (realKpt && SIZES.some((n) => n >= LARGE) && !KPT_LARGE) notes.push(`kpt pkg update was not run at N=${LARGE} (about 40 minutes); set BENCH_MERGE_KPT_5000=1 to run it`);
  notes.push(`CLI wall time is the median of ${RUNS} runs for N < ${LARGE} and of ${RUNS_LARGE} run(s) for N ≥ ${LARGE}; kpt ran once per size`);

  const speedup = kptUpdate[1000] !== undefined && cliMedian[1000] !== undefined ? kptUpdate[1000] / cliMedian[1000] : null;
  const rss5000 = cliRssMax[LARGE] !== undefined && cliRssMax[LARGE] !== null ? (cliRssMax[LARGE] * 1024) / 1e6 : null;
  const growth = cliMedian[1000] !== undefined && cliMedian[LARGE] !== undefined ? cliMedian[LARGE] / cliMedian[1000] : null;
  const verdict = (value, ok) => (value === null ? 'not measured' : ok ? 'pass' : 'FAIL');
  figures.targets = {
    speedup_at_1000: { value: round(speedup, 2), target: `>= ${MIN_SPEEDUP_1000}x`, result: verdict(speedup, speedup >= MIN_SPEEDUP_1000) },
    peak_rss_mb_at_5000: { value: round(rss5000, 1), target: `< ${MAX_RSS_5000_MB} MB`, result: verdict(rss5000, rss5000 < MAX_RSS_5000_MB) },
    growth_1000_to_5000: { value: round(growth, 2), target: `<= ${MAX_GROWTH}x`, result: verdict(growth, growth <= MAX_GROWTH) },
    cli_output_correct: { failures: failures.length, result: failures.length ? 'FAIL' : 'pass' },
  };
  if (cliCpuMedian[1000] !== undefined && cliCpuMedian[LARGE] !== undefined) figures.targets.info_cpu_growth_1000_to_5000 = round(cliCpuMedian[LARGE] / cliCpuMedian[1000], 2);
  if (kptCpu[1000] !== undefined) figures.targets.info_cpu_time_ratio_at_1000 = round(kptCpu[1000] / cliCpuMedian[1000], 2);
  figures.targets.info_loadavg_at_end = os.loadavg().map((load) => round(load, 2));
  if (speedup !== null && kptUpdate[100] !== undefined && cliMedian[100] !== undefined) figures.targets.info_speedup_at_100 = round(kptUpdate[100] / cliMedian[100], 2);
  for (const f of failures.slice(0, 5)) notes.push(`output check: ${f}`);
  if (failures.length > 5) notes.push(`output check: … ${failures.length - 5} more failures`);
  const unmeasured = Object.entries(figures.targets).filter(([, t]) => t.result === 'not measured').map(([k]) => k);
  if (unmeasured.length) notes.push(`not measured in this run (counted as missed): ${unmeasured.join(', ')}`);

  return {
    pass:
      speedup !== null && speedup >= MIN_SPEEDUP_1000 &&
      rss5000 !== null && rss5000 < MAX_RSS_5000_MB &&
      growth !== null && growth <= MAX_GROWTH &&
      failures.length === 0,
    target: `at 1,000: ≥ ${MIN_SPEEDUP_1000}x faster than \`kpt pkg update\`; at 5,000: peak RSS < ${MAX_RSS_5000_MB} MB; CLI(5,000)/CLI(1,000) ≤ ${MAX_GROWTH}x; CLI output correct`,
    figures,
    notes,
  };
}
