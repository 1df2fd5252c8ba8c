/**
 * One update of a package tree at a time: a lock file at the package root, created exclusively,
 * naming the process that holds it and the package it was made for (its directory's inode). A
 * second update stops and says who holds it, and so does an update of a package inside one being
 * updated, or of one that holds a package being updated: each takes its own lock first, then looks
 * for another's above and below it, so of two started together at least one sees the other. A lock
 * whose process is gone (a run killed on this machine) is taken over; one from another machine
 * cannot be checked and is left for the user to remove, as the message says. A lock file made for
 * another directory came with the package's content (kpt pkg get copies it): it is never obeyed,
 * and the package's own is put in its place with a notice.
 */
import { constants, linkSync, lstatSync, openSync, closeSync, readdirSync, readFileSync, realpathSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { isGitName } from '../../krm/package-paths';
import { describeError } from './describe-error';
import { packageInode } from './package-identity';
import { LOCK_FILE } from './reserved';

export class LockError extends Error {}

interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly started: string;
  /** The inode of the package directory the lock was made for. */
  readonly package?: string;
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
    if (typeof value.pid === 'number' && typeof value.host === 'string' && typeof value.started === 'string' && (value.package === undefined || typeof value.package === 'string')) return value as Holder;
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

/** Whether the lock was made for the directory it lies in; a lock file that names no holder may be one being written. */
function madeFor(holder: Holder | undefined, inode: string): boolean {
  return holder === undefined || holder.package === inode;
}

/** An update running on the package at `dir` (its lock, made for it, not stale), described; else undefined. */
function runningAt(dir: string): string | undefined {
  const file = join(dir, LOCK_FILE);
  let text: string | undefined;
  try {
    text = readLock(file);
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  const holder = parseHolder(text);
  if (!madeFor(holder, packageInode(dir)) || isStale(file, text, holder)) return undefined;
  return describe(holder);
}

/** The directories below `root` that hold a lock file, found without following a link or entering `.git`. */
function lockedBelow(root: string): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (dir !== root && entry.name === LOCK_FILE) found.push(dir);
      else if (entry.isDirectory() && !isGitName(entry.name)) visit(join(dir, entry.name));
    }
  };
  visit(root);
  return found;
}

/** Another update of a package that holds `root`, or that `root` holds, as a sentence; else undefined. */
function nestedUpdate(root: string): string | undefined {
  const real = realpathSync(root);
  for (let dir = dirname(real); ; dir = dirname(dir)) {
    const holder = runningAt(dir);
    if (holder) return `an update of ${dir}, the package that holds ${root}, is running (${holder})`;
    if (dirname(dir) === dir) break;
  }
  for (const dir of lockedBelow(real)) {
    const holder = runningAt(dir);
    if (holder) return `an update of ${join(root, relative(real, dir))}, a package inside ${root}, is running (${holder})`;
  }
  return undefined;
}

export function lockPackage(root: string): PackageLock {
  const file = join(root, LOCK_FILE);
  const inode = packageInode(root);
  const mine = `${JSON.stringify({ pid: process.pid, host: hostname(), started: new Date().toISOString(), package: inode })}\n`;
  const notices: string[] = [];
  for (let attempt = 0; attempt < 3; attempt += 1) {
    if (tryCreate(file, mine)) {
      const release = () => {
        if (readLock(file) === mine) unlinkSync(file);
      };
      const nested = nestedUpdate(root);
      if (nested) {
        release();
        throw new LockError(`${nested}: one update of a package tree runs at a time; wait for it to finish`);
      }
      return { notices, release };
    }
    const text = readLock(file);
    if (text === undefined) continue;
    const holder = parseHolder(text);
    if (!madeFor(holder, inode)) {
      if (takeOver(file, text)) notices.push(`ignored ${file}: package-variant did not make it for this package (it came with the package's content); the update's own lock takes its place`);
      continue;
    }
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

/** For a run that writes nothing (a dry run): stops where an update of the package, or of one that holds it or that it holds, runs now; takes nothing. */
export function checkNotLocked(root: string): void {
  const holder = runningAt(root);
  if (holder) throw new LockError(`an update of ${root} is running (${holder}): what it would change cannot be told until it is done`);
  const nested = nestedUpdate(root);
  if (nested) throw new LockError(`${nested}: what this update would change cannot be told until it is done`);
}
