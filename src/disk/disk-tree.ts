/**
 * Reads a package directory into a PackageTree: every file byte for byte with its mode, as kpt's
 * reader walks it (src/package/package-walk.ts: `.krmignore`, no symbolic link followed, `.git`
 * in any spelling skipped), within the read bounds (src/package/read-limits.ts). The update's own
 * files (lock, journal, temporary files: src/disk/safe-write/reserved.ts) are not part of the
 * package. A name that is not UTF-8 is refused, naming it: the update never renames a file.
 */
import { closeSync, constants, fstatSync, openSync, readdirSync, readSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { walkPackage, type Entry, type EntryKind } from '../package/package-walk';
import { quoteBytes } from '../package/path-text';
import { ReadBudget } from '../package/read-limits';
import { isReservedName } from '../krm/package-paths';
import { PackageTree, type TreeFile } from '../package/tree';

export class PackageReadError extends Error {}

const kindOf = (entry: Dirent<Buffer>): EntryKind => (entry.isSymbolicLink() ? 'link' : entry.isDirectory() ? 'dir' : entry.isFile() ? 'file' : 'other');

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A name read from a directory; one that is not UTF-8 cannot be kept as it is through the update, and is refused. */
function nameOf(bytes: Buffer, dir: string): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new PackageReadError(`${dir} holds ${quoteBytes(bytes)}, whose name is not UTF-8: the update never renames a file; rename it, or move it out of the package`);
  }
}

const byName = (a: Entry, b: Entry) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Bytes of this size or less are carved out of a shared block. */
const SMALL_FILE = 64 * 1024;
const BLOCK = 1024 * 1024;

/**
 * Room for the files of one read: small files share blocks, as an allocation of its own (and the
 * collector's work on it) costs more than reading a file of a few kilobytes.
 */
class FileBytes {
  private block = Buffer.alloc(0);
  private used = 0;

  take(size: number): Buffer {
    if (size > SMALL_FILE) return Buffer.allocUnsafeSlow(size);
    if (this.used + size > this.block.length) {
      this.block = Buffer.allocUnsafeSlow(BLOCK);
      this.used = 0;
    }
    this.used += size;
    return this.block.subarray(this.used - size, this.used);
  }
}

/** A regular file's bytes and mode, opened without following a symbolic link; undefined when it is not a regular file. */
function readRegularFile(full: string, path: string, budget: ReadBudget, room: FileBytes): TreeFile | undefined {
  const fd = openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return undefined;
    budget.spend(path, stat.size);
    const bytes = room.take(stat.size);
    let at = 0;
    while (at < bytes.length) {
      const read = readSync(fd, bytes, at, bytes.length - at, at);
      if (read === 0) break;
      at += read;
    }
    return { bytes: at === bytes.length ? bytes : bytes.subarray(0, at), mode: stat.mode & 0o7777 };
  } finally {
    closeSync(fd);
  }
}

/** Throws a PackageReadError unless `root` is a directory (a link to one will do: the user named it). */
export function assertDirectory(root: string): void {
  let isDir = false;
  try {
    isDir = statSync(root).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new PackageReadError(`${root} is not a directory`);
}

/**
 * `krmignore: false` reads what `.krmignore` names too, as git mode reads a version from git: for
 * origin and upstream, whose ignored files the update compares to warn of upstream's changes there.
 */
export function readDiskTree(root: string, options: { readonly krmignore: boolean } = { krmignore: true }): PackageTree {
  assertDirectory(root);
  const budget = new ReadBudget((path, problem) => new PackageReadError(`${join(root, path)} ${problem}; list it in .krmignore to leave it out of the update`));
  const read = new Map<string, TreeFile | undefined>();
  const room = new FileBytes();
  const readFile = (path: string) => {
    if (!read.has(path)) read.set(path, readRegularFile(join(root, path), path, budget, room));
    return read.get(path);
  };
  const walked = walkPackage({
    entries: (dir) =>
      readdirSync(join(root, dir), { withFileTypes: true, encoding: 'buffer' })
        .map((e) => ({ name: nameOf(e.name, join(root, dir)), kind: kindOf(e) }))
        .filter((e) => !isReservedName(e.name))
        .sort(byName),
    text: (path) => {
      try {
        return readFile(path)?.bytes.toString('utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'ELOOP') return undefined;
        throw error;
      }
    },
  }, options);
  const files = new Map<string, TreeFile>();
  for (const path of walked.files) {
    const file = readFile(path);
    if (file) files.set(path, file);
  }
  return new PackageTree(files, new Set(walked.dirs), new Set(walked.links), new Set(walked.ignored));
}
