/**
 * `update --dry-run` and `update --diff`: exactly what would be added, changed and removed, the
 * change as a unified diff that git applies to give what the update writes, and nothing written,
 * not even a lock.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compare, snapshot, writeMovedPackage, type PackageDirs } from '../../scripts/lib/kill-update.cjs';
import { REPO_ROOT } from '../helpers';
import { configMap, kptfile, writeFiles, type Files } from '../pkg/trees';

const MAIN = join(REPO_ROOT, 'dist/main.js');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-dry-run-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function cli(dirs: PackageDirs, ...flags: string[]) {
  const run = spawnSync(process.execPath, [MAIN, 'update', dirs.local, '--origin', dirs.origin, '--upstream', dirs.upstream, ...flags], { encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const ORIGIN: Files = {
  Kptfile: kptfile('pkg'),
  'cm.yaml': configMap('cm', { a: '1', b: '2', c: '3', d: '4', e: '5', f: '6', g: '7', h: '8' }),
  'README.md': 'line 1\nline 2\n',
  'docs/old.md': 'old\n',
  'run.sh': '#!/bin/sh\necho hi\n',
  'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]),
  'notes.txt': 'no newline at the end',
};
const UPSTREAM: Files = {
  ...ORIGIN,
  'cm.yaml': configMap('cm', { a: '1', b: '2', c: '3', d: '4', e: '5', f: '6', g: '7', h: 'eight' }),
  'README.md': 'line 1\nline 2\nline 3\n',
  'new/guide.md': 'guide\n',
  'logo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x02]),
  'notes.txt': 'no newline at the end\n',
};
delete UPSTREAM['docs/old.md'];

function small(): PackageDirs {
  const dirs = { origin: join(dir, 'origin'), upstream: join(dir, 'upstream'), local: join(dir, 'local') };
  writeFiles(dirs.origin, ORIGIN);
  writeFiles(dirs.upstream, UPSTREAM);
  writeFiles(dirs.local, ORIGIN);
  chmodSync(join(dirs.upstream, 'run.sh'), 0o755);
  return dirs;
}

describe('update --dry-run', () => {
  it('--help names both flags', () => {
    const help = spawnSync(process.execPath, [MAIN, 'update', '--help'], { encoding: 'utf8' }).stdout;
    expect(help).toMatch(/package-variant update \[PKG\]\[@REF\] .*\[--dry-run\|--diff\]/);
    expect(help).toMatch(/--dry-run +list the files that would be added, changed and removed; write nothing\n +--diff +print the change as a unified diff/);
  });

  it('lists what would be added, changed and removed, files and directories; writes nothing, not even a lock', () => {
    const dirs = small();
    const before = snapshot(dirs.local);
    const run = cli(dirs, '--dry-run');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n').filter((l) => !l.startsWith('['))).toEqual([
      'would add directory new/',
      'would change README.md',
      'would change cm.yaml',
      'would change logo.png',
      'would add new/guide.md',
      'would change notes.txt',
      'would change run.sh',
      'would remove docs/old.md',
      'would remove directory docs/',
      '',
    ]);
    expect(run.stderr).toBe('package-variant update: dry run: 1 file would be added, 5 changed, 1 removed; nothing was written\n');
    const after = snapshot(dirs.local);
    expect(compare(after, before, before).equalsBefore).toBe(true);
    expect(after.reserved).toEqual([]);
  });
});

/** The merge benchmark's package of 100 Deployments (bench/lib is ECMAScript modules: written by a child). */
function generatedDeployments(root: string): PackageDirs {
  const script = `import(${JSON.stringify(join(REPO_ROOT, 'bench/lib/generate-packages.mjs'))}).then((m) => m.writePackages(m.generatePackages(100, { seed: 7 }), ${JSON.stringify(root)}))`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
  return { origin: join(root, 'origin'), upstream: join(root, 'upstream'), local: join(root, 'local') };
}

describe('update --diff', () => {
  it('prints the change as a git diff: hunks with context, new and deleted files, modes, binary files, missing newlines', () => {
    const dirs = small();
    const run = cli(dirs, '--diff');
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      [
        'diff --git a/README.md b/README.md',
        '--- a/README.md',
        '+++ b/README.md',
        '@@ -1,2 +1,3 @@',
        ' line 1',
        ' line 2',
        '+line 3',
        'diff --git a/cm.yaml b/cm.yaml',
        '--- a/cm.yaml',
        '+++ b/cm.yaml',
        '@@ -10,4 +10,4 @@',
        '   e: "5"',
        '   f: "6"',
        '   g: "7"',
        '-  h: "8"',
        '+  h: "eight"',
        'diff --git a/docs/old.md b/docs/old.md',
        'deleted file mode 100644',
        '--- a/docs/old.md',
        '+++ /dev/null',
        '@@ -1 +0,0 @@',
        '-old',
        'diff --git a/logo.png b/logo.png',
        'Binary files a/logo.png and b/logo.png differ',
        'diff --git a/new/guide.md b/new/guide.md',
        'new file mode 100644',
        '--- /dev/null',
        '+++ b/new/guide.md',
        '@@ -0,0 +1 @@',
        '+guide',
        'diff --git a/notes.txt b/notes.txt',
        '--- a/notes.txt',
        '+++ b/notes.txt',
        '@@ -1 +1 @@',
        '-no newline at the end',
        '\\ No newline at end of file',
        '+no newline at the end',
        'diff --git a/run.sh b/run.sh',
        'old mode 100644',
        'new mode 100755',
        '',
      ].join('\n'),
    );
    // stdout is the diff alone: the results and the summary are on stderr.
    expect(run.stderr).toMatch(/^\[info\]: merged upstream changes .*\npackage-variant update: dry run: 1 file would be added, 5 changed, 1 removed; nothing was written\n$/);
  });

  it.each([
    ['a package whose upstream moved every resource', (root: string) => writeMovedPackage(root, { resources: 40 })],
    ['100 generated Deployments edited on both sides', generatedDeployments],
  ])('git applies the diff of %s, giving exactly what the update writes', (_name, make) => {
    const dirs = make(join(dir, 'pkg'));
    const patched = join(dir, 'patched');
    cpSync(dirs.local, patched, { recursive: true });
    const diff = cli(dirs, '--diff');
    expect(diff.code).toBe(0);
    writeFileSync(join(dir, 'update.patch'), diff.stdout);
    const apply = spawnSync('git', ['apply', '--whitespace=nowarn', join(dir, 'update.patch')], { cwd: patched, encoding: 'utf8' });
    expect(apply.stderr).toBe('');
    expect(cli(dirs).code).toBe(0);
    const updated = snapshot(dirs.local);
    expect(compare(snapshot(patched), updated, updated).equalsAfter).toBe(true);
  });
});
