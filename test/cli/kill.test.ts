/**
 * The kill test, a small sample (bench/kill.bench.mjs runs 24 kills on 3,000 resources): upstream
 * moved every locally customised resource to a new directory; `package-variant update` is killed
 * with SIGKILL at seeded points after its first write. Every file is then the old or the new
 * version, none is missing, and a re-run says what it found and completes the update.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compare, runUpdate, snapshot, writeMovedPackage, type PackageDirs, type Snapshot } from '../../scripts/lib/kill-update.cjs';
import { REPO_ROOT } from '../helpers';

const MAIN = join(REPO_ROOT, 'dist/main.js');
/** Where in the write window (from the journal to the end of a run nobody killed) each kill lands. */
const KILL_POINTS = [0.15, 0.55, 0.85];
/**
 * The window is tens of milliseconds and a loaded machine stretches or shifts it, so a kill can land
 * after the update ended. Further points, early in the window, are tried until two kills have landed.
 */
const SPARE_POINTS = [0.05, 0.3, 0.1, 0.2, 0.02, 0.4];
const WANTED_LANDINGS = 2;

let dir: string;
let dirs: PackageDirs;
let before: Snapshot;
let after: Snapshot;
let windowMs: number;
let copies = 0;
/** Kills that hit the update while it was writing (its journal and staged files on disk). */
let landed = 0;

const freshCopy = (): PackageDirs => {
  copies += 1;
  const local = join(dir, `run-${copies}`);
  cpSync(dirs.local, local, { recursive: true });
  return { ...dirs, local };
};

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error('dist/main.js is missing: run `npm run build` (npm test builds first)');
  dir = mkdtempSync(join(tmpdir(), 'pv-kill-'));
  dirs = writeMovedPackage(dir, { resources: 300, large: 2, largeBytes: 2 << 20 });
  before = snapshot(dirs.local);
  const calibration = freshCopy();
  const run = await runUpdate(MAIN, calibration);
  expect(run.code).toBe(0);
  after = snapshot(calibration.local);
  windowMs = run.endedAt - run.journalAt!;
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('update killed with SIGKILL after its first write', () => {
  it('the uninterrupted update removes as many files as it writes (the kill has something to break)', () => {
    expect(after.files.size).toBe(before.files.size);
    expect([...after.files.keys()].filter((p) => p.startsWith('new/'))).toHaveLength(300);
    expect([...after.files.keys()].filter((p) => p.startsWith('old/'))).toEqual([]);
  });

  /** One run killed at `point` of the write window: every file old or new, and a re-run completes the update. */
  const killAndRerun = async (point: number): Promise<void> => {
    const target = freshCopy();
    const killed = await runUpdate(MAIN, target, { killAfterMs: point * windowMs });
    const now = snapshot(target.local);
    const state = compare(now, before, after);
    expect(state.neither).toEqual([]);
    expect(state.missing).toEqual([]);
    const rerun = await runUpdate(MAIN, target);
    expect(rerun.code).toBe(0);
    if (killed.signal === 'SIGKILL' && now.reserved.length > 0) {
      landed += 1;
      expect(rerun.stderr).toMatch(/took over the lock of an earlier update that is no longer running/);
      expect(rerun.stderr).toMatch(/an earlier update of .* was interrupted/);
    }
    const final = snapshot(target.local);
    expect(compare(final, before, after).equalsAfter).toBe(true);
    expect(final.reserved).toEqual([]);
  };

  it.each(KILL_POINTS)('killed at %p of the write window: every file old or new, and a re-run completes the update', killAndRerun, 60_000);

  it('kills at further points until two have landed, each leaving every file old or new', async () => {
    for (const point of SPARE_POINTS) {
      if (landed >= WANTED_LANDINGS) break;
      await killAndRerun(point);
    }
  }, 240_000);

  it('the kills landed while the update was writing', () => {
    expect(landed).toBeGreaterThanOrEqual(WANTED_LANDINGS);
  });
});
