// The kill test of `package-variant update` (issue 13), at full size, and what the safe writer costs.
//
// The issue's probe: upstream moved 3,000 locally customised resources to a new directory; a
// SIGKILL in the middle of the writes lost hundreds to thousands of them in every run, and a re-run
// then reported success. Here the same package (3,000 ConfigMaps customised locally, moved from
// old/ to new/ upstream, one of them 8 MiB, as the probe's cut-off files were) is updated by
// `node dist/main.js update` and killed with SIGKILL at seeded random points: every other kill
// anywhere in the writes (from the moment the journal appears to the end of a run nobody killed),
// the others within the renames (from the first renamed file on), a short stretch of them. Kills
// go on until BENCH_KILL_KILLS (default 24) have landed while the update ran. After each kill:
//   - every file must be the old or the new version (never empty, never cut), none missing;
//   - a re-run must complete the update (byte-equal to an uninterrupted run) and leave none of the
//     writer's own files, saying what it found (a lock taken over, an update put back).
// Each kill is classed by what it left: "before the renames" (the package as it was, staged files
// beside it), "during the renames" (some files new), "after the renames" (the package updated,
// the old contents not yet removed).
//
// Figures on cost: the writes of the uninterrupted run, the same change written the way the writer
// before issue 13 wrote it (removals, then each file in place, no flush), and fsync alone: 1,000
// files of 2 KiB created in a fresh directory, then flushed one by one as the writer does, against
// the same without the flushes (median of BENCH_KILL_FSYNC_RUNS, default 5, interleaved).
// Timings move with the machine's load, recorded with them.
//
// pass = every kill: no file neither old nor new, none missing; every re-run complete; at least
// BENCH_KILL_KILLS kills landed.
import { closeSync, cpSync, fsyncSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { rng } from './lib/generate-packages.mjs';

const require = createRequire(import.meta.url);
const { compare, runUpdate, snapshot, writeMovedPackage } = require('../scripts/lib/kill-update.cjs');

export const name = 'kill';

const RESOURCES = Number(process.env.BENCH_KILL_RESOURCES) || 3000;
const KILLS = Number(process.env.BENCH_KILL_KILLS) || 24;
export const description = `\`update\` SIGKILLed at random points of its writes (${RESOURCES} moved resources, one of 8 MiB): every file old or new, a re-run completes; what the safe writer and fsync cost`;
const FSYNC_RUNS = Number(process.env.BENCH_KILL_FSYNC_RUNS) || 5;
const SEED = Number(process.env.BENCH_KILL_SEED) || 13;
const JOURNAL = '.package-variant.journal';
/** The update renames its files in path order: this one first. */
const FIRST_RENAME = 'new/cm-0000.yaml';

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (value, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;

/** 1,000 files created in a fresh directory, then flushed one by one when `flush`: milliseconds. */
function writeFiles(dir, flush) {
  const bytes = Buffer.alloc(2048, 'a');
  const started = process.hrtime.bigint();
  const paths = [];
  for (let i = 0; i < 1000; i += 1) {
    const path = join(dir, `f-${i}.yaml`);
    const fd = openSync(path, 'wx');
    writeSync(fd, bytes);
    closeSync(fd);
    paths.push(path);
  }
  if (flush) {
    for (const path of paths) {
      const fd = openSync(path, 'r');
      fsyncSync(fd);
      closeSync(fd);
    }
  }
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function fsyncCost(work) {
  const withFlush = [];
  const without = [];
  for (let i = 0; i < FSYNC_RUNS; i += 1) {
    for (const [flush, into] of [[true, withFlush], [false, without]]) {
      const dir = mkdtempSync(join(work, 'fsync-'));
      into.push(writeFiles(dir, flush));
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { with_fsync_ms: round(median(withFlush)), without_fsync_ms: round(median(without)), fsync_per_file_ms: round((median(withFlush) - median(without)) / 1000, 3) };
}

/** What the writer before issue 13 did for the same change: removals, then each file written in place; milliseconds. */
function inPlaceWrite(local, before, after) {
  const started = process.hrtime.bigint();
  for (const path of before.files.keys()) if (!after.files.has(path)) rmSync(join(local, path));
  for (const [path, bytes] of after.files) {
    if (before.files.get(path)?.equals(bytes)) continue;
    mkdirSync(dirname(join(local, path)), { recursive: true });
    writeFileSync(join(local, path), bytes);
  }
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export async function run({ log, root }) {
  const main = join(root, 'dist', 'main.js');
  const work = mkdtempSync(join(os.tmpdir(), 'pv-bench-kill-'));
  try {
    log(`writing the package: ${RESOURCES} resources moved upstream, one of 8 MiB`);
    const dirs = writeMovedPackage(work, { resources: RESOURCES, large: 1, largeBytes: 8 << 20 });
    const before = snapshot(dirs.local);
    let copies = 0;
    const fresh = () => {
      copies += 1;
      const local = join(work, `run-${copies}`);
      cpSync(dirs.local, local, { recursive: true });
      return { ...dirs, local };
    };
    const calibration = fresh();
    const uninterrupted = await runUpdate(main, calibration, { watch: [JOURNAL, FIRST_RENAME] });
    if (uninterrupted.code !== 0 || uninterrupted.journalAt === undefined) throw new Error(`the uninterrupted update failed: ${uninterrupted.stderr}`);
    const after = snapshot(calibration.local);
    // Kills land anywhere in the writes, or (every other one) in the renames, a short stretch of them.
    const windows = { [JOURNAL]: uninterrupted.endedAt - uninterrupted.journalAt, [FIRST_RENAME]: uninterrupted.endedAt - uninterrupted.seen[FIRST_RENAME] };
    const changedFiles = [...after.files.keys()].filter((p) => !before.files.get(p)?.equals(after.files.get(p))).length + [...before.files.keys()].filter((p) => !after.files.has(p)).length;
    log(`uninterrupted: ${round(uninterrupted.endedAt)} ms; writing ${round(windows[JOURNAL])} ms, of which renaming and removing the old contents ${round(windows[FIRST_RENAME])} ms (${changedFiles} files written or removed)`);
    const baseline = fresh();
    const inPlaceMs = inPlaceWrite(baseline.local, before, after);
    rmSync(baseline.local, { recursive: true, force: true });

    const random = rng(SEED);
    const outcomes = { before_renames: 0, during_renames: 0, after_renames: 0 };
    const failures = [];
    let landed = 0;
    let attempts = 0;
    while (landed < KILLS && attempts < KILLS * 3) {
      attempts += 1;
      const target = fresh();
      const killOn = attempts % 2 ? JOURNAL : FIRST_RENAME;
      const killAfter = random.next() * windows[killOn];
      const killed = await runUpdate(main, target, { killOn, killAfterMs: killAfter });
      const now = snapshot(target.local);
      const where = `kill ${attempts}, ${round(killAfter)} ms after ${killOn === JOURNAL ? 'the journal' : 'the first rename'}`;
      if (killed.signal !== 'SIGKILL') {
        log(`${where}: the update had finished`);
        rmSync(target.local, { recursive: true, force: true });
        continue;
      }
      landed += 1;
      const state = compare(now, before, after);
      const phase = state.equalsBefore ? 'before_renames' : state.equalsAfter ? 'after_renames' : 'during_renames';
      outcomes[phase] += 1;
      if (state.neither.length || state.missing.length) failures.push(`${where}: neither old nor new: ${state.neither.slice(0, 3).join(', ')}; missing: ${state.missing.slice(0, 3).join(', ')}`);
      const rerun = await runUpdate(main, target);
      const final = snapshot(target.local);
      const complete = rerun.code === 0 && compare(final, before, after).equalsAfter && final.reserved.length === 0;
      const reported = now.reserved.length === 0 || /an earlier update of .* was interrupted/.test(rerun.stderr);
      if (!complete || !reported) failures.push(`${where}: the re-run ${complete ? 'did not say what it found' : `did not complete the update (exit ${rerun.code}): ${rerun.stderr.trim().split('\n').pop()}`}`);
      log(`${where}: ${phase.replace('_', ' ')}, ${state.updated} files new, ${state.old} old, ${now.reserved.length} of the writer's own; the re-run ${complete && reported ? 'completed the update' : 'FAILED'}`);
      rmSync(target.local, { recursive: true, force: true });
    }

    log('measuring fsync on 1,000 files');
    const fsync = fsyncCost(work);
    const load = os.loadavg()[0];
    return {
      pass: failures.length === 0 && landed >= KILLS,
      target: `${KILLS} kills during the writes: every file old or new, none missing; every re-run completes the update`,
      figures: {
        resources: RESOURCES,
        kills_landed: landed,
        kills_missed: attempts - landed,
        outcomes,
        files_neither_old_nor_new: failures.filter((f) => f.includes('neither')).length,
        reruns_incomplete: failures.filter((f) => f.includes('re-run')).length,
        uninterrupted_ms: round(uninterrupted.endedAt),
        files_written_or_removed: changedFiles,
        write_ms: round(windows[JOURNAL]),
        write_ms_in_place_before_issue_13: round(inPlaceMs),
        fsync_1000_files: fsync,
        info_load_average: round(load, 2),
      },
      notes: [...failures, ...(load > os.cpus().length ? [`load average ${round(load, 2)} on ${os.cpus().length} CPUs: the timings are inflated`] : [])],
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
