// The floor of a sync (issue 29): plain git doing only the transfers a sync must do on the same
// repositories, and nothing else. Each repository has a bare mirror of its own (as sync has its cache
// entry), fetched whole: every branch and tag. A floor is a command of its own, so that it is timed
// as sync is (a process and its children: wall, CPU, peak RSS), as many repositories at a time as
// sync works on:
//
//   node bench/lib/git-floor.mjs DIR init CONCURRENCY URL...   a mirror per repository, fetched
//   node bench/lib/git-floor.mjs DIR warm       every mirror brought up to date (run untimed)
//   node bench/lib/git-floor.mjs DIR fetch      one `git fetch --prune` a repository: what a sync
//                                               that finds nothing to do must pay
//   node bench/lib/git-floor.mjs DIR upgrade N  the fetch, then one new commit (`git commit-tree` on
//                                               the branch's tree) pushed to `refs/bench-floor/N`,
//                                               which neither sync nor the floor fetch: the least a
//                                               sync that writes must pay
//
// Run `warm` before each timed measure, so that the fetch finds nothing new, as the cheapest fetch
// does. The commits take their identity from the environment. Node builtins only.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** git, its stdout; a failure throws with git's message. */
function git(args) {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out).toString('utf8').trim()) : reject(new Error(`git ${args.join(' ')}: ${Buffer.concat(err).toString('utf8')}`))));
  });
}

/** `work` on every item, `limit` at a time. */
async function eachLimited(items, limit, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

const REFSPECS = ['+refs/heads/*:refs/mirror/heads/*', '+refs/tags/*:refs/mirror/tags/*'];
const BRANCH = 'refs/mirror/heads/main';

const fetch = ({ url, gitDir }) => git(['--git-dir', gitDir, 'fetch', '-q', '--prune', '--no-tags', url, ...REFSPECS]);

async function upgrade({ url, gitDir }, n) {
  await fetch({ url, gitDir });
  const commit = await git(['--git-dir', gitDir, 'commit-tree', '-p', BRANCH, '-m', `floor ${n}`, `${BRANCH}^{tree}`]);
  await git(['--git-dir', gitDir, 'push', '-q', url, `${commit}:refs/bench-floor/${n}`]);
}

async function main([dir, command, ...rest]) {
  const setting = join(dir, 'floor.json');
  if (command === 'init') {
    const [concurrency, ...urls] = rest;
    mkdirSync(dir, { recursive: true });
    const mirrors = urls.map((url, i) => ({ url, gitDir: join(dir, `mirror-${i}.git`) }));
    writeFileSync(setting, JSON.stringify({ concurrency: Number(concurrency), mirrors }));
    await eachLimited(mirrors, Number(concurrency), async (mirror) => {
      await git(['init', '-q', '--bare', mirror.gitDir]);
      await fetch(mirror);
    });
    return;
  }
  const { concurrency, mirrors } = JSON.parse(readFileSync(setting, 'utf8'));
  if (command === 'warm' || command === 'fetch') await eachLimited(mirrors, concurrency, fetch);
  else if (command === 'upgrade') await eachLimited(mirrors, concurrency, (mirror) => upgrade(mirror, rest[0]));
  else throw new Error(`unknown command ${command}`);
}

main(process.argv.slice(2)).catch((error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
