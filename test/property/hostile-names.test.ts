/**
 * Issue 18's invariant: whatever names an upstream's entries carry, an update never creates,
 * changes or removes anything outside the package's directory. Trees are drawn from a hostile
 * alphabet (`..`, `.`, `.git` in mixed case and its other spellings, the update's own names, a
 * leading `-`, control characters, a `/` inside one name, names longer than a file system takes,
 * links out of the package), in git mode (written as git objects by hand, fetched fresh or already
 * in the cache) and in directory mode (as far as a file system can hold them); the local package
 * may hold what came with it earlier: a journal reaching through a linked directory, a lock.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import fc from 'fast-check';
import { updateFromGit } from '../../src/update/git-update';
import { updateFromDirectories } from '../../src/update/update';
import { entries, fetchedKptfile, outside, PLANTED_JOURNAL, sandbox, upstreamRepository, V1, V2, writeTextFiles, type Entry, type Sandbox } from '../hostile/hostile-repos';
import { hostileTree } from '../hostile/hostile-trees';
import { git } from '../pkg/git-repos';

jest.setTimeout(300_000);



/** What came with the local package before: nothing, a planted journal or lock, and a link out of it. */
const planted = fc.subarray(['.package-variant.journal', '.package-variant.committed', '.package-variant.lock', 'link']);

function plant(pkg: string, what: readonly string[]): void {
  for (const file of what) {
    if (file === 'link') symlinkSync('../..', join(pkg, 'link'));
    else writeFileSync(join(pkg, file), file.endsWith('lock') ? '{"pid":1,"host":"elsewhere","started":"then"}\n' : PLANTED_JOURNAL);
  }
}

/** Writes the entries a file system can hold below `dir`; those it cannot (`..`, a `/` in a name, a name too long) are left out. */
function writeOnDisk(dir: string, tree: readonly Entry[]): void {
  for (const entry of tree) {
    const entryName = entry.name.toString();
    if (entryName === '.' || entryName === '..' || entryName === '' || entryName.includes('/')) continue;
    const path = join(dir, entryName);
    try {
      if ('dir' in entry) {
        mkdirSync(path, { recursive: true });
        writeOnDisk(path, entry.dir);
      } else if ('link' in entry) symlinkSync(entry.link, path);
      else writeFileSync(path, entry.file);
    } catch {
      // EEXIST, ENAMETOOLONG, ENOTDIR: the file system keeps it from existing.
    }
  }
}

/** Runs an update and ignores how it ends: the invariant is about the disk, whatever the update says. */
async function attempt(update: () => unknown): Promise<void> {
  try {
    await update();
  } catch {
    // Refused: that is one of the outcomes.
  }
}

function withSandbox(check: (box: Sandbox) => Promise<void>): () => Promise<void> {
  return async () => {
    const box = sandbox('pv-hostile-names-');
    try {
      await check(box);
    } finally {
      rmSync(box.root, { recursive: true, force: true });
    }
  };
}

describe('no update creates, changes or removes a file outside the package, whatever the names', () => {
  it('git mode: upstream trees with hostile names, fetched fresh or already in the cache', async () => {
    await fc.assert(
      fc.asyncProperty(hostileTree, fc.boolean(), planted, (tree, cached, came) =>
        withSandbox(async (box) => {
          const repo = join(box.repos, 'up.git');
          const url = `file://${repo}`;
          const [one, two] = upstreamRepository(repo, entries(V1), [...entries(V2), ...tree]);
          writeTextFiles(box.pkg, { ...V1, Kptfile: fetchedKptfile(url, one) });
          plant(box.pkg, came);
          if (cached) {
            const entry = join(box.cache, createHash('sha256').update(url).digest('hex').slice(0, 32));
            git(['init', '-q', '--bare', entry]);
            git(['--git-dir', entry, '-c', 'fetch.fsckObjects=false', 'fetch', '-q', url, `+${one}:refs/package-variant/commits/${one}`, `+${two}:refs/package-variant/commits/${two}`]);
          }
          const before = outside(box);
          await attempt(() => updateFromGit({ pkg: box.pkg, ref: 'v2', env: box.env, allowDirty: true }));
          expect(outside(box)).toEqual(before);
        })(),
      ),
      { seed: 18_2026, numRuns: 40 },
    );
  });

  it('directory mode: upstream directories with hostile names, as far as a file system holds them', async () => {
    await fc.assert(
      fc.asyncProperty(hostileTree, hostileTree, planted, (upstreamTree, originTree, came) =>
        withSandbox(async (box) => {
          const origin = join(box.home, 'work', 'origin');
          const upstream = join(box.home, 'work', 'upstream');
          writeTextFiles(origin, V1);
          writeOnDisk(origin, originTree);
          writeTextFiles(upstream, V2);
          writeOnDisk(upstream, upstreamTree);
          writeTextFiles(box.pkg, { ...V1, 'notes.txt': 'mine\n' });
          plant(box.pkg, came);
          const before = outside(box);
          await attempt(() => updateFromDirectories({ local: box.pkg, origin, upstream }));
          expect(outside(box)).toEqual(before);
        })(),
      ),
      { seed: 18_2026, numRuns: 60 },
    );
  });
});
