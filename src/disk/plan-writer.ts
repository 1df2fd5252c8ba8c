/**
 * Carries out an update plan on disk: the one module of an update that writes, and it writes so that
 * the package is never left half-written (README, Safety):
 * 1. check the disk against the plan (safe-write/preflight.ts): a conflict writes nothing;
 * 2. write the journal (safe-write/journal.ts), flushed;
 * 3. stage: create the new directories, write each new content to a file in the run's staging
 *    directory at the package root (beside its target where that lies on another file system: a
 *    rename never crosses one), flush them all, then give each file about to be replaced a second
 *    name there that keeps its old content (a hard link), and flush the directories;
 * 4. commit: rename each staged file over its target and each removed file aside, the Kptfiles
 *    last (the root's at the very end, so that it claims the new version only once everything else
 *    is in place); flush the directories; rename the journal to mark the update complete;
 * 5. finish: remove the old contents and the directories the update emptied.
 * A failure in 2 or 3 undoes the staging: nothing was written. A failure in 4 puts back every file
 * already replaced (safe-write/undo.ts). A process killed anywhere leaves each file old or new, and
 * the journal; the next run undoes the update from it (safe-write/recovery.ts).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { PlannedWrite, UpdatePlan } from './plan';
import { dirOf, KPTFILE, ROOT } from '../package/scopes';
import { describeError } from './safe-write/describe-error';
import { diskOps, type FileOps } from './safe-write/file-ops';
import { writeJournal, type Journal, type JournalEntry } from './safe-write/journal';
import { packageInode } from './safe-write/package-identity';
import { checkPlan, PlanConflict } from './safe-write/preflight';
import { COMMITTED_FILE, JOURNAL_DRAFT, JOURNAL_FILE, keptInRunDir, keptPath, stagedInRunDir, stagedPath, stagingDir } from './safe-write/reserved';
import { finish, undo } from './safe-write/undo';

/** The package is as it was (`unchanged`), or partly updated with its journal kept (`partial`). */
export type PackageState = 'unchanged' | 'partial';

/** A failed write; the message says what failed and in which state the package is. */
export class WriteError extends Error {
  constructor(
    message: string,
    readonly state: PackageState,
  ) {
    super(message);
  }
}

export interface WriteReport {
  /** The update is complete, but these leftovers could not be removed (the next run removes them). */
  readonly warnings: string[];
}

const NOTHING_WRITTEN = 'Nothing was written: the package is as it was.';

/** An operation that failed, with what it was doing, in the package's terms. */
class StepFailure extends Error {
  constructor(
    readonly what: string,
    readonly cause: unknown,
  ) {
    super(`${what}: ${describeError(cause)}`);
  }
}

function step(what: string, operation: () => void): void {
  try {
    operation();
  } catch (error) {
    throw new StepFailure(what, error);
  }
}

const depth = (path: string) => path.split('/').length;
const isKptfile = (path: string) => path === KPTFILE || path.endsWith(`/${KPTFILE}`);

/**
 * Which directories of the package lie on its root's file system, where files are staged in the
 * run's own directory; `createDirs` do not exist yet and lie where their nearest existing ancestor does.
 */
function onRootFileSystem(ops: FileOps, root: string, createDirs: readonly string[]): (dir: string) => boolean {
  const device = ops.device;
  if (!device) return () => true;
  const rootDevice = device(root);
  const toCreate = new Set(createDirs);
  const known = new Map<string, boolean>();
  return (dir) => {
    let existing = dir;
    while (toCreate.has(existing)) existing = dirOf(existing);
    if (!known.has(existing)) known.set(existing, existing === ROOT || device(join(root, existing)) === rootDevice);
    return known.get(existing)!;
  };
}

/** The order of the renames: files, removals, then Kptfiles deepest first, the root's last. */
function journalFor(plan: UpdatePlan, createDirs: readonly string[], existing: ReadonlySet<string>, together: (dir: string) => boolean): Journal {
  const run = randomBytes(4).toString('hex');
  const entries: JournalEntry[] = [];
  const add = (path: string, op: 'write' | 'remove') => {
    const index = entries.length;
    const dir = dirOf(path);
    const inRunDir = together(dir);
    const kept = existing.has(path) ? (inRunDir ? keptInRunDir(run, index) : keptPath(dir, run, index)) : undefined;
    const staged = op === 'write' ? (inRunDir ? stagedInRunDir(run, index) : stagedPath(dir, run, index)) : undefined;
    entries.push({ path, op, ...(staged ? { staged } : {}), ...(kept ? { kept } : {}) });
  };
  for (const w of plan.writes) if (!isKptfile(w.path)) add(w.path, 'write');
  for (const path of plan.removes) if (existing.has(path)) add(path, 'remove');
  const kptfiles = plan.writes.filter((w) => isKptfile(w.path)).map((w) => w.path);
  for (const path of kptfiles.sort((a, b) => depth(b) - depth(a) || (a < b ? -1 : 1))) add(path, 'write');
  const runDir = stagingDir(run);
  const usesRunDir = entries.some((e) => [e.staged, e.kept].some((p) => p !== undefined && dirOf(p) === runDir));
  // Made first and removed last: undo and finish take it away with the directories the update made or emptied.
  return {
    version: 2,
    package: packageInode(plan.root),
    run,
    pid: process.pid,
    host: hostname(),
    started: new Date().toISOString(),
    createDirs: usesRunDir ? [runDir, ...createDirs] : createDirs,
    removeDirs: usesRunDir ? [...plan.removeDirs, runDir] : plan.removeDirs,
    entries,
  };
}

/** The directories whose names a step changes: where files are staged or kept, and, at commit, their targets too. */
const stagingDirsOf = (entries: readonly JournalEntry[]) => entries.flatMap((e) => [e.staged, e.kept].filter((p): p is string => p !== undefined).map(dirOf));

/** Hard links keep the old content at no cost; where the file system has none, a copy does. */
function keepAside(ops: FileOps, file: string, kept: string): void {
  try {
    ops.link(file, kept);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV' && code !== 'EMLINK' && code !== 'ENOSYS') throw error;
    ops.copy(file, kept);
  }
}

function syncDirs(ops: FileOps, root: string, dirs: Iterable<string>, what: string): void {
  for (const dir of [...new Set(dirs)].sort()) step(`${what} (${dir === ROOT ? 'the package directory' : dir})`, () => ops.sync(join(root, dir)));
}

function stage(ops: FileOps, plan: UpdatePlan, journal: Journal): void {
  const at = (path: string) => join(plan.root, path);
  const writes = new Map<string, PlannedWrite>(plan.writes.map((w) => [w.path, w]));
  for (const dir of journal.createDirs) step(`could not create the directory ${dir}`, () => ops.mkdir(at(dir)));
  const staged = journal.entries.filter((e) => e.staged);
  for (const e of staged) {
    const write = writes.get(e.path)!;
    step(`could not write ${e.path}`, () => ops.create(at(e.staged!), write.bytes, write.mode));
  }
  // One pass of flushes after all the writes: the disk then takes them in fewer, larger commits.
  for (const e of staged) step(`could not flush ${e.path} to the disk`, () => ops.sync(at(e.staged!)));
  for (const e of journal.entries) if (e.op === 'write' && e.kept) step(`could not keep the old ${e.path} aside`, () => keepAside(ops, at(e.path), at(e.kept!)));
  // The kept names must be on the disk before any rename replaces what they keep.
  syncDirs(ops, plan.root, [...stagingDirsOf(journal.entries), ...journal.createDirs.map(dirOf)], 'could not flush a directory to the disk');
}

function commit(ops: FileOps, plan: UpdatePlan, journal: Journal): void {
  const at = (path: string) => join(plan.root, path);
  for (const e of journal.entries) {
    if (e.op === 'write') step(`could not replace ${e.path}`, () => ops.rename(at(e.staged!), at(e.path)));
    else step(`could not remove ${e.path}`, () => ops.rename(at(e.path), at(e.kept!)));
  }
  syncDirs(ops, plan.root, [...journal.entries.map((e) => dirOf(e.path)), ...stagingDirsOf(journal.entries)], 'could not flush a directory to the disk');
  step('could not mark the update complete', () => ops.rename(at(JOURNAL_FILE), at(COMMITTED_FILE)));
}

function failureMessage(error: unknown): string {
  return error instanceof StepFailure ? error.message : `internal error while writing: ${describeError(error)}`;
}

export function executePlan(plan: UpdatePlan, ops: FileOps = diskOps): WriteReport {
  if (plan.writes.length === 0 && plan.removes.length === 0 && plan.createDirs.length === 0 && plan.removeDirs.length === 0) return { warnings: [] };
  let journal: Journal;
  try {
    const checked = checkPlan(plan, ops);
    journal = journalFor(plan, checked.createDirs, checked.existing, onRootFileSystem(ops, plan.root, checked.createDirs));
  } catch (error) {
    if (error instanceof PlanConflict) throw new WriteError(`${error.message}.\n${NOTHING_WRITTEN}`, 'unchanged');
    throw new WriteError(`could not look at the package: ${describeError(error)}.\n${NOTHING_WRITTEN}`, 'unchanged');
  }
  const journalFile = join(plan.root, JOURNAL_FILE);
  try {
    writeJournal(ops, plan.root, journal);
  } catch (error) {
    for (const file of [JOURNAL_DRAFT, JOURNAL_FILE]) {
      try {
        if (ops.kind(join(plan.root, file)) !== 'missing') ops.unlink(join(plan.root, file));
      } catch {
        // The next run removes a draft or journal that holds no change.
      }
    }
    throw new WriteError(`could not write the update's journal (${JOURNAL_FILE}): ${describeError(error)}.\n${NOTHING_WRITTEN}`, 'unchanged');
  }
  try {
    stage(ops, plan, journal);
  } catch (error) {
    const undone = undo(ops, plan.root, journal, journalFile);
    const leftovers = undone.problems.length ? `\nSome of the update's own files could not be removed (${undone.problems.join('; ')}); the next update removes them.` : '';
    throw new WriteError(`${failureMessage(error)}.\n${NOTHING_WRITTEN}${leftovers}`, 'unchanged');
  }
  try {
    commit(ops, plan, journal);
  } catch (error) {
    const undone = undo(ops, plan.root, journal, journalFile);
    if (undone.problems.length === 0) {
      const back = undone.restored + undone.removed;
      const putBack = back === 1 ? 'The file already replaced was put back' : `The ${back} files already replaced were put back`;
      throw new WriteError(`${failureMessage(error)}.\n${back ? `${putBack}: the package is as it was.` : NOTHING_WRITTEN}`, 'unchanged');
    }
    throw new WriteError(
      `${failureMessage(error)}.\nPutting the package back failed too (${undone.problems.join('; ')}): the package is partly updated. ` +
        `${JOURNAL_FILE} records the update: fix the cause, then run package-variant update on the package again, which first puts it back as it was.`,
      'partial',
    );
  }
  const warnings: string[] = [];
  try {
    // The mark must be on the disk before the old contents go.
    ops.sync(plan.root);
    warnings.push(...finish(ops, plan.root, journal, join(plan.root, COMMITTED_FILE)));
  } catch (error) {
    warnings.push(`flushing the package directory: ${describeError(error)}`);
  }
  return { warnings };
}
