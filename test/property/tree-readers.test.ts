/**
 * The reader of package trees from git (src/git/tree-read.ts, `readManyTrees`: a `cat-file` a depth
 * for many versions, by object name) against git's own listing (`git ls-tree -r -t`): on every
 * tree, hostile names included, it gives exactly the files git lists below the package's
 * directory, with their modes, bytes and links, when every listed name can be a path of the
 * package; and it refuses the version, naming it, when one cannot (not UTF-8, a `..`, `.git` in any
 * spelling, a reserved name, a name twice, a file where a directory is).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { CacheEntry } from '../../src/git/cache-entry';
import { DEFAULT_TIMEOUTS } from '../../src/git/run-git';
import { readManyTrees } from '../../src/git/tree-read';
import { pathProblem } from '../../src/krm/package-paths';
import type { PackageTree } from '../../src/package/tree';
import { entries, writeCommit, writeTree, type Entry } from '../hostile/hostile-repos';
import { hostileTree } from '../hostile/hostile-trees';
import { git, GIT_ENV } from '../pkg/git-repos';

jest.setTimeout(300_000);

const outcome = async (read: () => Promise<PackageTree[]>): Promise<unknown> => {
  try {
    return (await read()).map((tree) => ({
      files: [...tree.files].map(([path, file]) => [path, file.mode, file.bytes.toString('hex')]).sort(),
      links: [...tree.links].sort(),
    }));
  } catch (error) {
    expect((error as Error).message).toMatch(/^repo\.git (at \w+ holds .*, which cannot be a path of the package: .*; the version is refused|has no directory "(pkg|other)" at \w+)$/);
    return 'refused';
  }
};

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** What git lists below `directory` at `commit`, read as the package reader must read it, or 'refused'. */
function listedByGit(gitDir: string, commit: string, directory: string): unknown {
  const listing = execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '-t', '-z', commit, '--', directory], { env: GIT_ENV });
  const prefix = Buffer.from(`${directory}/`);
  const files: [string, number, string][] = [];
  const links: string[] = [];
  const listed: string[] = [];
  // Files, links and submodules: a path may name one of them once, and no directory may be one.
  const notDirectories = new Set<string>();
  for (let at = 0; at < listing.length; ) {
    const end = listing.indexOf(0, at);
    const record = listing.subarray(at, end);
    at = end + 1;
    const tab = record.indexOf(9);
    const [mode, type, object] = record.subarray(0, tab).toString('latin1').split(' ') as [string, string, string];
    const name = record.subarray(tab + 1);
    if (!name.subarray(0, prefix.length).equals(prefix)) continue;
    let path: string;
    try {
      path = utf8.decode(name.subarray(prefix.length));
    } catch {
      return 'refused';
    }
    if (pathProblem(path) !== undefined) return 'refused';
    listed.push(path);
    if (type === 'tree') continue;
    if (notDirectories.has(path)) return 'refused';
    notDirectories.add(path);
    if (type !== 'blob') continue;
    if (mode === '120000') links.push(path);
    else files.push([path, mode === '100755' ? 0o755 : 0o644, execFileSync('git', ['--git-dir', gitDir, 'cat-file', 'blob', object], { env: GIT_ENV }).toString('hex')]);
  }
  const underAFile = (path: string) => [...path.matchAll(/\//g)].some((slash) => notDirectories.has(path.slice(0, slash.index)));
  if (listed.some(underAFile) || files.length === 0) return 'refused';
  return { files: files.sort(), links: links.sort() };
}

describe('readManyTrees against git ls-tree', () => {
  let dir: string;
  let entry: CacheEntry;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pv-tree-readers-'));
    git(['init', '-q', '--bare', join(dir, 'repo.git')]);
    entry = new CacheEntry('repo.git', { kind: 'local', url: join(dir, 'repo.git'), path: join(dir, 'repo.git') }, { env: { ...GIT_ENV, PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache') }, timeouts: DEFAULT_TIMEOUTS, notify: () => undefined });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A commit holding `tree` at `pkg/` beside a plain package at `other/`, written into the cache entry itself. */
  const commitOf = async (tree: readonly Entry[]): Promise<string> => {
    await entry.prepare();
    const root = writeTree(entry.dir, [{ name: 'pkg', dir: tree }, { name: 'other', dir: entries({ Kptfile: 'kind: Kptfile\n', 'a/b.yaml': 'a: 1\n' }) }]);
    return writeCommit(entry.dir, root, undefined, 'hostile');
  };

  it('reads every hostile tree as git lists it, or refuses it where git lists a name no package can hold', async () => {
    let read = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(hostileTree, async (tree) => {
        const commit = await commitOf(tree);
        const [pkg, other] = [listedByGit(entry.dir, commit, 'pkg'), listedByGit(entry.dir, commit, 'other')];
        const many = await outcome(() => readManyTrees(entry, [{ commit, directory: 'pkg' }, { commit, directory: 'other' }]));
        expect(many).toEqual(pkg === 'refused' ? 'refused' : [pkg, other]);
        if (pkg === 'refused') refused += 1;
        else read += 1;
      }),
      { numRuns: 60 },
    );
    expect(read).toBeGreaterThan(2);
    expect(refused).toBeGreaterThan(30);
  });

  it('reads a plain package as git lists it, files in subdirectories and modes included', async () => {
    const commit = await commitOf([...entries({ Kptfile: 'kind: Kptfile\n', 'deep/er/x.yaml': 'x: 1\n' }), { name: 'run.sh', file: '#!/bin/sh\n', mode: '100755' }, { name: 'link', link: 'Kptfile' }]);
    const many = await outcome(() => readManyTrees(entry, [{ commit, directory: 'pkg' }]));
    expect(many).toEqual([listedByGit(entry.dir, commit, 'pkg')]);
    expect(many).toEqual([{ files: [['Kptfile', 0o644, Buffer.from('kind: Kptfile\n').toString('hex')], ['deep/er/x.yaml', 0o644, Buffer.from('x: 1\n').toString('hex')], ['run.sh', 0o755, Buffer.from('#!/bin/sh\n').toString('hex')]], links: ['link'] }]);
  });
});
