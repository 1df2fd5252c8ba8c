/**
 * What an earlier update left when its process died (SIGKILL, power loss), dealt with before a new
 * run reads the package: a journal still open is undone, so the package is again as it was before
 * that update; a journal marked complete is finished. Runs under the package's lock. Only a journal
 * this user's package-variant wrote for this package is acted on; any other (one that came with the
 * package's content) is ignored with a notice, never replayed, and replaced by the next update's.
 */
import { join } from 'node:path';
import { describeError } from './describe-error';
import type { FileOps } from './file-ops';
import { journalAt, JournalError, type Journal } from './journal';
import { COMMITTED_FILE, JOURNAL_DRAFT, JOURNAL_FILE } from './reserved';
import { finish, undo } from './undo';

/** The earlier update could not be undone or finished: the package needs the user. */
export class RecoveryError extends Error {}

/** The package's own journal at `file`, if there is one; a foreign one is reported to `notices` and left alone. */
function ownJournal(ops: FileOps, root: string, file: string, notices: string[]): Journal | undefined {
  const shown = join(root, file);
  let reading;
  try {
    reading = journalAt(ops, root, file);
  } catch (error) {
    if (!(error instanceof JournalError)) throw error;
    throw new RecoveryError(
      `${error.message}. An earlier update of the package was interrupted and may have left it partly updated: ` +
        `restore the package (git checkout and git clean, for instance), then remove ${shown}`,
    );
  }
  if (reading && 'foreign' in reading) {
    notices.push(`ignored ${shown}: ${reading.foreign}, so it came with the package's content and is never replayed (the next update that writes replaces it)`);
    return undefined;
  }
  return reading?.journal;
}

const who = (j: Journal) => `pid ${j.pid} on ${j.host}, started ${j.started}`;

/** Undoes or finishes an interrupted update; what was done, one sentence each. */
export function recoverInterrupted(ops: FileOps, root: string): string[] {
  try {
    return recover(ops, root);
  } catch (error) {
    if (error instanceof RecoveryError) throw error;
    throw new RecoveryError(`could not look for an interrupted earlier update of ${root}: ${describeError(error)}; nothing was written`);
  }
}

function recover(ops: FileOps, root: string): string[] {
  const notices: string[] = [];
  const draft = join(root, JOURNAL_DRAFT);
  // A draft never became the journal: its update changed nothing.
  if (ops.kind(draft) !== 'missing') ops.unlink(draft);
  const committedFile = join(root, COMMITTED_FILE);
  const committed = ownJournal(ops, root, COMMITTED_FILE, notices);
  if (committed) {
    const problems = finish(ops, root, committed, committedFile);
    if (problems.length) throw new RecoveryError(`an earlier update of ${root} (${who(committed)}) was complete, but its old contents could not be removed: ${problems.join('; ')}`);
    notices.push(`an earlier update of ${root} (${who(committed)}) was interrupted once complete; the old contents it kept are removed`);
  }
  const journalFile = join(root, JOURNAL_FILE);
  const open = ownJournal(ops, root, JOURNAL_FILE, notices);
  if (open) {
    const undone = undo(ops, root, open, journalFile);
    if (undone.problems.length) {
      throw new RecoveryError(
        `an earlier update of ${root} (${who(open)}) was interrupted, and putting the package back failed: ${undone.problems.join('; ')}. ` +
          `The package is partly updated; ${journalFile} still records that update: fix the cause and run package-variant update again`,
      );
    }
    const files = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
    notices.push(`an earlier update of ${root} (${who(open)}) was interrupted; the package is put back as it was before it (${files(undone.restored, 'file')} restored, ${files(undone.removed, 'new file')} removed)`);
  }
  return notices;
}
