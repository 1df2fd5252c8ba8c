/**
 * One update of a package at a time: a lock file at the package root, created exclusively, naming
 * the process that holds it. A second update stops and says who holds it. A lock whose process is
 * gone (a run killed on this machine) is taken over; one from another machine cannot be checked and
 * is left for the user to remove, as the message says.
 */
import { constants, linkSync, lstatSync, openSync, closeSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describeError } from './describe-error';
import { LOCK_FILE } from './reserved';

export class LockError extends Error {}

interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly started: string;
}

export interface PackageLock {
  /** What taking the lock found worth saying (a stale lock taken over). */
  readonly notices: readonly string[];
  release(): void;
}

/** A lock file that names no holder is left alone this long, in case its writer is not this program. */
const CREATION_GRACE_MS = 10_000;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(file: string): string | undefined {
  try {
    const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      return readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function parseHolder(text: string): Holder | undefined {
  try {
    const value = JSON.parse(text) as Partial<Holder>;
    if (typeof value.pid === 'number' && typeof value.host === 'string' && typeof value.started === 'string') return value as Holder;
  } catch {
    // Not a holder: a lock file someone else wrote or damaged.
  }
  return undefined;
}

/**
 * Creates the lock whole: its text goes to a file of this process first, which is then linked to the
 * lock's name (failing if it exists), so no other run ever reads a lock half written.
 */
function tryCreate(file: string, text: string): boolean {
  const own = `${file}-new-${process.pid}`;
  try {
    const fd = openSync(own, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
    linkSync(own, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new LockError(`could not create the lock ${file}: ${describeError(error)}`);
  } finally {
    try {
      unlinkSync(own);
    } catch {
      // Never created: nothing to remove.
    }
  }
}

/** Whether the lock's holder is certainly gone: a process of this machine that no longer runs, or a lock naming none for a while. */
function isStale(file: string, text: string, holder: Holder | undefined): boolean {
  if (holder) return holder.host === hostname() && !isRunning(holder.pid);
  try {
    return Date.now() - lstatSync(file).mtimeMs > CREATION_GRACE_MS;
  } catch {
    return text === '';
  }
}

/** Moves a stale lock out of the way, unless another run took it over first (then it is put back). */
function takeOver(file: string, text: string): boolean {
  const aside = `${file}-stale-${process.pid}`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
  if (readLock(aside) === text) {
    unlinkSync(aside);
    return true;
  }
  try {
    linkSync(aside, file);
  } finally {
    unlinkSync(aside);
  }
  return false;
}

function describe(holder: Holder | undefined): string {
  return holder ? `pid ${holder.pid} on ${holder.host}, since ${holder.started}` : 'its lock file names no process';
}

export function lockPackage(root: string): PackageLock {
  const file = join(root, LOCK_FILE);
  const mine = `${JSON.stringify({ pid: process.pid, host: hostname(), started: new Date().toISOString() })}\n`;
  const notices: string[] = [];
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (tryCreate(file, mine)) {
      return {
        notices,
        release: () => {
          if (readLock(file) === mine) unlinkSync(file);
        },
      };
    }
    const text = readLock(file);
    if (text === undefined) continue;
    const holder = parseHolder(text);
    if (!isStale(file, text, holder)) {
      throw new LockError(
        `another package-variant update of ${root} is running (${describe(holder)}): wait for it to finish. ` +
          `If none is running (a run killed on another machine, or its process number now used by another program), remove ${file}`,
      );
    }
    if (takeOver(file, text)) notices.push(`took over the lock of an earlier update that is no longer running (${describe(holder)})`);
  }
  throw new LockError(`could not take the lock ${file}: other updates of ${root} keep taking it`);
}

/** For a run that writes nothing (a dry run): stops where an update holds the lock now, takes nothing. */
export function checkNotLocked(root: string): void {
  const file = join(root, LOCK_FILE);
  const text = readLock(file);
  if (text === undefined) return;
  const holder = parseHolder(text);
  if (!isStale(file, text, holder)) throw new LockError(`an update of ${root} is running (${describe(holder)}): what it would change cannot be told until it is done`);
}
