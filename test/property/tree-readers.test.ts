/**
 * The two readers of package trees from git (src/git/tree-read.ts): `readTrees`, an `ls-tree` a
 * version, and `readManyTrees`, a `cat-file` a depth for many versions, must agree on every tree,
 * hostile names included: the same files with the same modes and links, or both a refusal (their
 * messages may name different faults: `ls-tree -r` does not list an empty directory, whose name the
 * other reader refuses first).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { CacheEntry } from '../../src/git/cache-entry';
import { DEFAULT_TIMEOUTS } from '../../src/git/run-git';
import { readManyTrees, readTrees } from '../../src/git/tree-read';
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
    expect((error as Error).message).toMatch(/^repo\.git (at \w+ holds .*, which cannot be a path of the package: .*; the version is refused|has no directory "pkg" at \w+)$/);
    return 'refused';
  }
};

describe('readTrees and readManyTrees', () => {
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

  it('read every hostile tree alike, alone and beside another version', async () => {
    await fc.assert(
      fc.asyncProperty(hostileTree, async (tree) => {
        const commit = await commitOf(tree);
        const versions = [
          { commit, directory: 'pkg' },
          { commit, directory: 'other' },
        ];
        const one = await outcome(() => readTrees(entry, versions));
        const many = await outcome(() => readManyTrees(entry, versions));
        expect(many).toEqual(one);
      }),
      { numRuns: 60 },
    );
  });

  it('read a plain package the same, files in subdirectories and modes included', async () => {
    const commit = await commitOf([...entries({ Kptfile: 'kind: Kptfile\n', 'deep/er/x.yaml': 'x: 1\n' }), { name: 'run.sh', file: '#!/bin/sh\n', mode: '100755' }, { name: 'link', link: 'Kptfile' }]);
    const versions = [{ commit, directory: 'pkg' }];
    const many = await outcome(() => readManyTrees(entry, versions));
    expect(many).toEqual(await outcome(() => readTrees(entry, versions)));
    expect(many).toEqual([{ files: [['Kptfile', 0o644, Buffer.from('kind: Kptfile\n').toString('hex')], ['deep/er/x.yaml', 0o644, Buffer.from('x: 1\n').toString('hex')], ['run.sh', 0o755, Buffer.from('#!/bin/sh\n').toString('hex')]], links: ['link'] }]);
  });
});
