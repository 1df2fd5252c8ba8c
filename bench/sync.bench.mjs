// `package-variant sync` over a fleet: a PackageVariantSet over deployment repositories with
// BENCH_SYNC_PACKAGES packages each (default 10), all from one upstream package of
// BENCH_SYNC_RESOURCES resources (default 50), every repository a local bare repository. Two fleets,
// one after the other: 100 repositories (1,000 downstreams, issue 21) and 1,000 (10,000 downstreams,
// issue 22); BENCH_SYNC_REPOS lists others (`100,1000`).
//
// Phases, each one run of the command (/usr/bin/time for peak RSS), in order:
//   plan      `sync --dry-run` with cold caches: every repository fetched, every downstream planned
//   create    every downstream created as a draft (warm caches)
//   no-op     the same inputs again: nothing to write (every repository read, then recorded settled)
//   settled   the same inputs once more: each repository's plan taken from the no-op's record
//             (src/sync/settled.ts), nothing read but the fetch; the no-op a scheduled sync mostly runs
//   publish   `--lifecycle published`: every draft approved (reported, no target)
//   upgrade   the set moved to the upstream's next revision: an upgrade draft per downstream
// The floor, measured in the same run, interleaved (bench/lib/git-floor.mjs): plain git doing only
// the transfers a sync must do on the same repositories, as many at a time as sync works on. The
// fetch alone (every repository fetched) is measured just before and just after the two no-ops; the
// fetch with one new commit pushed to a new ref of each repository just before and just after the
// upgrade; each phase is reported against the mean of its two, with the load average at each.
//
// Where the time goes, for every phase: the git processes sync started, by git's own trace
// (GIT_TRACE2_EVENT, bench/lib/git-trace.mjs): how many a repository, and their summed wall time by
// stage (fetch, reading objects and refs, writing objects, push...). With BENCH_SYNC_PROFILE=1 each
// phase also runs under `node --cpu-prof` (slower: its times are then not comparable) and reports
// Node's own time by area (merge, YAML, mutations, planning, spawning git, waiting for it).
//
// Targets (2 cores): at 1,000 downstreams create ≤ 60 s, no-op ≤ 10 s, upgrade ≤ 120 s, peak RSS
// ≤ 1 GB (issue 21); at 10,000 create ≤ 5 min, no-op ≤ 60 s, upgrade ≤ 10 min (issue 22), and
// (issue 29) the upgrade ≤ 3x its floor and ≤ 45 s, the settled no-op ≤ 1.5x the fetch alone (the
// first no-op after a write is reported beside it), peak RSS
// ≤ 1 GB, the time per downstream of each phase within 1.2x of that at 1,000. Each phase's plan is
// checked: every downstream created, unchanged, published, upgraded.
//
// Tunables (environment): BENCH_SYNC_REPOS, BENCH_SYNC_PACKAGES, BENCH_SYNC_RESOURCES,
// BENCH_SYNC_KEEP=1 (keep the scratch directories), BENCH_SYNC_PROFILE=1.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { areaTimes } from './lib/cpuprofile-summary.mjs';
import { gitProcesses } from './lib/git-trace.mjs';
import { kibToMB, processTiming, round } from './lib/process-timing.mjs';

export const name = 'sync';
export const description = '`package-variant sync`: a set over 100 and 1,000 repositories of 10 packages each (1,000 and 10,000 downstreams) from a 50-resource upstream, local bare repositories';

const SIZES = (process.env.BENCH_SYNC_REPOS ?? '100,1000').split(',').map(Number);
const PACKAGES = Number(process.env.BENCH_SYNC_PACKAGES ?? 10);
const RESOURCES = Number(process.env.BENCH_SYNC_RESOURCES ?? 50);
const PROFILE = process.env.BENCH_SYNC_PROFILE === '1';
/** The repositories sync plans and writes at once (src/sync/run.ts): the floor works as many at a time. */
const SYNC_CONCURRENCY = 4;

/** Node's own time by area, from the source file of each sample (the first pattern that matches). */
const NODE_AREAS = [
  ['waiting (for git)', /^\(\(idle\)\)$/],
  ['garbage collection', /^\(\(garbage collector\)\)$/],
  ['spawning git, its pipes', /^(src\/git\/run-git|node:(internal\/)?(child_process|net|stream|streams\/|process\/task_queues|buffer|events))/],
  ['git plumbing (trees, fast-import streams)', /^src\/git\//],
  ['file system calls', /^\([a-z0-9_]+\)$/],
  ['merge', /^src\/(merge|update)\//],
  ['mutations, fan-out, render', /^src\/(variant|fanout|disk)\//],
  ['YAML parse and render', /^(src\/yaml\/|node_modules\/yaml\/)/],
  ['planning (sync)', /^src\/sync\//],
  ['package model, KRM', /^src\/(package|krm|config)\//],
];

/** Summed milliseconds by area of the profiles in `dir`. */
function nodeTime(dir) {
  const sums = {};
  for (const file of readdirSync(dir)) {
    const { byArea } = areaTimes(JSON.parse(readFileSync(join(dir, file), 'utf8')), NODE_AREAS, 'other (Node, start-up)');
    for (const [area, ms] of byArea) sums[area] = (sums[area] ?? 0) + ms;
  }
  return Object.fromEntries(Object.entries(sums).map(([area, ms]) => [area, round(ms / 1000, 2)]));
}

export const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  GIT_AUTHOR_DATE: '2001-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2001-01-01T00:00:00Z',
};

function git(args, cwd) {
  const run = spawnSync('git', ['-c', 'init.defaultBranch=main', ...args], { cwd, env: GIT_ENV, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}

function writeTree(root, files) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** The upstream package at revision `revision`: a Kptfile and RESOURCES Deployments and ConfigMaps. */
function upstreamPackage(revision) {
  const files = { 'app/Kptfile': 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n  annotations:\n    config.kubernetes.io/local-config: "true"\n' };
  for (let i = 0; i < RESOURCES; i++) {
    files[`app/r${i}.yaml`] =
      i % 2
        ? `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-${i}\ndata:\n  revision: "${revision}"\n  index: "${i}"\n`
        : `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-${i}\n  labels:\n    app: app-${i}\nspec:\n  replicas: ${revision}\n  selector:\n    matchLabels:\n      app: app-${i}\n  template:\n    metadata:\n      labels:\n        app: app-${i}\n    spec:\n      containers:\n      - name: app\n        image: registry.example.com/app:${revision}.0.${i}\n        ports:\n        - containerPort: 8080\n`;
  }
  return files;
}

export function setUpFleet(dir, repos = SIZES[0]) {
  const work = join(dir, 'catalog-work');
  git(['init', '-q', work]);
  for (const revision of [1, 2]) {
    writeTree(work, upstreamPackage(revision));
    git(['add', '-A'], work);
    git(['commit', '-q', '-m', `Approving package revision app/${revision}\n\nkpt:{"package":"app","workspaceName":"v${revision}","revision":"${revision}"}`], work);
    git(['tag', `app/v${revision}`], work);
  }
  git(['clone', '-q', '--bare', work, join(dir, 'catalog.git')]);
  const edgeWork = join(dir, 'edge-work');
  git(['init', '-q', edgeWork]);
  writeFileSync(join(edgeWork, 'README.md'), 'a deployment repository\n');
  git(['add', '-A'], edgeWork);
  git(['commit', '-q', '-m', 'Initial commit'], edgeWork);
  const edges = Array.from({ length: repos }, (_, i) => `edge-${String(i).padStart(4, '0')}`);
  for (const edge of edges) git(['clone', '-q', '--bare', '--no-hardlinks', edgeWork, join(dir, `${edge}.git`)]);
  const repository = (name) => `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: ${name}\nspec:\n  type: git\n  deployment: ${name !== 'catalog'}\n  git:\n    repo: ./${name}.git\n`;
  writeFileSync(join(dir, 'repositories.yaml'), ['catalog', ...edges].map(repository).join('---\n'));
  const packageNames = Array.from({ length: PACKAGES }, (_, i) => `app-${i}`);
  const set = (revision) =>
    `apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata:\n  name: fleet\nspec:\n  upstream:\n    repo: catalog\n    package: app\n    revision: ${revision}\n  targets:\n  - repositories:\n${edges.map((edge) => `    - name: ${edge}\n      packageNames: [${packageNames.join(', ')}]\n`).join('')}    template:\n      packageContext:\n        data:\n          fleet: bench\n`;
  mkdirSync(join(dir, 'v1'));
  mkdirSync(join(dir, 'v2'));
  writeFileSync(join(dir, 'v1', 'set.yaml'), set(1));
  writeFileSync(join(dir, 'v2', 'set.yaml'), set(2));
  return edges;
}

const count = (stdout, action) => (stdout.match(new RegExp(`^  ${action} `, 'gm')) ?? []).length;

/** One fleet of `repos` repositories through every phase. */
async function measureFleet(repos, { log, root }) {
  const dir = mkdtempSync(join(os.tmpdir(), 'pv-bench-sync-'));
  const downstreams = repos * PACKAGES;
  try {
    const edges = setUpFleet(dir, repos);
    log(`${repos} repositories, ${downstreams} downstreams, a ${RESOURCES}-resource upstream`);
    const timing = processTiming(dir);
    const env = { ...GIT_ENV, HOME: join(dir, 'home'), PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache'), PACKAGE_VARIANT_STATE_DIR: join(dir, 'state'), TMPDIR: dir };
    const main = join(root, 'dist/main.js');
    let phases = 0;
    const phase = async (label, args, expected, wantCode) => {
      phases += 1;
      const trace = join(dir, `trace2-${phases}.json`);
      const profiles = join(dir, `profiles-${phases}`);
      const nodeArgs = PROFILE ? [`--cpu-prof`, `--cpu-prof-dir=${profiles}`] : [];
      const result = await timing.once({ command: process.execPath, args: [...nodeArgs, main, 'sync', 'repositories.yaml', ...args], env: { ...env, GIT_TRACE2_EVENT: trace }, cwd: dir });
      if (result.code !== wantCode) throw new Error(`${label}: exit ${result.code}: ${(result.stderr || result.stdout).slice(-1500)}`);
      const [action, n] = expected;
      if (count(result.stdout, action) !== n) throw new Error(`${label}: ${count(result.stdout, action)} ${action} in the plan, not ${n}:\n${result.stdout.slice(-1500)}`);
      const git = gitProcesses(trace);
      const cpu = result.cpuSeconds === null ? '' : `, ${round(result.cpuSeconds, 2)} s CPU (git's included)`;
      log(`${label}: ${round(result.seconds, 2)} s${cpu}, ${kibToMB(result.rssKib ?? 0)} MB; ${round(git.processes / repos, 1)} git processes a repository`);
      for (const [area, sum] of Object.entries(git.byArea).sort((a, b) => b[1].seconds - a[1].seconds)) log(`    git ${area}: ${sum.processes} processes, ${sum.seconds} s summed`);
      const node = PROFILE ? nodeTime(profiles) : undefined;
      for (const [area, seconds] of Object.entries(node ?? {}).sort((a, b) => b[1] - a[1])) log(`    node ${area}: ${seconds} s`);
      return {
        seconds: round(result.seconds, 2),
        cpuSeconds: result.cpuSeconds === null ? null : round(result.cpuSeconds, 2),
        peakRssMB: result.rssKib === null ? null : kibToMB(result.rssKib),
        gitProcessesPerRepository: round(git.processes / repos, 1),
        gitByArea: git.byArea,
        ...(node ? { nodeSecondsByArea: node } : {}),
      };
    };
    const floorScript = join(root, 'bench/lib/git-floor.mjs');
    const floorDir = join(dir, 'floor');
    const floorRun = (args) => timing.once({ command: process.execPath, args: [floorScript, floorDir, ...args], env: GIT_ENV, cwd: dir });
    const checked = async (args) => {
      const result = await floorRun(args);
      if (result.code !== 0) throw new Error(`the floor (${args.join(' ')}): ${result.stderr.slice(-1500)}`);
      return result;
    };
    await checked(['init', String(SYNC_CONCURRENCY), ...edges.map((edge) => join(dir, `${edge}.git`))]);
    const load = () => round(os.loadavg()[0], 2);
    let floorPushes = 0;
    /** A floor measure, the mirrors brought up to date first; with the load average as it ran. */
    const measureFloor = async (label, args) => {
      await checked(['warm']);
      const result = await checked(args);
      const measured = { seconds: round(result.seconds, 2), cpuSeconds: result.cpuSeconds === null ? null : round(result.cpuSeconds, 2), load: load() };
      log(`floor, ${label}: ${measured.seconds} s, ${measured.cpuSeconds} s CPU (load ${measured.load})`);
      return measured;
    };
    const fetchFloor = () => measureFloor('fetch every repository', ['fetch']);
    const upgradeFloor = () => measureFloor('fetch, commit and push to every repository', ['upgrade', String((floorPushes += 1))]);
    const withLoad = async (run) => ({ ...(await run()), load: load() });
    const plan = await withLoad(() => phase('plan (--dry-run, cold caches)', ['v1', '--dry-run'], ['create', downstreams], 4));
    const create = await withLoad(() => phase('create all as drafts', ['v1'], ['create', downstreams], 4));
    const fetchBefore = await fetchFloor();
    const noop = await withLoad(() => phase('no-op', ['v1'], ['unchanged', downstreams], 0));
    const settled = await withLoad(() => phase('no-op again (every repository recorded settled)', ['v1'], ['unchanged', downstreams], 0));
    const fetchAfter = await fetchFloor();
    const publish = await withLoad(() => phase('publish all (--lifecycle published)', ['v1', '--lifecycle', 'published'], ['publish', downstreams], 4));
    const upgradeBefore = await upgradeFloor();
    const upgrade = await withLoad(() => phase('upgrade all to v2', ['v2'], ['upgrade', downstreams], 4));
    const upgradeAfter = await upgradeFloor();
    const mean = (a, b, key) => (a[key] === null || b[key] === null ? null : round((a[key] + b[key]) / 2, 2));
    const floorOf = (before, after) => ({ seconds: mean(before, after, 'seconds'), cpuSeconds: mean(before, after, 'cpuSeconds'), before, after });
    const floors = { fetch: floorOf(fetchBefore, fetchAfter), upgrade: floorOf(upgradeBefore, upgradeAfter) };
    const ratio = (ours, floor) => (ours === null || floor === null ? null : round(ours / floor, 2));
    const againstFloor = {
      noop: ratio(noop.seconds, floors.fetch.seconds),
      settled: ratio(settled.seconds, floors.fetch.seconds),
      upgrade: ratio(upgrade.seconds, floors.upgrade.seconds),
      noopCpu: ratio(noop.cpuSeconds, floors.fetch.cpuSeconds),
      upgradeCpu: ratio(upgrade.cpuSeconds, floors.upgrade.cpuSeconds),
    };
    log(`no-op ${againstFloor.noop}x the fetch alone (CPU ${againstFloor.noopCpu}x), settled ${againstFloor.settled}x; upgrade ${againstFloor.upgrade}x its floor (CPU ${againstFloor.upgradeCpu}x)`);
    const perDownstreamMs = (p) => round((p.seconds * 1000) / downstreams, 2);
    return {
      repositories: repos,
      downstreams,
      floors,
      againstFloor,
      plan,
      create,
      noop,
      settled,
      publish,
      upgrade,
      perDownstreamMs: { create: perDownstreamMs(create), noop: perDownstreamMs(noop), settled: perDownstreamMs(settled), upgrade: perDownstreamMs(upgrade) },
      peakRssMB: Math.max(...[plan, create, noop, settled, publish, upgrade].map((p) => p.peakRssMB ?? 0)),
    };
  } finally {
    if (process.env.BENCH_SYNC_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
    else log(`kept ${dir}`);
  }
}

/** The targets of a fleet of this many downstreams (issues 21, 22 and 29). */
const TARGETS = {
  1000: { create: 60, noop: 10, upgrade: 120, rssMB: 1000 },
  10000: { create: 300, noop: 60, upgrade: 45, rssMB: 1000, noopToFetch: 1.5, upgradeToFloor: 3 },
};

export async function run({ log, root }) {
  const fleets = [];
  for (const repos of SIZES) fleets.push(await measureFleet(repos, { log, root }));
  const checks = [];
  for (const fleet of fleets) {
    const target = TARGETS[fleet.downstreams];
    if (!target) continue;
    checks.push(fleet.create.seconds <= target.create, fleet.noop.seconds <= target.noop, fleet.upgrade.seconds <= target.upgrade, fleet.peakRssMB <= target.rssMB);
    if (target.noopToFetch) checks.push(fleet.againstFloor.settled <= target.noopToFetch, fleet.againstFloor.upgrade <= target.upgradeToFloor);
  }
  const [small, large] = fleets;
  const linear = {};
  if (small && large) {
    for (const phase of ['create', 'noop', 'settled', 'upgrade']) {
      linear[phase] = round(large.perDownstreamMs[phase] / small.perDownstreamMs[phase], 2);
      checks.push(linear[phase] <= 1.2);
    }
  }
  const figures = Object.fromEntries(fleets.map((fleet) => [`downstreams${fleet.downstreams}`, fleet]));
  return {
    pass: checks.every(Boolean),
    target:
      '1,000 downstreams: create ≤ 60 s, no-op ≤ 10 s, upgrade ≤ 120 s, ≤ 1 GB; 10,000: create ≤ 5 min, no-op ≤ 60 s, settled no-op ≤ 1.5x the fetch alone, upgrade ≤ 45 s and ≤ 3x its floor (fetch, commit, push), ≤ 1 GB; time per downstream at 10,000 within 1.2x of 1,000 (2 cores)',
    figures: { ...figures, perDownstreamRatio10kTo1k: linear },
  };
}
