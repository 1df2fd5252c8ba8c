/**
 * Issue 18, items 5 and 10: what sits in the cache, and the environment git inherits. A replace ref
 * planted in the cache does not change what is merged; updates that share a cold cache do not race;
 * a half-made cache entry is made again and named; GIT_DIR and its kin (as inside a git hook) do
 * not send cache work into the user's repository; a relative repository is read from its Kptfile's
 * directory, wherever the update runs from.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { git } from '../pkg/git-repos';
import { cli, entries, fetchedKptfile, sandboxPerTest, upstreamRepository, V1, V2, writeCommit, writeTextFiles, writeTree } from './hostile-repos';

jest.setTimeout(120_000);

let repo: string;
let url: string;
let commits: [string, string];
const box = sandboxPerTest();
beforeEach(() => {
  repo = join(box().repos, 'up.git');
  url = `file://${repo}`;
  commits = upstreamRepository(repo, entries(V1), entries(V2));
});

/** What a successful update says on stderr: its count, and nothing else. */
const COUNT = /^package-variant update: \d+ files? added, \d+ changed, \d+ removed\n$/;

const entryOf = (repoUrl: string) => join(box().cache, createHash('sha256').update(repoUrl).digest('hex').slice(0, 32));
const cmText = (pkg = box().pkg) => readFileSync(join(pkg, 'cm.yaml'), 'utf8');

function fetchedAt(pkg: string, repoText = url): void {
  writeTextFiles(pkg, { ...V1, Kptfile: fetchedKptfile(repoText, commits[0]) });
}

describe('issue 18 item 5: a replace ref in the cache does not change what is merged', () => {
  it('the genuine v2 is merged, and the Kptfile records it', async () => {
    fetchedAt(box().pkg);
    expect((await cli(['update', `${box().pkg}@v2`, '--dry-run'], { env: box().env })).code).toBe(0);
    const entry = entryOf(url);
    const evil = writeCommit(entry, writeTree(entry, [{ name: 'pkg', dir: entries({ ...V2, 'cm.yaml': V2['cm.yaml']!.replace('"2"', '"evil"') }) }]), undefined, 'evil');
    git(['--git-dir', entry, 'update-ref', `refs/replace/${commits[1]}`, evil]);
    const run = await cli(['update', `${box().pkg}@v2`], { env: box().env });
    expect(run.code).toBe(0);
    expect(cmText()).toBe(V2['cm.yaml']);
    expect(parse(readFileSync(join(box().pkg, 'Kptfile'), 'utf8')).upstreamLock.git.commit).toBe(commits[1]);
  });
});

describe('issue 18 item 10: the cache and the environment', () => {
  it('updates that share a cold cache do not race: every one of them succeeds, round after round', async () => {
    const packages = [1, 2, 3, 4, 5, 6].map((n) => join(box().root, `pkg-${n}`));
    for (const pkg of packages) fetchedAt(pkg);
    for (let round = 0; round < 5; round += 1) {
      rmSync(box().cache, { recursive: true, force: true });
      const runs = await Promise.all(packages.map((pkg) => cli(['update', `${pkg}@${round % 2 ? 'v1' : 'v2'}`], { env: box().env })));
      expect(runs.map((r) => [r.code, r.stderr])).toEqual(packages.map(() => [0, expect.stringMatching(COUNT)]));
    }
  });

  it('the cache is private to the user (0700)', async () => {
    fetchedAt(box().pkg);
    mkdirSync(box().cache, { mode: 0o755 });
    expect((await cli(['update', `${box().pkg}@v2`], { env: box().env })).code).toBe(0);
    expect(statSync(box().cache).mode & 0o777).toBe(0o700);
    expect(statSync(entryOf(url)).mode & 0o777).toBe(0o700);
  });

  it.each([
    ['with only HEAD (an init that was killed)', (entry: string) => writeFileSync(join(entry, 'HEAD'), 'ref: refs/heads/main\n'), 'incomplete (it has no config)'],
    ['configured to run a program', (entry: string) => git(['config', 'core.sshCommand', 'touch /tmp/never'], entry), 'configured otherwise than package-variant configures its entries'],
  ])('a cache entry %s is made again, and the run names it', async (_what, damage, why) => {
    fetchedAt(box().pkg);
    const entry = entryOf(url);
    if (why.startsWith('configured')) git(['init', '-q', '--bare', entry]);
    else mkdirSync(entry, { recursive: true });
    damage(entry);
    const run = await cli(['update', `${box().pkg}@v2`], { env: box().env });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(new RegExp(`^package-variant update: the cache entry ${entry} of ${url.replace(/[/.]/g, '\\$&')} was ${why.replace(/[()]/g, '\\$&')}; it is made again\n`));
    expect(run.stderr.slice(run.stderr.indexOf('\n') + 1)).toMatch(COUNT);
    expect(cmText()).toBe(V2['cm.yaml']);
  });

  it("GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE (as in a git hook) do not send cache work into the user's repository", async () => {
    const work = join(box().home, 'work');
    git(['init', '-q', work]);
    fetchedAt(box().pkg);
    git(['add', '-A'], work);
    git(['commit', '-q', '-m', 'fetched'], work);
    // The cache already holds the repository (v1): the update to v2 fetches into it.
    expect((await cli(['update', 'pkg@v1', '--dry-run'], { env: box().env, cwd: work })).code).toBe(0);
    const refs = () => git(['for-each-ref', '--format=%(refname)'], work);
    const objects = () => git(['count-objects', '-v'], work);
    const before = { refs: refs(), objects: objects() };
    const hook = { ...box().env, GIT_DIR: join(work, '.git'), GIT_WORK_TREE: work, GIT_INDEX_FILE: join(work, '.git', 'index'), GIT_OBJECT_DIRECTORY: join(work, '.git', 'objects') };
    const run = await cli(['update', 'pkg@v2'], { env: hook, cwd: work });
    expect([run.code, run.stderr]).toEqual([0, expect.stringMatching(COUNT)]);
    expect(cmText()).toBe(V2['cm.yaml']);
    expect({ refs: refs(), objects: objects() }).toEqual(before);
  });

  it("a relative upstream.git.repo is read from its Kptfile's directory, wherever the update runs from", async () => {
    // home/work/pkg -> ../../../repos/up.git
    fetchedAt(box().pkg, '../../../repos/up.git');
    const elsewhere = join(box().root, 'elsewhere', 'deeper');
    mkdirSync(elsewhere, { recursive: true });
    const run = await cli(['update', `${box().pkg}@v2`], { env: box().env, cwd: elsewhere });
    expect([run.code, run.stderr]).toEqual([0, expect.stringMatching(COUNT)]);
    expect(cmText()).toBe(V2['cm.yaml']);
    expect(parse(readFileSync(join(box().pkg, 'Kptfile'), 'utf8')).upstream.git.repo).toBe('../../../repos/up.git');
  });
});
