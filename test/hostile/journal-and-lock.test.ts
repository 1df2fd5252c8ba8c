/**
 * Issue 18, items 4, 7 and 9: the update's own files when they come with a package's content. A
 * journal this program did not write for this package is never replayed (directory mode and git
 * mode), and undo never goes through a symbolic link; a lock that came with the content does not
 * block; and one update runs at a time in a package tree: a subpackage's update refuses while its
 * parent's runs, and the reverse.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diskOps } from '../../src/disk/safe-write/file-ops';
import { lockPackage } from '../../src/disk/safe-write/lock';
import { undo } from '../../src/disk/safe-write/undo';
import { configMap, kptfile } from '../pkg/trees';
import { cli, entries, fetchedKptfile, outside, PLANTED_JOURNAL, sandboxPerTest, snapshot, upstreamRepository, V1, V2, writeTextFiles } from './hostile-repos';

jest.setTimeout(60_000);

const box = sandboxPerTest();


/** Directory mode's versions beside the package (home/work/{origin,upstream}); the package holds a user's file and a link to the home directory. */
function directoryVersions(): void {
  writeTextFiles(join(box().home, 'work', 'origin'), V1);
  writeTextFiles(join(box().home, 'work', 'upstream'), V2);
  writeTextFiles(box().pkg, { ...V1, 'notes.txt': 'mine\n' });
  symlinkSync('../..', join(box().pkg, 'link'));
}

const directoryUpdate = (extra: string[] = []) =>
  cli(['update', box().pkg, '--origin', join(box().home, 'work', 'origin'), '--upstream', join(box().home, 'work', 'upstream'), ...extra], { env: box().env });

describe('issue 18 item 4: a journal that came with the package is never replayed', () => {
  it.each(['.package-variant.journal', '.package-variant.committed'])('%s in directory mode: ignored with a warning; the update runs; nothing inside or outside is removed', async (name) => {
    directoryVersions();
    writeFileSync(join(box().pkg, name), PLANTED_JOURNAL);
    const before = outside(box());
    for (const dryRun of [true, false]) {
      const run = await directoryUpdate(dryRun ? ['--dry-run'] : []);
      expect(run.code).toBe(0);
      expect(run.stderr).toMatch(new RegExp(`ignored .*${name.replace(/\./g, '\\.')}: it (is not a journal package-variant wrote|does not carry this user's package-variant seal), so it came with the package's content and is never replayed`));
    }
    expect(readFileSync(join(box().pkg, 'Kptfile'), 'utf8')).toBe(V1.Kptfile);
    expect(readFileSync(join(box().pkg, 'notes.txt'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(box().pkg, 'cm.yaml'), 'utf8')).toBe(V2['cm.yaml']);
    expect(outside(box())).toEqual(before);
  });

  it('in git mode, as kpt pkg get leaves it: the same', async () => {
    const repo = join(box().repos, 'up.git');
    const [one] = upstreamRepository(repo, entries(V1), entries(V2));
    writeTextFiles(box().pkg, { ...V1, Kptfile: fetchedKptfile(`file://${repo}`, one), 'notes.txt': 'mine\n', '.package-variant.journal': PLANTED_JOURNAL });
    symlinkSync('../..', join(box().pkg, 'link'));
    const before = outside(box());
    const run = await cli(['update', `${box().pkg}@v2`], { env: box().env });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/ignored .*\.package-variant\.journal: it does not carry this user's package-variant seal/);
    expect(readFileSync(join(box().pkg, 'notes.txt'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(box().pkg, 'cm.yaml'), 'utf8')).toBe(V2['cm.yaml']);
    expect(outside(box())).toEqual(before);
  });

  it('undo never goes through a symbolic link, at any component of a path', () => {
    writeTextFiles(box().pkg, V1);
    symlinkSync('../..', join(box().pkg, 'link'));
    mkdirSync(join(box().pkg, 'real'));
    symlinkSync('../../..', join(box().pkg, 'real', 'up'));
    const before = outside(box());
    const journal = {
      version: 2,
      run: 'r',
      pid: 1,
      host: 'h',
      started: 's',
      package: '0',
      createDirs: ['link/.ssh', 'real/up/work'],
      removeDirs: [],
      entries: [
        { path: 'link/notes.txt', op: 'write' },
        { path: 'real/up/notes.txt', op: 'write', staged: 'real/up/.ssh/authorized_keys' },
        { path: 'cm.yaml', op: 'write', kept: 'link/.ssh/authorized_keys' },
      ],
    };
    const report = undo(diskOps, box().pkg, journal as unknown as Parameters<typeof undo>[2], join(box().pkg, '.package-variant.journal'));
    expect(report.problems.join('\n')).toMatch(/link is a symbolic link, which undo never follows/);
    expect(report.problems.join('\n')).toMatch(/real\/up is a symbolic link, which undo never follows/);
    expect(outside(box())).toEqual(before);
    expect(readFileSync(join(box().pkg, 'cm.yaml'), 'utf8')).toBe(V1['cm.yaml']);
  });
});

describe('issue 18 item 7: a lock that came with the package does not block it', () => {
  it('a lock naming another machine, fetched with the content, is replaced with a notice; the update runs', async () => {
    directoryVersions();
    writeFileSync(join(box().pkg, '.package-variant.lock'), `${JSON.stringify({ pid: 1, host: 'elsewhere.example', started: '2020-01-01T00:00:00.000Z' })}\n`);
    const run = await directoryUpdate();
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/ignored .*\.package-variant\.lock: package-variant did not make it for this package \(it came with the package's content\)/);
    expect(readFileSync(join(box().pkg, 'cm.yaml'), 'utf8')).toBe(V2['cm.yaml']);
    expect(existsSync(join(box().pkg, '.package-variant.lock'))).toBe(false);
  });
});

describe('issue 18 item 9: one update at a time in a package tree', () => {
  /** A parent package (home/work/pkg) with a subpackage (sub/), each with its own origin and upstream. */
  function nested(): { parent: string; sub: string; versions: (dir: string) => string[] } {
    const sub = join(box().pkg, 'sub');
    const base = (name: string, v: string) => ({ Kptfile: kptfile(name), 'cm.yaml': configMap(`cm-${name}`, { v }) });
    writeTextFiles(box().pkg, base('pkg', '1'));
    writeTextFiles(sub, base('sub', '1'));
    for (const [name, v] of [['origin', '1'], ['upstream', '2']] as const) {
      writeTextFiles(join(box().root, 'parent', name), { ...base('pkg', v), ...Object.fromEntries(Object.entries(base('sub', '1')).map(([p, c]) => [`sub/${p}`, c])) });
      writeTextFiles(join(box().root, 'sub', name), base('sub', v));
    }
    const versions = (dir: string) => ['--origin', join(box().root, dir, 'origin'), '--upstream', join(box().root, dir, 'upstream')];
    return { parent: box().pkg, sub, versions };
  }

  it("a subpackage's update refuses while its parent's runs, naming the parent", async () => {
    const { parent, sub, versions } = nested();
    const held = lockPackage(parent);
    try {
      const before = snapshot(parent);
      const run = await cli(['update', sub, ...versions('sub')], { env: box().env });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`an update of ${parent}, the package that holds ${sub}, is running \\(pid ${process.pid} on .*\\): one update of a package tree runs at a time`));
      expect(snapshot(parent, (p) => p.endsWith('.package-variant.lock'))).toEqual(new Map([...before].filter(([p]) => !p.endsWith('.package-variant.lock'))));
      const dry = await cli(['update', sub, ...versions('sub'), '--dry-run'], { env: box().env });
      expect(dry.code).toBe(1);
    } finally {
      held.release();
    }
    expect((await cli(['update', sub, ...versions('sub')], { env: box().env })).code).toBe(0);
  });

  it("a parent's update refuses while a subpackage's runs, naming it", async () => {
    const { parent, sub, versions } = nested();
    const held = lockPackage(sub);
    try {
      const run = await cli(['update', parent, ...versions('parent')], { env: box().env });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`an update of ${sub}, a package inside ${parent}, is running \\(pid ${process.pid} on .*\\)`));
      expect(readFileSync(join(parent, 'cm.yaml'), 'utf8')).toBe(configMap('cm-pkg', { v: '1' }));
    } finally {
      held.release();
    }
    expect((await cli(['update', parent, ...versions('parent')], { env: box().env })).code).toBe(0);
  });
});
