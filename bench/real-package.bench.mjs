// `package-variant update pkg@<ref>` against `kpt pkg update pkg@<ref>` on real composite packages:
// upgrades from the real-history corpus (test/fixtures/real-history, rebuilt from the local mirrors
// of the public repositories by scripts/lib/real-history-fixture.cjs).
//
// Issue 14: "update, a real composite package (a multi-version package from the corpus you built
// for the real-packages issue, with its subpackages): report ours against kpt." No pass/fail target:
// the figures are reported. Without the mirrors the benchmark says so in one line and passes.
//
// Cases (BENCH_REAL_CASES, comma-separated ids): Nephio's `distros/gcp/nephio-mgmt` v2.0.0 → v3.0.0,
// whose six subpackages kpt then updates from their own upstream (nephio-example-packages), and the
// blueprints' `anthos-cluster` v0.1.2 → v0.2.0, with its `acm` and `gke` subpackages. Each case's
// edited package is committed in a downstream repository, as its user has it; git and kpt run
// hermetically, the https URLs the Kptfiles record served from the mirrors (`insteadOf`). Both
// caches are warmed by one untimed run on a copy; then, each on a fresh copy, kpt runs once and ours
// BENCH_REAL_RUNS times (default 5; hyperfine where installed, bench/lib/process-timing.mjs).
// BENCH_REAL_KEEP=1 keeps the scratch directory.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { kibToMB, median, processTiming, round } from './lib/process-timing.mjs';

export const name = 'real-package';
export const description = '`package-variant update` vs `kpt pkg update` (git mode, warm caches) on real composite packages of the real-history corpus';

const CASES = (process.env.BENCH_REAL_CASES ?? 'catalog--distros_gcp_nephio-mgmt--v2.0.0--v3.0.0--1,blueprints--anthos-cluster--v0.1.2--v0.2.0--1').split(',').map((id) => id.trim()).filter(Boolean);
const RUNS = Math.max(1, Number(process.env.BENCH_REAL_RUNS) || 5);
const KEEP = process.env.BENCH_REAL_KEEP === '1';

function must(command, args, options) {
  const run = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 28, ...options });
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${run.status ?? run.signal}: ${(run.stderr || run.stdout).trim().slice(-1500)}`);
  return run.stdout;
}

/** Files and subpackages (nested Kptfiles) of a package directory. */
function countPackage(dir) {
  let files = 0;
  let subpackages = 0;
  const walk = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(path, entry.name));
      else {
        files += 1;
        if (entry.name === 'Kptfile' && path !== dir) subpackages += 1;
      }
    }
  };
  walk(dir);
  return { files, subpackages };
}

export async function run({ log, root }) {
  const require = createRequire(import.meta.url);
  const { hermeticGitEnv, mirrorRoot } = require(join(root, 'scripts', 'lib', 'git-trees.cjs'));
  const { missingMirrors, rebuildCase } = require(join(root, 'scripts', 'lib', 'real-history-fixture.cjs'));
  const fixtureDir = join(root, 'test', 'fixtures', 'real-history');
  const mirrors = mirrorRoot();
  const mainJs = join(root, 'dist', 'main.js');
  if (!existsSync(mainJs)) throw new Error(`${mainJs} not found: run \`npm run build\` first (npm run bench does)`);
  const target = 'no target: ours against kpt, reported';
  const fixtures = CASES.map((id) => {
    const file = join(fixtureDir, 'cases', `${id}.yaml`);
    if (!existsSync(file)) throw new Error(`no real-history case ${id} (${file})`);
    return parse(readFileSync(file, 'utf8'), { maxAliasCount: -1 });
  });
  const missing = [...new Set(fixtures.flatMap((fixture) => missingMirrors(fixture, mirrors)))];
  if (missing.length) {
    log(`skipped: the mirrors ${missing.join(', ')} are not under ${mirrors} (PV_MIRROR_DIR): node scripts/mirror-repos.mjs makes them`);
    return { pass: true, target, figures: { skipped: `mirrors missing under ${mirrors}: ${missing.join(', ')}` }, notes: ['skipped: the real-history mirrors are absent'] };
  }
  if (spawnSync('bash', ['-c', 'command -v kpt']).status !== 0) {
    return { pass: true, target, figures: { skipped: 'kpt not found on PATH' }, notes: ['skipped: kpt not found on PATH'] };
  }

  const scratch = mkdtempSync(join(os.tmpdir(), 'bench-real-'));
  const snapshot = join(scratch, 'dist');
  mkdirSync(snapshot);
  for (const file of readdirSync(join(root, 'dist'))) if (/\.js(\.map)?$/.test(file)) cpSync(join(root, 'dist', file), join(snapshot, file));
  const timing = processTiming(scratch);
  const restore = join(scratch, 'restore.sh');
  writeFileSync(restore, 'rm -rf -- "$2" && cp -R -- "$1" "$2"\n');
  const figures = { timing: timing.hyperfine ? 'hyperfine' : 'child process', cases: {} };
  const notes = [...timing.notes];
  try {
    for (const fixture of fixtures) {
      const caseDir = join(scratch, fixture.id);
      const env = hermeticGitEnv(caseDir, mirrors);
      delete env.NODE_EXTRA_CA_CERTS;
      env.PACKAGE_VARIANT_CACHE_DIR = join(caseDir, 'pv-cache');
      const down = join(caseDir, 'downstream');
      mkdirSync(down, { recursive: true });
      rebuildCase(fixture, fixtureDir, mirrors, { local: join(down, 'pkg') }, env, join(scratch, 'tree-cache'));
      must('git', ['init', '-q'], { cwd: down, env });
      must('git', ['add', '-A'], { cwd: down, env });
      must('git', ['commit', '-q', '-m', 'kpt pkg get, local edits'], { cwd: down, env });
      const size = countPackage(join(down, 'pkg'));
      const strategy = fixture.strategy === 'resource-merge' ? [] : ['--strategy', fixture.strategy];
      const copy = (name) => {
        const dir = join(caseDir, name);
        cpSync(down, dir, { recursive: true });
        return dir;
      };
      const kptRun = (dir) => timing.once({ command: 'kpt', args: ['pkg', 'update', `pkg@${fixture.to.ref}`, ...strategy], env, cwd: dir });
      const ours = (dir) => ({ command: process.execPath, args: [join(snapshot, 'main.js'), 'update', `${join(dir, 'pkg')}@${fixture.to.ref}`, ...strategy], env, cwd: caseDir });

      const kptWarm = await kptRun(copy('kpt-warm'));
      const oursWarm = await timing.once(ours(copy('ours-warm')));
      if (oursWarm.code !== 0) throw new Error(`${fixture.id}: package-variant update exited ${oursWarm.code}: ${oursWarm.stderr.trim().slice(-800)}`);
      const kpt = await kptRun(copy('kpt'));
      const oursDir = join(caseDir, 'ours');
      const measured = await timing.measure({ ...ours(oursDir), runs: RUNS, prepare: ['bash', restore, down, oursDir] });
      const oursMedian = median(measured.wall);
      const entry = {
        package: `${fixture.repo.replace('https://github.com/', '')}/${fixture.directory}`,
        versions: `${fixture.from.ref} → ${fixture.to.ref}`,
        files: size.files,
        subpackages: size.subpackages,
        independent_subpackages: (fixture.independent ?? []).length,
        kpt: { exit_code: kpt.code, pkg_update_wall_s: round(kpt.seconds), peak_rss_mb: kpt.rssKib === null ? null : kibToMB(kpt.rssKib), info_warm_up_wall_s: round(kptWarm.seconds) },
        package_variant: {
          runs: RUNS,
          wall_s_median: round(oursMedian),
          wall_s_min: round(Math.min(...measured.wall)),
          peak_rss_mb_max: measured.rssKib === null ? null : kibToMB(measured.rssKib),
          info_warm_up_wall_s: round(oursWarm.seconds),
        },
        speedup_vs_kpt: round(kpt.seconds / oursMedian, 1),
      };
      figures.cases[fixture.id] = entry;
      log(`${fixture.id}: ${size.files} files, ${size.subpackages} subpackages (${entry.independent_subpackages} independent); kpt pkg update ${kpt.seconds.toFixed(2)} s (exit ${kpt.code}), ours median ${oursMedian.toFixed(3)} s: ${entry.speedup_vs_kpt}x`);
    }
  } finally {
    if (KEEP) log(`scratch kept: ${scratch}`);
    else rmSync(scratch, { recursive: true, force: true });
  }
  notes.push('kpt ran once per case after a warm-up run; ours is the median of the timed runs; the real-history suite (test/real-history) checks the outputs');
  return { pass: true, target, figures, notes };
}
