/**
 * Issue 18, items 1, 3 and 7 and the printed names of item 10: paths that come from an upstream's
 * git trees. A version holding `..`, `.git` in any spelling, or a name the update keeps for itself
 * is refused, naming the path, and nothing inside or outside the package changes, whether git's own
 * object check catches it on fetch or the objects already sit in the cache. Names with a newline
 * or an escape are printed quoted; a name that is not UTF-8 is refused, never renamed.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '../pkg/git-repos';
import { cli, entries, fetchedKptfile, outside, sandboxPerTest, snapshot, upstreamRepository, V1, V2, writeTextFiles, type Entry } from './hostile-repos';

jest.setTimeout(60_000);

let repo: string;
let url: string;
const box = sandboxPerTest();
beforeEach(() => {
  repo = join(box().repos, 'up.git');
  url = `file://${repo}`;
});

/** The package fetched at v1 of an upstream whose v2 adds `added`. */
function fetched(added: Entry[]): void {
  const [one] = upstreamRepository(repo, entries(V1), [...entries(V2), ...added]);
  writeTextFiles(box().pkg, { ...V1, Kptfile: fetchedKptfile(url, one) });
}

/** The cache entry of the upstream, filled with v1 and v2 without git's object check, as an earlier version (or another tool) left it. */
function poisonCache(): void {
  const entry = join(box().cache, createHash('sha256').update(url).digest('hex').slice(0, 32));
  git(['init', '-q', '--bare', entry]);
  for (const tag of ['v1', 'v2']) {
    const commit = git(['--git-dir', repo, 'rev-parse', tag]);
    git(['--git-dir', entry, '-c', 'fetch.fsckObjects=false', 'fetch', '-q', url, `+${commit}:refs/package-variant/commits/${commit}`]);
  }
}

/** Runs `update pkg@v2` (and a dry run first); the package and everything outside it must be as they were, and the refusal must name `path`. */
async function refused(path: RegExp): Promise<void> {
  const before = { pkg: snapshot(box().pkg), outside: outside(box()) };
  for (const args of [['--dry-run'], []]) {
    const run = await cli(['update', `${box().pkg}@v2`, ...args], { env: box().env });
    expect(run.stdout).not.toMatch(/would (add|create directory) \.\.\//);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 1, stderr: expect.stringMatching(path) });
    expect(run.stderr).toMatch(/nothing was written\n$/);
  }
  expect(snapshot(box().pkg)).toEqual(before.pkg);
  expect(outside(box())).toEqual(before.outside);
}

describe('issue 18 item 1: a tree with `..` entries never writes outside the package', () => {
  const climbing: Entry[] = [{ name: '..', dir: [{ name: '..', dir: [{ name: '.ssh', dir: [{ name: 'authorized_keys', file: 'ssh-ed25519 AAAA the-attacker\n' }] }] }] }];

  it('fetched fresh: git refuses the objects (fsckObjects), naming the repository', async () => {
    fetched(climbing);
    await refused(/git fetch failed for file:.*up\.git \(cached in .*\): error: object [0-9a-f]+: hasDotdot: contains '\.\.'/);
  });

  it('already in the cache: the version is refused naming the path, before anything is planned', async () => {
    fetched(climbing);
    poisonCache();
    await refused(/up\.git at [0-9a-f]{40} holds "\.\.", which cannot be a path of the package: it climbs out of the package; the version is refused/);
  });

  it('`..` deeper in the package, and `.`, are refused too', async () => {
    fetched([{ name: 'docs', dir: [{ name: '..', dir: [{ name: 'cm.yaml', file: 'overwritten\n' }] }, { name: '.', dir: [{ name: 'x', file: 'x\n' }] }] }]);
    poisonCache();
    await refused(/holds "docs\/\.\.", which cannot be a path of the package: it holds a "\.\." name/);
  });
});

describe('issue 18 item 3: an upstream never plants a repository in the package', () => {
  const repository = (marker: string): Entry[] => [
    { name: 'HEAD', file: 'ref: refs/heads/main\n' },
    { name: 'config', file: `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = touch ${marker}; false\n` },
    { name: 'objects', dir: [{ name: 'info', dir: [{ name: 'keep', file: '' }] }] },
    { name: 'refs', dir: [{ name: 'heads', dir: [{ name: 'keep', file: '' }] }] },
  ];

  it.each([
    ['.git', (r: Entry[]): Entry[] => [{ name: '.git', dir: r }], /holds "\.git", which cannot be a path of the package: it lies in \.git/],
    ['.GIT', (r: Entry[]): Entry[] => [{ name: '.GIT', dir: r }], /holds "\.GIT", which cannot be a path of the package: it lies in "\.GIT", which git takes for \.git/],
    ['nested/.git', (r: Entry[]): Entry[] => [{ name: 'nested', dir: [{ name: '.git', dir: r }] }], /holds "nested\/\.git", which cannot be a path of the package: it lies in \.git/],
  ])('%s/ is refused (from the cache too), and git status in the package runs nothing', async (_name, plant, why) => {
    const marker = join(box().root, 'fsmonitor-ran');
    fetched(plant(repository(marker)));
    const fresh = await cli(['update', `${box().pkg}@v2`], { env: box().env });
    expect(fresh.code).toBe(1);
    expect(fresh.stderr).toMatch(/hasDotgit: contains '\.git'/);
    rmSync(box().cache, { recursive: true, force: true });
    poisonCache();
    await refused(why);
    expect(readdirSync(box().pkg).sort()).toEqual(['Kptfile', 'cm.yaml']);
    spawnSync('git', ['status'], { cwd: join(box().pkg, 'nested'), env: box().env });
    spawnSync('git', ['status'], { cwd: box().pkg, env: box().env });
    expect(existsSync(marker)).toBe(false);
  });
});

describe('issue 18 item 7: names the update keeps for itself never come from upstream', () => {
  it.each([
    ['a lock at the root', [{ name: '.package-variant.lock', file: '{"pid":1,"host":"elsewhere","started":"then"}\n' }], /holds "\.package-variant\.lock", which cannot be a path of the package: "\.package-variant\.lock" is a name package-variant update keeps for its own files/],
    ['a journal below', [{ name: 'docs', dir: [{ name: '.package-variant.journal', file: '{}' }] }], /holds "docs\/\.package-variant\.journal"/],
    ['a staged file, in capitals', [{ name: '.Package-Variant-1-2.new', file: 'x' }], /holds "\.Package-Variant-1-2\.new"/],
  ])('%s is refused, and the next update is not blocked', async (_what, added, why) => {
    fetched(added as Entry[]);
    await refused(why);
    const again = await cli(['update', `${box().pkg}@v1`, '--dry-run'], { env: box().env });
    expect(again.code).toBe(0);
  });
});

describe('issue 18 item 10: names from upstream are printed inert, and never renamed', () => {
  it('a name with a newline or a terminal escape is printed quoted, as git quotes it: no forged line, no escape byte', async () => {
    fetched([
      { name: 'x\nremoved Kptfile', file: 'x\n' },
      { name: 'e\x1b[31mred.txt', file: 'e\n' },
    ]);
    const dry = await cli(['update', `${box().pkg}@v2`, '--dry-run'], { env: box().env });
    expect(dry.code).toBe(0);
    expect(dry.stdout.split('\n')).toEqual(expect.arrayContaining(['would add "e\\033[31mred.txt"', 'would add "x\\nremoved Kptfile"']));
    const diff = await cli(['update', `${box().pkg}@v2`, '--diff'], { env: box().env });
    expect(diff.stdout).toContain('diff --git "a/x\\nremoved Kptfile" "b/x\\nremoved Kptfile"\n');
    const run = await cli(['update', `${box().pkg}@v2`], { env: box().env });
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines).not.toContain('removed Kptfile');
    expect(lines).toEqual(expect.arrayContaining(['added "x\\nremoved Kptfile"', 'added "e\\033[31mred.txt"']));
    expect(run.stdout + run.stderr).not.toContain('\x1b');
    expect(readdirSync(box().pkg).sort()).toEqual(['Kptfile', 'cm.yaml', 'e\x1b[31mred.txt', 'x\nremoved Kptfile']);
  });

  it('a name that is not UTF-8 is refused, named with its bytes, and nothing is renamed', async () => {
    fetched([{ name: Buffer.from([0x66, 0xff, 0x2e, 0x74, 0x78, 0x74]), file: 'latin-1\n' }]);
    poisonCache();
    await refused(/holds "f\\377\.txt", which cannot be a path of the package: its name is not UTF-8, and the update never renames a file/);
  });
});
