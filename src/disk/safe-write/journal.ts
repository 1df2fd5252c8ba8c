/**
 * The journal of an update: every name it will create, replace, keep aside or remove, written to
 * the package root and flushed before the first change. While it exists (JOURNAL_FILE) the update
 * is not complete, and whoever finds it after the process died undoes the update from it
 * (undo.ts); once every file is in place it is renamed to COMMITTED_FILE, and the next run finishes
 * removing the old contents. Paths are relative to the package, with `/`.
 *
 * A journal is sealed (journal-seal.ts) and names the package directory it was made for: one
 * without this user's seal, or made for another directory, came with the package's content and is
 * never acted on (recovery.ts ignores it, saying so).
 */
import { join } from 'node:path';
import type { FileOps } from './file-ops';
import { isSealed, sealOf } from './journal-seal';
import { packageInode } from './package-identity';
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
  readonly version: 2;
  /** The inode of the package directory (package-identity.ts). */
  readonly package: string;
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
  const sealed = { ...journal, seal: sealOf(JSON.stringify(journal)) };
  ops.create(draft, Buffer.from(`${JSON.stringify(sealed, null, 1)}\n`, 'utf8'), 0o644);
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

/** A journal this program wrote for the package, or why the file is not one. */
export type JournalReading = { readonly journal: Journal } | { readonly foreign: string };

/**
 * Reads a journal found in the package whose directory has inode `inode`. Throws a JournalError
 * only for one that is sealed and made for this package, yet not of a form this version reads.
 */
export function readJournal(text: string, where: string, inode: string): JournalReading {
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { foreign: 'it is not a journal package-variant wrote' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { foreign: 'it is not a journal package-variant wrote' };
  const { seal, ...body } = value;
  if (!isSealed(JSON.stringify(body), seal)) return { foreign: "it does not carry this user's package-variant seal" };
  if (body.package !== inode) return { foreign: 'it was made for another package directory' };
  const entries = body.entries;
  if (
    body.version !== 2 ||
    typeof body.run !== 'string' ||
    typeof body.pid !== 'number' ||
    !isStringList(body.createDirs) ||
    !isStringList(body.removeDirs) ||
    !Array.isArray(entries) ||
    !entries.every(isEntry)
  ) {
    throw new JournalError(`${where} is not a journal this version of package-variant wrote`);
  }
  const journal = body as unknown as Journal;
  const paths = [...journal.createDirs, ...journal.removeDirs, ...journal.entries.flatMap((e) => [e.path, e.staged ?? 'x', e.kept ?? 'x'])];
  if (!paths.every(isInside)) throw new JournalError(`${where} names a path outside the package`);
  return { journal };
}

/** The journal or marker `file` (JOURNAL_FILE, COMMITTED_FILE) at the package root as read, or undefined when there is none. */
export function journalAt(ops: FileOps, root: string, file: string): JournalReading | undefined {
  const bytes = ops.read(join(root, file));
  return bytes === undefined ? undefined : readJournal(bytes.toString('utf8'), join(root, file), packageInode(root));
}
