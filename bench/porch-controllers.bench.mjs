// Porch's own PackageVariantSet and PackageVariant controllers beside `package-variant sync`
// (issue 28): the same fleet, a PackageVariantSet of 10, 100 and 1,000 PackageVariants (1, 10 and
// 100 deployment repositories of 10 packages each, from sync's bench fleet: a 50-resource upstream,
// local bare repositories), on two copies of the repositories, one for each. Per size, interleaved
// in one run: Porch's controllers create every draft, then sync does; then each runs again with
// nothing to do (the no-op). Each is one process under /usr/bin/time (wall time, peak RSS, CPU), the
// load average beside it.
//
// Porch's side is the judge's `controllers` command (judge/porch, built here): the reconcilers
// Porch ships, in-process, their PackageRevision calls served by Porch's engine, repository cache
// and git backend as Porch's API server serves them; its cluster is controller-runtime's fake client
// (no API server, no etcd, no network): a floor under what Porch costs in a cluster. A run of
// Porch's that passes BENCH_PORCH_LIMIT seconds (default 600) is stopped and reported as such, and
// the larger sizes are not run for Porch. No target: these are figures for README Performance.
//
// Tunables (environment): BENCH_PORCH_SIZES (PackageVariants, multiples of 10: `10,100,1000`),
// BENCH_PORCH_LIMIT (seconds), BENCH_SYNC_RESOURCES (the upstream's resources, default 50).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { kibToMB, processTiming, round } from './lib/process-timing.mjs';
import { GIT_ENV, setUpFleet } from './sync.bench.mjs';

export const name = 'porch-controllers';
export const description = "Porch's PackageVariantSet and PackageVariant controllers (in-process, over Porch's engine and git backend) beside `package-variant sync`: 10, 100 and 1,000 PackageVariants, create and no-op";

const SIZES = (process.env.BENCH_PORCH_SIZES ?? '10,100,1000').split(',').map(Number);
const LIMIT = Number(process.env.BENCH_PORCH_LIMIT ?? 600);
const PACKAGES = 10;

/** A copy of sync's bench fleet with `variants` PackageVariants; its upstream named by workspace, which Porch's controllers need. */
function fleetCopy(dir, variants) {
  mkdirSync(dir);
  setUpFleet(dir, variants / PACKAGES);
  const set = join(dir, 'v1', 'set.yaml');
  writeFileSync(set, readFileSync(set, 'utf8').replace('    revision: 1\n', '    workspaceName: v1\n'));
}

const load = () => round(os.loadavg()[0], 2);

/** The drafts in the copy's deployment repositories: how far a run that was stopped got. */
function draftsIn(dir) {
  const edges = readdirSync(dir).filter((entry) => /^edge-\d+\.git$/.test(entry));
  return edges.reduce((sum, edge) => sum + spawnSync('git', ['--git-dir', join(dir, edge), 'for-each-ref', 'refs/heads/drafts/'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).length, 0);
}

async function measureSize(variants, { log, judge, main, porchToo }) {
  const dir = mkdtempSync(join(os.tmpdir(), 'pv-bench-porch-'));
  try {
    const [porchDir, syncDir] = [join(dir, 'porch'), join(dir, 'sync')];
    fleetCopy(porchDir, variants);
    fleetCopy(syncDir, variants);
    const timing = processTiming(dir);
    const env = { ...GIT_ENV, HOME: join(dir, 'home'), PACKAGE_VARIANT_CACHE_DIR: join(syncDir, 'cache'), PACKAGE_VARIANT_STATE_DIR: join(syncDir, 'state'), TMPDIR: dir };
    const measured = (result) => ({ seconds: round(result.seconds, 2), cpuSeconds: result.cpuSeconds === null ? null : round(result.cpuSeconds, 2), peakRssMB: result.rssKib === null ? null : kibToMB(result.rssKib) });
    const porch = async (label, wantWrites) => {
      const loadBefore = load();
      const result = await timing.once({
        command: 'timeout',
        args: [String(LIMIT), judge, '-repositories', 'repositories.yaml', '-cache', join(porchDir, 'porch-cache'), 'controllers', '-state', 'porch-state.json', 'repositories.yaml', 'v1/set.yaml'],
        env,
        cwd: porchDir,
      });
      if (result.code === 124) {
        const drafts = draftsIn(porchDir);
        log(`Porch, ${label}: stopped after ${LIMIT} s, ${drafts} of ${variants} drafts made`);
        return { stoppedAfterSeconds: LIMIT, draftsMade: drafts, load: loadBefore };
      }
      if (result.code !== 0) throw new Error(`Porch's controllers, ${label}: exit ${result.code}: ${result.stderr.slice(-1500)}`);
      const report = JSON.parse(result.stdout);
      const made = report.packageVariants.filter((v) => (v.downstreamTargets ?? []).length === 1).length;
      if (!report.converged || Object.keys(report.errors).length > 0 || made !== variants || (wantWrites === 0) !== (report.writes === 0)) {
        throw new Error(`Porch's controllers, ${label}: ${made} of ${variants} variants with a downstream, ${report.writes} writes, converged ${report.converged}, errors ${JSON.stringify(report.errors).slice(0, 1500)}`);
      }
      const figures = { ...measured(result), passes: report.passes, load: loadBefore };
      log(`Porch, ${label}: ${figures.seconds} s, ${figures.cpuSeconds} s CPU, ${figures.peakRssMB} MB, ${report.passes} passes (load ${loadBefore})`);
      return figures;
    };
    const sync = async (label, wantCode) => {
      const loadBefore = load();
      const result = await timing.once({ command: process.execPath, args: [main, 'sync', 'repositories.yaml', 'v1', '--no-render'], env, cwd: syncDir });
      if (result.code !== wantCode) throw new Error(`sync, ${label}: exit ${result.code}: ${(result.stderr || result.stdout).slice(-1500)}`);
      const figures = { ...measured(result), load: loadBefore };
      log(`sync, ${label}: ${figures.seconds} s, ${figures.cpuSeconds} s CPU (git's included), ${figures.peakRssMB} MB (load ${loadBefore})`);
      return figures;
    };
    log(`${variants} PackageVariants (${variants / PACKAGES} repositories of ${PACKAGES} packages)`);
    const porchCreate = porchToo ? await porch('create', 1) : { notRun: 'a smaller fleet passed the limit' };
    const syncCreate = await sync('create', 4);
    const porchNoop = porchToo && !porchCreate.stoppedAfterSeconds ? await porch('no-op', 0) : { notRun: 'the create did not finish' };
    const syncNoop = await sync('no-op', 0);
    return { variants, porch: { create: porchCreate, noop: porchNoop }, sync: { create: syncCreate, noop: syncNoop } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function run({ log, root }) {
  const judgeModule = join(root, 'judge', 'porch');
  const judge = join(judgeModule, 'bin', 'porch-judge');
  const build = spawnSync('go', ['build', '-o', judge, '.'], { cwd: judgeModule, encoding: 'utf8' });
  if (build.error || build.status !== 0) throw new Error(`go build in ${judgeModule} failed (Go 1.26 is needed, README Set-up): ${build.error?.message ?? build.stderr}`);
  const main = join(root, 'dist/main.js');
  const sizes = [];
  let porchToo = true;
  for (const variants of SIZES) {
    const size = await measureSize(variants, { log, judge, main, porchToo });
    porchToo = porchToo && !size.porch.create.stoppedAfterSeconds && !size.porch.noop.stoppedAfterSeconds;
    sizes.push(size);
  }
  return {
    pass: true,
    target: 'none: figures for README Performance (2 cores shared)',
    figures: Object.fromEntries(sizes.map((size) => [`variants${size.variants}`, size])),
    notes: [`Porch's controllers in-process over its engine and git backend with controller-runtime's fake client for a cluster; a run stopped after ${LIMIT} s`],
  };
}
