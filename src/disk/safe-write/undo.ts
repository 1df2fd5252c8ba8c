/**
 * The two ways out of a journal, whoever takes them (the writer when an operation fails, the next
 * run when the process died): undo puts every old file back and removes what the update added;
 * finish removes the old contents of an update that is complete. Both look at what is on disk
 * and do only what is left to do, so either can be run again after it was itself interrupted.
 * Neither goes through a symbolic link: every directory on the way to a name must be a directory.
 */
import { join } from 'node:path';
import type { FileOps } from './file-ops';
import type { Journal } from './journal';
import { describeError } from './describe-error';

/**
 * Names below `root`, each given once no directory on the way is seen to be a symbolic link; a
 * directory seen once is not looked at again.
 */
function packagePaths(ops: FileOps, root: string): (path: string) => string {
  const seen = new Set<string>();
  return (path) => {
    const names = path.split('/');
    for (let n = 1; n < names.length; n += 1) {
      const dir = names.slice(0, n).join('/');
      if (seen.has(dir)) continue;
      const kind = ops.kind(join(root, dir));
      if (kind === 'link') throw new Error(`${dir} is a symbolic link, which undo never follows`);
      // Nothing below a name that is missing or not a directory exists to act on.
      if (kind === 'dir') seen.add(dir);
    }
    return join(root, path);
  };
}

export interface UndoReport {
  /** Files put back as they were. */
  readonly restored: number;
  /** Files the update had created, removed again. */
  readonly removed: number;
  /** What could not be undone, one phrase each. */
  readonly problems: string[];
}

function attempt(problems: string[], what: string, step: () => void): boolean {
  try {
    step();
    return true;
  } catch (error) {
    problems.push(`${what}: ${describeError(error)}`);
    return false;
  }
}

/** Puts the package back as it was before the journal's update; `journalFile` is removed once that succeeded. */
export function undo(ops: FileOps, root: string, journal: Journal, journalFile: string): UndoReport {
  const at = packagePaths(ops, root);
  const problems: string[] = [];
  let restored = 0;
  let removed = 0;
  for (const entry of [...journal.entries].reverse()) {
    attempt(problems, `removing the new ${entry.path}`, () => {
      if (entry.staged && ops.kind(at(entry.staged)) !== 'missing') ops.unlink(at(entry.staged));
    });
    if (entry.kept) {
      attempt(problems, `putting back ${entry.path}`, () => {
        const kept = at(entry.kept!);
        const target = at(entry.path);
        if (ops.kind(kept) === 'missing') return;
        // A file not replaced yet is the kept one under a second name.
        if (entry.op === 'write' && ops.kind(target) === 'file' && ops.sameFile(kept, target)) return ops.unlink(kept);
        ops.rename(kept, target);
        restored += 1;
      });
    } else if (entry.op === 'write') {
      attempt(problems, `removing ${entry.path}, which the update created`, () => {
        const target = at(entry.path);
        if (ops.kind(target) !== 'file') return;
        ops.unlink(target);
        removed += 1;
      });
    }
  }
  for (const dir of [...journal.createDirs].reverse()) {
    attempt(problems, `removing the directory ${dir}, which the update created`, () => {
      if (ops.kind(at(dir)) === 'dir') ops.rmdir(at(dir));
    });
  }
  if (problems.length === 0) attempt(problems, 'removing the journal', () => ops.unlink(journalFile));
  return { restored, removed, problems };
}

/** Removes what a complete update kept aside, and the directories it emptied; then `markerFile`. */
export function finish(ops: FileOps, root: string, journal: Journal, markerFile: string): string[] {
  const at = packagePaths(ops, root);
  const problems: string[] = [];
  for (const entry of journal.entries) {
    for (const leftover of [entry.kept, entry.staged]) {
      attempt(problems, `removing the old ${entry.path}`, () => {
        if (leftover && ops.kind(at(leftover)) !== 'missing') ops.unlink(at(leftover));
      });
    }
  }
  for (const dir of journal.removeDirs) {
    attempt(problems, `removing the emptied directory ${dir}`, () => {
      if (ops.kind(at(dir)) !== 'dir') return;
      try {
        ops.rmdir(at(dir));
      } catch (error) {
        // Only an empty directory goes (kpt's rule); one that holds something stays.
        if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY' && (error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    });
  }
  if (problems.length === 0) attempt(problems, 'removing the journal', () => ops.unlink(markerFile));
  return problems;
}
