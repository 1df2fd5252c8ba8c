/**
 * The journal of an update: every name it will create, replace, keep aside or remove, written to
 * the package root and flushed before the first change. While it exists (JOURNAL_FILE) the update
 * is not complete, and whoever finds it after the process died undoes the update from it
 * (undo.ts); once every file is in place it is renamed to COMMITTED_FILE, and the next run finishes
 * removing the old contents. Paths are relative to the package, with `/`.
 */
import { join } from 'node:path';
import type { FileOps } from './file-ops';
import { JOURNAL_DRAFT, JOURNAL_FILE } from './reserved';

/** One file of the update, in the order the update renames them. */
export interface JournalEntry {
  readonly path: string;
  /** `write`: `staged` is renamed to `path`; `remove`: `path` is renamed to `kept`. */
  readonly op: 'write' | 'remove';
  /** Where the new content waits (writes). */
  readonly staged?: string;
  /** Where the old content is kept until the update is complete (a write over a file, a removal). */
  readonly kept?: string;
}

export interface Journal {
  readonly version: 1;
  /** Names this run's staged and kept files. */
  readonly run: string;
  readonly pid: number;
  readonly host: string;
  readonly started: string;
  /** Directories this run creates, parents first. */
  readonly createDirs: readonly string[];
  /** Directories to remove once the update is complete and they are empty, deepest first. */
  readonly removeDirs: readonly string[];
  readonly entries: readonly JournalEntry[];
}

export class JournalError extends Error {}

/** Writes the journal whole (a draft, flushed, then renamed) and flushes the package directory. */
export function writeJournal(ops: FileOps, root: string, journal: Journal): void {
  const draft = join(root, JOURNAL_DRAFT);
  ops.create(draft, Buffer.from(`${JSON.stringify(journal, null, 1)}\n`, 'utf8'), 0o644);
  ops.sync(draft);
  ops.rename(draft, join(root, JOURNAL_FILE));
  ops.sync(root);
}

const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');

const isEntry = (value: unknown): value is JournalEntry => {
  const e = value as Record<string, unknown>;
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof e.path === 'string' &&
    (e.op === 'write' || e.op === 'remove') &&
    (e.staged === undefined || typeof e.staged === 'string') &&
    (e.kept === undefined || typeof e.kept === 'string')
  );
};

/** Every path a journal names stays inside the package: no absolute path, no `..`, nothing empty. */
const isInside = (path: string) => path !== '' && !path.startsWith('/') && !path.split('/').some((part) => part === '' || part === '.' || part === '..');

export function parseJournal(text: string, where: string): Journal {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new JournalError(`${where} cannot be read: ${(error as Error).message}`);
  }
  const entries = value?.entries;
  if (
    value?.version !== 1 ||
    typeof value.run !== 'string' ||
    typeof value.pid !== 'number' ||
    !isStringList(value.createDirs) ||
    !isStringList(value.removeDirs) ||
    !Array.isArray(entries) ||
    !entries.every(isEntry)
  ) {
    throw new JournalError(`${where} is not a journal this version of package-variant wrote`);
  }
  const journal = value as unknown as Journal;
  const paths = [...journal.createDirs, ...journal.removeDirs, ...journal.entries.flatMap((e) => [e.path, e.staged ?? 'x', e.kept ?? 'x'])];
  if (!paths.every(isInside)) throw new JournalError(`${where} names a path outside the package`);
  return journal;
}
