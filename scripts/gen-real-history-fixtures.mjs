#!/usr/bin/env node
/**
 * Records the real-history corpus: for every pair of consecutive tagged versions of every package
 * in public kpt package repositories (the GoogleCloudPlatform blueprints catalog, Nephio's catalog),
 * `kpt pkg get` the older version from its https URL (served by a local mirror through git's
 * `url.<mirror>.insteadOf`), commit, make seeded local edits, commit, and record what
 * `kpt pkg update pkg@<newer tag>` makes of it. test/real-history/ rebuilds every case from the
 * mirrors and compares our update with kpt's. Fixture format: test/fixtures/real-history/README.md.
 *
 * Usage: node scripts/gen-real-history-fixtures.mjs [--jobs J] [--only ID,ID] [--out DIR] [--seed S] [--list]
 *        node scripts/gen-real-history-fixtures.mjs --rebuild ID DIR
 *   --jobs     kpt runs in parallel (default 2)
 *   --only     record only these case ids (also: a prefix ending in `*`)
 *   --out      fixture directory (default test/fixtures/real-history)
 *   --seed     base seed (default 20250601); a case's seed derives from it and the case id
 *   --list     print the cases and their version pairs, run nothing
 *   --rebuild  write a recorded case's trees to DIR/{origin,upstream,local,kpt} (no kpt needed), to
 *              read it with `git diff --no-index DIR/local DIR/kpt`
 *
 * Mirrors: $PV_MIRROR_DIR (default ~/.cache/package-variant/mirrors)/<owner>+<name>/repo, bare clones of the
 * repositories in scripts/lib/git-trees.cjs. Needs kpt 1.0.0-beta.56 and git on PATH. Nothing
 * reaches the network: git may use the file protocol only. Deterministic: the same seed and mirrors
 * give byte-identical fixtures.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import gitTrees from './lib/git-trees.cjs';
import { applyKptGetModel } from './lib/kpt-get-model.cjs';
import { editPackage, listFiles } from './lib/package-edits.mjs';
import realHistory from './lib/real-history-fixture.cjs';
import treePatch from './lib/tree-patch.cjs';
import { Rng, stringSeed } from './lib/seeded-random.mjs';

const { REPOSITORIES, extractTree, git, hermeticGitEnv, manifest, mirrorGitDir, mirrorRoot, readTree, repositoryOf } = gitTrees;
const { fetchedTree, rebuildCase, treeDigest, updatedTree } = realHistory;
const diffTrees = (dir, from, to) => treePatch.diffTrees(join(dir, from), join(dir, to));

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_OUT = join(ROOT, 'test', 'fixtures', 'real-history');

/**
 * The package repositories and how their tags name package versions. `version` splits a tag into
 * a family and a version; `directory` says where the family's packages are at a commit.
 */
const SOURCES = [
  {
    name: 'blueprints',
    url: 'https://github.com/GoogleCloudPlatform/blueprints',
    version: (tag) => /^(.+)-blueprint-(v\d[\w.-]*)$/.exec(tag)?.slice(1),
    // release-please-config.json maps each package name to its directory
    directory: (family, commit, gitDir, env) => {
      const config = git(['--git-dir', gitDir, 'show', `${commit}:release-please-config.json`], { env, ok: [0, 128] });
      const packages = config ? JSON.parse(config).packages ?? {} : {};
      const dir = Object.keys(packages).find((d) => packages[d]['package-name'] === `${family}-blueprint`);
      return dir ?? `catalog/${family}`;
    },
  },
  {
    name: 'catalog',
    url: 'https://github.com/nephio-project/catalog',
    version: (tag) => /^(.+)\/(v\d[\w.-]*)$/.exec(tag)?.slice(1),
    directory: (family) => family,
  },
];

/** v1 < v2 < v2.0.0 < v2.0.1 < v3.0.0: numeric parts compared, then the shorter spelling first. */
function compareVersions(a, b) {
  const parts = (v) => v.replace(/^v/, '').split(/[.-]/).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  const [pa, pb] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const [x, y] = [pa[i] ?? 0, pb[i] ?? 0];
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * The packages below `dir` at a commit: `dir` itself when it has a Kptfile or none is below it,
 * else each top-most directory with a Kptfile (a catalog folder of sibling packages).
 */
function packagesAt(gitDir, commit, dir, env) {
  const files = git(['--git-dir', gitDir, 'ls-tree', '-r', '--name-only', commit, '--', dir], { env }).split('\n').filter(Boolean);
  if (!files.length) return [];
  const kptfileDirs = files.filter((f) => posix.basename(f) === 'Kptfile').map((f) => posix.dirname(f)).sort();
  if (!kptfileDirs.length || kptfileDirs.includes(dir)) return [dir];
  return kptfileDirs.filter((d) => !kptfileDirs.some((o) => o !== d && d.startsWith(`${o}/`)));
}

const slug = (text) => text.replace(/^catalog\//, '').replace(/\//g, '_');

/** Every version pair of every package, oldest first, each with its edit sets as case ids. */
function plan(root, env) {
  const pairs = [];
  for (const source of SOURCES) {
    const repo = REPOSITORIES.find((r) => r.url === source.url);
    const gitDir = mirrorGitDir(root, repo);
    const families = new Map();
    for (const line of git(['--git-dir', gitDir, 'for-each-ref', '--format=%(refname:short) %(objectname) %(*objectname)', 'refs/tags'], { env }).split('\n').filter(Boolean)) {
      const [tag, object, peeled] = line.split(' ');
      const parsed = source.version(tag);
      if (!parsed) continue;
      const [family, version] = parsed;
      if (!families.has(family)) families.set(family, []);
      families.get(family).push({ ref: tag, version, commit: peeled || object });
    }
    for (const family of [...families.keys()].sort()) {
      const versions = families.get(family).sort((a, b) => compareVersions(a.version, b.version));
      for (let i = 1; i < versions.length; i++) {
        const [from, to] = [versions[i - 1], versions[i]];
        const dirFrom = source.directory(family, from.commit, gitDir, env);
        const dirTo = source.directory(family, to.commit, gitDir, env);
        const later = new Set(packagesAt(gitDir, to.commit, dirTo, env));
        const packages = packagesAt(gitDir, from.commit, dirFrom, env);
        for (const directory of packages) {
          if (!later.has(directory)) continue;
          const same = git(['--git-dir', gitDir, 'rev-parse', `${from.commit}:${directory}`], { env }) === git(['--git-dir', gitDir, 'rev-parse', `${to.commit}:${directory}`], { env });
          // two edit sets for a package that changed; one where it did not (the update must keep
          // local's edits) or where it is one of a folder's sibling packages, which change together
          const sets = same || packages.length > 1 ? 1 : 2;
          for (let n = 1; n <= sets; n++) {
            pairs.push({ id: `${source.name}--${slug(directory)}--${from.version}--${to.version}--${n}`, source: source.name, repo: source.url, gitDir, directory, from, to, unchanged: same });
          }
        }
      }
    }
  }
  return pairs;
}

// ---------------------------------------------------------------------------------------------
// Recording one case
// ---------------------------------------------------------------------------------------------

function run(cmd, args, options) {
  return new Promise((resolvePromise) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolvePromise({ code, stdout, stderr, seconds: Number(process.hrtime.bigint() - started) / 1e9 }));
  });
}

async function mustRun(cmd, args, options) {
  const res = await run(cmd, args, options);
  if (res.code !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (exit ${res.code}):\n${res.stdout}${res.stderr}`);
  return res;
}

/**
 * kpt's error: from its `Error:` line on, without the scratch directory and the mirror location,
 * file lists (printed in map order) sorted.
 */
function kptError(output, scratch, root) {
  const at = output.search(/^Error: /m);
  if (at === -1) return output.trim().split('\n').slice(-3).join('\n');
  return output
    .slice(at)
    .split(scratch)
    .join('<scratch>')
    .split(root)
    .join('<mirror>')
    .split('\n')
    .map((l) => l.trimEnd().replace(/\[([^\]]*)\]/g, (_, files) => `[${files.split(/\s+/).filter(Boolean).sort().join(' ')}]`))
    .join('\n')
    .trim();
}

const commitAll = (cwd, message, env) => mustRun('git', ['add', '-A'], { cwd, env }).then(() => mustRun('git', ['commit', '-q', '--allow-empty', '-m', message], { cwd, env }));

const STRATEGIES = [[0.86, 'resource-merge'], [0.09, 'fast-forward'], [0.05, 'force-delete-replace']];

/**
 * `kpt pkg get` of one package tree into `<dir>/pkg`; returns the patch from the kpt-get model of the
 * mirror's tree to it (the root Kptfile left as the mirror has it: cases record their own), '' when
 * the model says it all.
 */
async function fetchTree(tree, dir, env) {
  mkdirSync(dir, { recursive: true });
  const gitDir = mirrorGitDir(mirrorRoot(env), repositoryOf(tree.repo));
  extractTree(gitDir, tree.commit, tree.directory, join(dir, 'model'), env);
  const get = await mustRun('kpt', ['pkg', 'get', `${tree.repo}.git/${tree.directory}@${tree.ref}`, 'pkg'], { cwd: dir, env });
  cpSync(join(dir, 'pkg'), join(dir, 'fetched'), { recursive: true });
  const rawKptfile = join(dir, 'model', 'Kptfile');
  if (existsSync(rawKptfile)) cpSync(rawKptfile, join(dir, 'fetched', 'Kptfile'));
  else rmSync(join(dir, 'fetched', 'Kptfile'));
  applyKptGetModel(join(dir, 'model'));
  return { residue: diffTrees(dir, 'model', 'fetched'), seconds: get.seconds };
}

const treeOf = (gitDir, commit, directory, env) => git(['--git-dir', gitDir, 'rev-parse', `${commit}:${directory}`], { env }).trim();

/**
 * Residue patches are kept per package tree (versions and cases with the same tree share one);
 * returns the tree's fixture entry: `tree` and, when kpt wrote more than the model says, `residue`.
 */
const residueByTree = new Map();

async function fetchWithResidue(tree, getRef, dir, env, residues, { cached = false } = {}) {
  const known = cached ? residueByTree.get(tree.tree) : undefined;
  const { residue, seconds } = known !== undefined ? { residue: known, seconds: 0 } : await fetchTree({ ...tree, ref: getRef }, dir, env);
  residueByTree.set(tree.tree, residue);
  if (!residue) return { entry: { tree: tree.tree }, seconds };
  const path = `fetched/${tree.tree}.patch`;
  residues[path] = residue;
  return { entry: { tree: tree.tree, residue: path }, seconds };
}

/** Subpackages kpt updated from their own upstream: nested Kptfiles of its output with an upstreamLock. */
function independentSubpackages(kptDir) {
  return listFiles(kptDir)
    .filter((f) => f.endsWith('/Kptfile'))
    .map((f) => ({ path: posix.dirname(f), lock: parse(readFileSync(join(kptDir, f), 'utf8'))?.upstreamLock?.git }))
    .filter((s) => s.lock?.repo && s.lock.commit)
    .map((s) => ({ path: s.path, repo: s.lock.repo.replace(/\.git$/, ''), directory: String(s.lock.directory ?? '').replace(/^\/+/, ''), ref: s.lock.ref, commit: s.lock.commit }));
}

async function recordCase(c, seed, scratch, env, root) {
  const dir = mkdtempSync(join(scratch, 'case-'));
  const residues = {};
  try {
    const version = (v) => ({ repo: c.repo, directory: c.directory, commit: v.commit, tree: treeOf(c.gitDir, v.commit, c.directory, env) });
    const older = await fetchWithResidue(version(c.from), c.from.ref, join(dir, 'older'), env, residues);
    const newer = await fetchWithResidue(version(c.to), c.to.ref, join(dir, 'newer'), env, residues, { cached: true });
    const changedUpstream = new Set(
      git(['--git-dir', c.gitDir, 'diff', '--name-only', '--no-renames', c.from.commit, c.to.commit, '--', c.directory], { env })
        .split('\n')
        .filter(Boolean)
        .map((f) => posix.relative(c.directory, f)),
    );

    const down = join(dir, 'downstream');
    cpSync(join(dir, 'older', 'pkg'), join(down, 'pkg'), { recursive: true });
    await mustRun('git', ['init', '-q'], { cwd: down, env });
    await commitAll(down, 'kpt pkg get', env);

    const r = new Rng(seed);
    const strategy = r.weighted(STRATEGIES);
    const edits = editPackage(r, join(down, 'pkg'), changedUpstream);
    await commitAll(down, 'local edits', env);
    cpSync(join(down, 'pkg'), join(dir, 'local'), { recursive: true });

    const args = ['pkg', 'update', `pkg@${c.to.ref}`, ...(strategy === 'resource-merge' ? [] : ['--strategy', strategy])];
    const update = await run('kpt', args, { cwd: down, env });
    cpSync(join(down, 'pkg'), join(dir, 'kpt'), { recursive: true });

    const independent = [];
    for (const [i, sub] of independentSubpackages(join(dir, 'kpt')).entries()) {
      const gitDir = mirrorGitDir(root, repositoryOf(sub.repo));
      const tree = { repo: sub.repo, directory: sub.directory, commit: sub.commit, tree: treeOf(gitDir, sub.commit, sub.directory, env) };
      const { entry } = await fetchWithResidue(tree, sub.commit, join(dir, `independent-${i}`), env, residues, { cached: true });
      independent.push({ path: sub.path, repo: sub.repo, directory: sub.directory, ref: sub.ref, commit: sub.commit, ...entry });
    }

    const fixture = {
      id: c.id,
      repo: c.repo,
      directory: c.directory,
      from: { ...c.from, ...older.entry },
      to: { ...c.to, ...newer.entry },
      ...(independent.length ? { independent } : {}),
      seed,
      strategy,
      edits,
      local: { manifest: treeDigest(join(dir, 'local')), patch: '' },
      kpt: { exitCode: update.code, ...(update.code === 0 ? {} : { error: kptError(update.stdout + update.stderr, scratch, root) }), base: 'updated', files: manifest(readTree(join(dir, 'kpt'))), patch: '' },
    };
    // the patches' bases as the test rebuilds them
    writeResidues(join(dir, 'fixture'), residues);
    fetchedTree({ repo: c.repo, directory: c.directory, ...fixture.from }, join(dir, 'fixture'), root, join(dir, 'fetched'), env);
    fixture.local.patch = diffTrees(dir, 'fetched', 'local');
    chooseSubpackageBases(fixture, join(dir, 'fixture'), dir, env, root, residues);
    updatedTree(fixture, join(dir, 'fixture'), root, join(dir, 'updated'), env);
    const fromUpdated = diffTrees(dir, 'updated', 'kpt');
    const fromLocal = diffTrees(dir, 'local', 'kpt');
    Object.assign(fixture.kpt, fromLocal.length < fromUpdated.length ? { base: 'local', patch: fromLocal } : { patch: fromUpdated });
    verifyRebuild(fixture, join(dir, 'fixture'), dir, env, root);
    return { fixture, residues, seconds: { get: older.seconds, update: update.seconds } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * For each independent subpackage, the base of kpt's patch that makes it smaller: its own upstream
 * as fetched (kpt replaced most of it), or the package's newer version (kpt kept most of local's).
 */
function chooseSubpackageBases(fixture, fixtureDir, dir, env, root, residues) {
  const subs = fixture.independent ?? [];
  if (!subs.length) return;
  const all = (base) => Object.fromEntries(subs.map((s) => [s.path, base]));
  updatedTree(fixture, fixtureDir, root, join(dir, 'base-upstream'), env, all('upstream'));
  updatedTree(fixture, fixtureDir, root, join(dir, 'base-parent'), env, all('parent'));
  for (const sub of subs) {
    const size = (base) => diffTrees(dir, `base-${base}/${sub.path}`, `kpt/${sub.path}`).length;
    sub.base = size('upstream') < size('parent') ? 'upstream' : 'parent';
    // a subpackage based on the package's own tree needs no residue of its upstream's
    if (sub.base === 'parent' && sub.residue) {
      if (![fixture.from, fixture.to, ...subs].some((t) => t !== sub && t.residue === sub.residue)) delete residues[sub.residue];
      delete sub.residue;
    }
  }
}

function writeResidues(fixtureDir, residues) {
  for (const [path, patch] of Object.entries(residues)) writeAtomically(join(fixtureDir, path), patch);
}

/** Checks that the fixture rebuilds the local package and kpt's output from the mirrors, as the test does. */
function verifyRebuild(fixture, fixtureDir, dir, env, root) {
  const rebuilt = join(dir, 'rebuilt');
  rebuildCase(fixture, fixtureDir, root, { local: join(rebuilt, 'local'), kpt: join(rebuilt, 'kpt') }, env);
  for (const name of ['local', 'kpt']) {
    if (manifest(readTree(join(rebuilt, name))) !== manifest(readTree(join(dir, name)))) throw new Error(`${fixture.id}: the fixture does not rebuild ${name}`);
  }
}

function fixtureText(fixture) {
  return stringify(fixture, { lineWidth: 0, blockQuote: 'literal' });
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

function parseArgs(argv) {
  const opts = { jobs: 2, only: undefined, out: DEFAULT_OUT, seed: 20250601, list: false, rebuild: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => argv[++i];
    if (a === '--jobs') opts.jobs = Number(next());
    else if (a === '--only') opts.only = next().split(',');
    else if (a === '--out') opts.out = resolve(next());
    else if (a === '--seed') opts.seed = Number(next());
    else if (a === '--list') opts.list = true;
    else if (a === '--rebuild') opts.rebuild = { id: next(), dir: resolve(next()) };
    else if (a === '--help' || a === '-h') {
      console.log(readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1, 25).join('\n'));
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : 0;
};

function writeAtomically(file, text) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const root = mirrorRoot();
  const scratch = mkdtempSync(join(tmpdir(), 'kpt-diff-real-history-'));
  try {
    if (opts.rebuild) {
      const fixture = parse(readFileSync(join(opts.out, 'cases', `${opts.rebuild.id}.yaml`), 'utf8'));
      const paths = Object.fromEntries(['origin', 'upstream', 'local', 'kpt'].map((name) => [name, join(opts.rebuild.dir, name)]));
      rebuildCase(fixture, opts.out, root, paths, hermeticGitEnv(join(scratch, 'rebuild'), root));
      console.log(`wrote ${Object.values(paths).join(', ')}`);
      return;
    }
    const missing = REPOSITORIES.filter((r) => !existsSync(mirrorGitDir(root, r)));
    if (missing.length) throw new Error(`mirrors missing under ${root}: ${missing.map((r) => r.mirror).join(', ')} (git clone --mirror <url> ${root}/<owner>+<name>/repo)`);
    const all = plan(root, hermeticGitEnv(join(scratch, 'plan'), root));
    const selected = opts.only ? all.filter((c) => opts.only.some((o) => (o.endsWith('*') ? c.id.startsWith(o.slice(0, -1)) : c.id === o))) : all;
    if (opts.list) {
      for (const c of selected) console.log(`${c.id}\t${c.directory}\t${c.from.ref} -> ${c.to.ref}${c.unchanged ? '\t(unchanged)' : ''}`);
      console.log(`${selected.length} cases`);
      return;
    }
    if (opts.only && selected.length !== opts.only.filter((o) => !o.endsWith('*')).length && !opts.only.some((o) => o.endsWith('*'))) {
      throw new Error(`unknown case id among ${opts.only.join(', ')}`);
    }
    if (!opts.only) {
      for (const sub of ['cases', 'fetched']) rmSync(join(opts.out, sub), { recursive: true, force: true });
    }
    const started = Date.now();
    const times = { get: [], update: [] };
    const tally = { ok: 0, refused: 0 };
    let next = 0;
    const worker = async (w) => {
      const env = hermeticGitEnv(join(scratch, `worker-${w}`), root);
      while (next < selected.length) {
        const c = selected[next++];
        const seed = stringSeed(`${opts.seed}:${c.id}`);
        const { fixture, residues, seconds } = await recordCase(c, seed, join(scratch, `worker-${w}`), env, root);
        writeResidues(opts.out, residues);
        writeAtomically(join(opts.out, 'cases', `${c.id}.yaml`), fixtureText(fixture));
        times.get.push(seconds.get);
        times.update.push(seconds.update);
        tally[fixture.kpt.exitCode === 0 ? 'ok' : 'refused']++;
        const done = tally.ok + tally.refused;
        if (done % 20 === 0 || done === selected.length) process.stderr.write(`  ${done}/${selected.length} cases\n`);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.jobs, selected.length)) }, (_, w) => worker(w)));
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `wrote ${selected.length} cases to ${relative(process.cwd(), opts.out) || '.'} in ${seconds.toFixed(1)} s with ${opts.jobs} jobs ` +
        `(kpt pkg update succeeded ${tally.ok}, refused ${tally.refused}; median per case: kpt pkg get ${median(times.get).toFixed(2)} s, ` +
        `kpt pkg update ${median(times.update).toFixed(2)} s)`,
    );
    const cases = readdirSync(join(opts.out, 'cases')).length;
    if (!opts.only && cases !== selected.length) throw new Error(`expected ${selected.length} case files, found ${cases}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
