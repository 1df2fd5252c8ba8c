#!/usr/bin/env node
/**
 * Makes the mirrors the real-package suites read: a bare clone (`git clone --mirror`) of each public
 * repository in scripts/lib/git-trees.cjs's list, at $PV_MIRROR_DIR/<owner>+<name>/repo (default
 * ~/.cache/package-variant/mirrors, or under $XDG_CACHE_HOME). A mirror that is already there is
 * brought up to date (`git remote update`). Needs the network, unless --from names a directory that
 * holds mirrors in the same layout (another machine's, copied), which are cloned from there.
 *
 * With --bench, also the repositories only the real-package benchmark reads.
 *
 * Usage: node scripts/mirror-repos.mjs [--from DIR] [--bench]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import gitTrees from './lib/git-trees.cjs';

const { BENCH_REPOSITORIES, REPOSITORIES, mirrorGitDir, mirrorRoot } = gitTrees;

function parseArgs(argv) {
  const args = [...argv];
  const bench = args.includes('--bench');
  if (bench) args.splice(args.indexOf('--bench'), 1);
  if (args.length === 0) return { bench };
  if (args.length === 2 && args[0] === '--from') return { from: resolve(args[1]), bench };
  console.error('usage: node scripts/mirror-repos.mjs [--from DIR] [--bench]');
  process.exit(2);
}

function git(args) {
  const run = spawnSync('git', args, { stdio: ['ignore', 'inherit', 'inherit'] });
  return run.status === 0;
}

const { from, bench } = parseArgs(process.argv.slice(2));
const repositories = bench ? [...REPOSITORIES, ...BENCH_REPOSITORIES] : REPOSITORIES;
const root = mirrorRoot();
let failed = 0;
for (const repo of repositories) {
  const target = mirrorGitDir(root, repo);
  const source = from ? mirrorGitDir(from, repo) : repo.url;
  if (existsSync(target)) {
    const ok = git(['--git-dir', target, 'remote', 'update', '--prune']);
    console.log(`${ok ? 'updated' : 'could not update'} ${target} from ${source}`);
    if (!ok) failed += 1;
    continue;
  }
  // Cloned beside its place and moved there whole: a clone cut short leaves no mirror behind.
  const partial = `${target}.part`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(dirname(target), { recursive: true });
  if (git(['clone', '--mirror', '--quiet', source, partial])) {
    renameSync(partial, target);
    console.log(`cloned ${source} into ${target}`);
  } else {
    rmSync(partial, { recursive: true, force: true });
    console.log(`could not clone ${source}`);
    failed += 1;
  }
}
if (failed) {
  console.error(`${failed} of ${repositories.length} mirrors could not be made; the suites that need them skip, naming them`);
  process.exit(1);
}
console.log(`mirrors under ${join(root)}`);
