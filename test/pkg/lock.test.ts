/**
 * One update of a package at a time: the lock file, what a second update says, stale locks from
 * killed runs, and two real processes started together.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { LockError, lockPackage } from '../../src/disk/safe-write/lock';
import { packageInode } from '../../src/disk/safe-write/package-identity';
import { LOCK_FILE } from '../../src/disk/safe-write/reserved';
import { updateFromDirectories } from '../../src/update/update';
import { compare, snapshot, writeMovedPackage } from '../../scripts/lib/kill-update.cjs';
import { REPO_ROOT } from '../helpers';
import { configMap, oneChangeUpdate } from './trees';

const MAIN = join(REPO_ROOT, 'dist/main.js');

let dir: string;
beforeEach(() => {
  dir = oneChangeUpdate('pv-lock-');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const local = () => join(dir, 'local');
const update = (notices: string[] = [], dryRun = false) =>
  updateFromDirectories({ local: local(), origin: join(dir, 'origin'), upstream: join(dir, 'upstream'), notify: (n) => notices.push(n), ...(dryRun ? { dryRun } : {}) });
const cmText = () => readFileSync(join(local(), 'cm.yaml'), 'utf8');

/** The pid of a process that has exited. */
function deadPid(): number {
  const run = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(run.stdout);
}

describe('the package lock', () => {
  it('a second update while one holds the lock stops and says who holds it; nothing is written', () => {
    const held = lockPackage(local());
    try {
      expect(() => update()).toThrow(LockError);
      expect(() => update()).toThrow(
        new RegExp(`^another package-variant update of .*local is running \\(pid ${process.pid} on ${hostname()}, since .*\\): wait for it to finish\\. If none is running .*remove .*local/\\.package-variant\\.lock$`),
      );
      expect(cmText()).toBe(configMap('cm', { v: '1' }));
      expect(() => update([], true)).toThrow(/an update of .*local is running \(pid \d+/);
    } finally {
      held.release();
    }
    expect(existsSync(join(local(), LOCK_FILE))).toBe(false);
  });

  it('the command line: exit 1, the holder, and that nothing was written', () => {
    const held = lockPackage(local());
    try {
      const run = spawnSync(process.execPath, [MAIN, 'update', local(), '--origin', join(dir, 'origin'), '--upstream', join(dir, 'upstream')], { encoding: 'utf8' });
      expect(run.status).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`^package-variant update: another package-variant update of .* is running \\(pid ${process.pid} on .*\\.package-variant\\.lock\\npackage-variant update: nothing was written\\n$`));
    } finally {
      held.release();
    }
  });

  it('a stale lock (its process is gone) is taken over, with a notice, and released afterwards', () => {
    const pid = deadPid();
    writeFileSync(join(local(), LOCK_FILE), `${JSON.stringify({ pid, host: hostname(), started: '2026-01-01T00:00:00.000Z', package: packageInode(local()) })}\n`);
    const notices: string[] = [];
    update(notices);
    expect(notices).toEqual([`took over the lock of an earlier update that is no longer running (pid ${pid} on ${hostname()}, since 2026-01-01T00:00:00.000Z)`]);
    expect(cmText()).toBe(configMap('cm', { v: '2' }));
    expect(readdirSync(local()).sort()).toEqual(['Kptfile', 'cm.yaml']);
  });

  it('a lock from another machine cannot be checked: the update stops and says to remove it if no update runs', () => {
    writeFileSync(join(local(), LOCK_FILE), `${JSON.stringify({ pid: 1, host: 'elsewhere.example', started: '2026-01-01T00:00:00.000Z', package: packageInode(local()) })}\n`);
    expect(() => update()).toThrow(/is running \(pid 1 on elsewhere\.example, since 2026-01-01T00:00:00\.000Z\).*If none is running \(a run killed on another machine.*remove /);
    expect(cmText()).toBe(configMap('cm', { v: '1' }));
  });

  it('a dry run takes no lock and leaves nothing behind', () => {
    const before = readdirSync(local()).sort();
    const outcome = update([], true);
    expect(outcome.plan?.writes.map((w) => w.path)).toEqual(['cm.yaml']);
    expect(readdirSync(local()).sort()).toEqual(before);
    expect(cmText()).toBe(configMap('cm', { v: '1' }));
  });
});

describe('two updates of one package started together', () => {
  it('one runs, the other stops saying why; the package is updated once, whole', async () => {
    const dirs = writeMovedPackage(join(dir, 'moved'), { resources: 300 });
    const before = snapshot(dirs.local);
    const expected = join(dir, 'expected');
    cpSync(dirs.local, expected, { recursive: true });
    spawnSync(process.execPath, [MAIN, 'update', expected, '--origin', dirs.origin, '--upstream', dirs.upstream]);
    const after = snapshot(expected);
    const start = () =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [MAIN, 'update', dirs.local, '--origin', dirs.origin, '--upstream', dirs.upstream], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += d));
        child.on('close', (code) => resolve({ code, stderr }));
      });
    const runs = await Promise.all([start(), start()]);
    const refused = runs.filter((r) => r.code !== 0);
    expect(refused).toHaveLength(1);
    expect(refused[0]!.stderr).toMatch(/^package-variant update: another package-variant update of .* is running \(pid \d+ on .*\): wait for it to finish/);
    const final = snapshot(dirs.local);
    expect(compare(final, before, after).equalsAfter).toBe(true);
    expect(final.reserved).toEqual([]);
  }, 60_000);
});
