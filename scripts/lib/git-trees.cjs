'use strict';
/**
 * Package trees in git, hermetically: the real-history fixture generator and its jest suite read
 * package versions from local mirrors of public repositories, diff and patch trees with git, and run
 * git (and kpt, which runs git) with an environment where the `https://github.com/...` URLs that
 * Kptfiles record resolve to those mirrors and nothing reaches the network.
 *
 * CommonJS so that the ESM generator and the TypeScript tests (through jest) share one copy.
 */
const { spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } = require('node:fs');
const { homedir } = require('node:os');
const { dirname, join } = require('node:path');

/** The repositories the corpus reads: where each lives on GitHub and its mirror's directory name. */
const REPOSITORIES = [
  { url: 'https://github.com/GoogleCloudPlatform/blueprints', mirror: 'GoogleCloudPlatform+blueprints' },
  { url: 'https://github.com/nephio-project/catalog', mirror: 'nephio-project+catalog' },
  // upstreams that independent subpackages of the catalog record
  { url: 'https://github.com/nephio-project/nephio-example-packages', mirror: 'nephio-project+nephio-example-packages' },
  { url: 'https://github.com/nephio-project/nephio-packages', mirror: 'nephio-project+nephio-packages' },
];

/** Repositories only the real-package benchmark reads (bench/real-package.bench.mjs). */
const BENCH_REPOSITORIES = [
  { url: 'https://github.com/nephio-project/free5gc-packages', mirror: 'nephio-project+free5gc-packages' },
  { url: 'https://github.com/kptdev/kpt', mirror: 'kptdev+kpt' },
];

/**
 * Where the mirrors are: $PV_MIRROR_DIR, else package-variant/mirrors in the user's cache directory
 * ($XDG_CACHE_HOME, else ~/.cache), where scripts/mirror-repos.mjs makes them.
 */
function mirrorRoot(env = process.env) {
  if (env.PV_MIRROR_DIR) return env.PV_MIRROR_DIR;
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'package-variant', 'mirrors');
}

/** What a suite that skips for want of a mirror says to do. */
const MIRROR_HINT = 'make them with `node scripts/mirror-repos.mjs` where there is network, or set PV_MIRROR_DIR to where they are';

/** The bare repository of a mirror (`git clone --mirror URL <root>/<owner>+<name>/repo`). */
function mirrorGitDir(root, repo) {
  return join(root, repo.mirror, 'repo');
}

function repositoryOf(url) {
  const plain = url.replace(/\.git$/, '');
  const repo = REPOSITORIES.find((r) => r.url === plain);
  if (!repo) throw new Error(`not a corpus repository: ${url}`);
  return repo;
}

/**
 * An environment for git and kpt below `scratch` (its home, kpt cache and temp directories are
 * created there): no user or system configuration, fixed identities and dates, only the `file`
 * protocol, and each corpus repository's URL (with or without `.git`) rewritten to its mirror.
 * Every other https URL is rewritten to a path that does not exist. `more` adds repositories
 * (`{ url, mirror }`) beyond the corpus's, for the benchmarks.
 */
function hermeticGitEnv(scratch, root = mirrorRoot(), base = process.env, more = []) {
  const env = {};
  for (const [key, value] of Object.entries(base)) if (!key.startsWith('GIT_') && !key.startsWith('KPT_')) env[key] = value;
  for (const dir of ['home', 'kpt-cache', 'tmp']) mkdirSync(join(scratch, dir), { recursive: true });
  const rewrites = [['file:///nonexistent/network-disabled/', 'https://']];
  for (const repo of [...REPOSITORIES, ...more]) {
    const target = `file://${mirrorGitDir(root, repo)}`;
    rewrites.push([target, repo.url], [target, `${repo.url}.git`]);
  }
  Object.assign(env, {
    // The mirrors stay where they are for whatever reads them in this environment.
    PV_MIRROR_DIR: root,
    HOME: join(scratch, 'home'),
    KPT_CACHE_DIR: join(scratch, 'kpt-cache'),
    TMPDIR: join(scratch, 'tmp'),
    XDG_CONFIG_HOME: join(scratch, 'home', '.config'),
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ALLOW_PROTOCOL: 'file',
    GIT_CEILING_DIRECTORIES: scratch,
    GIT_AUTHOR_NAME: 'real-history',
    GIT_AUTHOR_EMAIL: 'real-history@example.invalid',
    GIT_COMMITTER_NAME: 'real-history',
    GIT_COMMITTER_EMAIL: 'real-history@example.invalid',
    GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
    GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
    TZ: 'UTC',
    LC_ALL: 'C',
    GIT_CONFIG_COUNT: String(rewrites.length + 4),
  });
  const settings = [...rewrites.map(([target, prefix]) => [`url.${target}.insteadOf`, prefix]), ['init.defaultBranch', 'main'], ['core.autocrlf', 'false'], ['commit.gpgSign', 'false'], ['core.hooksPath', '/dev/null']];
  settings.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/** Runs git; returns stdout (a Buffer when `binary`). Exit codes other than those in `ok` throw. */
function git(args, { env, cwd, input, binary = false, ok = [0] }) {
  const run = spawnSync('git', args, { env, cwd, input, maxBuffer: 1 << 30, encoding: binary ? 'buffer' : 'utf8' });
  if (run.error) throw run.error;
  if (!ok.includes(run.status)) throw new Error(`git ${args.join(' ')} failed (exit ${run.status}): ${String(run.stderr).trim()}`);
  return run.stdout;
}

/** Writes directory `dir` of `commit` (the whole tree for '') into `target`, modes kept. */
function extractTree(gitDir, commit, dir, target, env) {
  mkdirSync(target, { recursive: true });
  const tar = git(['--git-dir', gitDir, 'archive', '--format=tar', dir ? `${commit}:${dir}` : commit], { env, binary: true });
  const run = spawnSync('tar', ['-x', '-C', target], { input: tar, env });
  if (run.status !== 0) throw new Error(`tar -x into ${target} failed: ${String(run.stderr).trim()}`);
}

function walk(root, visit, sub = '') {
  for (const name of readdirSync(join(root, sub)).sort()) {
    const rel = sub ? `${sub}/${name}` : name;
    const stat = lstatSync(join(root, rel));
    if (stat.isDirectory()) walk(root, visit, rel);
    else visit(rel, stat);
  }
}

/** Every file below `root` (empty directories are not kept): its mode, size and content. */
function readTree(root) {
  const files = new Map();
  if (!existsSync(root)) return files;
  walk(root, (rel, stat) => {
    const bytes = stat.isSymbolicLink() ? Buffer.from(readlinkSync(join(root, rel))) : readFileSync(join(root, rel));
    const mode = stat.isSymbolicLink() ? '120000' : stat.mode & 0o111 ? '100755' : '100644';
    files.set(rel, { mode, bytes });
  });
  return files;
}

/** Every file below `root` as text, by relative path. */
function readFiles(root) {
  return Object.fromEntries([...readTree(root)].map(([path, file]) => [path, file.bytes.toString('utf8')]));
}

/** Writes text files (relative path -> text) below `root`, creating directories as needed. */
function writeFiles(root, files) {
  mkdirSync(root, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** One line per file, sorted by path: `<mode> <size> <sha256> <path>`. */
function manifest(files) {
  return [...files.keys()]
    .sort()
    .map((path) => {
      const { mode, bytes } = files.get(path);
      return `${mode} ${bytes.length} ${createHash('sha256').update(bytes).digest('hex')} ${path}\n`;
    })
    .join('');
}

module.exports = { REPOSITORIES, BENCH_REPOSITORIES, MIRROR_HINT, mirrorRoot, mirrorGitDir, repositoryOf, hermeticGitEnv, git, extractTree, readTree, readFiles, writeFiles, manifest };
