/**
 * An update of a package on disk as one step, around the part that computes it (directory or git
 * mode): take the package's lock, deal with what an interrupted earlier update left, compute the
 * plan from the package as it is now, write it safely (src/disk/plan-writer.ts), release the lock.
 * A dry run takes no lock and writes nothing: it only computes the plan.
 */
import { join } from 'node:path';
import { assertDirectory } from '../disk/disk-tree';
import { executePlan } from '../disk/plan-writer';
import { diskOps, type FileOps } from '../disk/safe-write/file-ops';
import { checkNotLocked, lockPackage } from '../disk/safe-write/lock';
import { journalAt } from '../disk/safe-write/journal';
import { RecoveryError, recoverInterrupted } from '../disk/safe-write/recovery';
import { COMMITTED_FILE, JOURNAL_FILE } from '../disk/safe-write/reserved';
import type { UpdatePlan } from '../disk/plan';
import type { Result } from '../krm/results';

export interface UpdateOutcome {
  readonly results: Result[];
  /** What was written (what would be, in a dry run); undefined when the update failed and nothing was. */
  readonly plan?: UpdatePlan;
  /** Git mode: every package already recorded the version asked for, and the plan is empty. */
  readonly upToDate?: { readonly ref: string; readonly commit: string };
}

export interface WriteOptions {
  /** Compute the plan and write nothing. */
  readonly dryRun?: boolean;
  /** The writer's file operations (tests make them fail). */
  readonly ops?: FileOps;
  /** Told, as it happens, what the run does besides the update (a stale lock taken over, an interrupted update undone) or leaves to the next run. */
  readonly notify?: (notice: string) => void;
}

interface LockedRun {
  /** Writes the outcome's plan (none in a dry run); the outcome. */
  write(outcome: UpdateOutcome): UpdateOutcome;
  release(): void;
}

/** The lock taken and an interrupted update dealt with; in a dry run, only checked that neither is in the way. */
function begin(root: string, options: WriteOptions): LockedRun {
  assertDirectory(root);
  const ops = options.ops ?? diskOps;
  const notify = options.notify ?? (() => undefined);
  if (options.dryRun) {
    checkNotLocked(root);
    for (const file of [JOURNAL_FILE, COMMITTED_FILE]) {
      const found = journalAt(ops, root, file);
      if (found && 'journal' in found) throw new RecoveryError(`an interrupted update left ${join(root, file)}: run package-variant update without --dry-run to deal with it first`);
      if (found) notify(`ignored ${join(root, file)}: ${found.foreign}, so it came with the package's content and is never replayed`);
    }
    return { write: (outcome) => outcome, release: () => undefined };
  }
  const lock = lockPackage(root);
  try {
    lock.notices.forEach(notify);
    recoverInterrupted(ops, root).forEach(notify);
  } catch (error) {
    lock.release();
    throw error;
  }
  return {
    write: (outcome) => {
      if (!outcome.plan) return outcome;
      for (const leftover of executePlan(outcome.plan, ops).warnings) notify(`the update is complete, but ${leftover}; the next update removes what is left`);
      return outcome;
    },
    release: () => lock.release(),
  };
}

export function runLockedUpdate(root: string, options: WriteOptions, compute: () => UpdateOutcome): UpdateOutcome {
  const run = begin(root, options);
  try {
    return run.write(compute());
  } finally {
    run.release();
  }
}

/** The same around a computation that waits (git mode runs git processes). */
export async function runLockedUpdateAsync(root: string, options: WriteOptions, compute: () => Promise<UpdateOutcome>): Promise<UpdateOutcome> {
  const run = begin(root, options);
  try {
    return run.write(await compute());
  } finally {
    run.release();
  }
}
