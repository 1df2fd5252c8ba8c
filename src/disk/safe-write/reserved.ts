/**
 * The names the update gives its own files inside a package: the lock and the journal at its root,
 * and, in a directory of the run's own at the root (or beside a file that lies on another file
 * system), the new content before it is renamed into place and the old content kept until the
 * update is complete. Readers skip them: they are never part of a package (krm/package-paths.ts
 * refuses them, in any letter case, wherever a path comes from).
 */
import { joinPath } from '../../package/scopes';

const PREFIX = '.package-variant';

export const LOCK_FILE = `${PREFIX}.lock`;
/** An update under way: undone by the next run if the process died. */
export const JOURNAL_FILE = `${PREFIX}.journal`;
/** An update complete but for removing the old contents: finished by the next run. */
export const COMMITTED_FILE = `${PREFIX}.committed`;
/** The journal being written, before it is renamed to JOURNAL_FILE. */
export const JOURNAL_DRAFT = `${PREFIX}.journal-draft`;

/**
 * The directory at the package root where run `run` stages new contents and keeps old ones: a
 * file is created there in a directory of its own instead of one that may hold a thousand
 * entries, where creating and removing names costs several times more.
 */
export function stagingDir(run: string): string {
  return `${PREFIX}-${run}`;
}

/** Where the new content of the `index`th file of run `run` waits in the run's staging directory. */
export function stagedInRunDir(run: string, index: number): string {
  return `${stagingDir(run)}/${index}.new`;
}

/** Where the old content of the `index`th file of run `run` is kept in the run's staging directory. */
export function keptInRunDir(run: string, index: number): string {
  return `${stagingDir(run)}/${index}.old`;
}

/** Where the new content of the `index`th file of run `run` waits, beside it (`dir` relative to the package). */
export function stagedPath(dir: string, run: string, index: number): string {
  return joinPath(dir, `${PREFIX}-${run}-${index}.new`);
}

/** Where the old content of the `index`th file of run `run` is kept until the update is complete. */
export function keptPath(dir: string, run: string, index: number): string {
  return joinPath(dir, `${PREFIX}-${run}-${index}.old`);
}
