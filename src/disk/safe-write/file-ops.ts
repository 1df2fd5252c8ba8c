/**
 * The file operations the safe writer uses, and nothing more: one small interface, so that tests
 * can make any one of them fail (test/property/safe-write.test.ts). None follows a symbolic link:
 * files are created with O_EXCL | O_NOFOLLOW, and rename, link, unlink and rmdir act on the
 * name itself. Paths are absolute.
 */
import { closeSync, constants, copyFileSync, fchmodSync, fstatSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readSync, renameSync, rmdirSync, statSync, unlinkSync, writeSync } from 'node:fs';

export type PathKind = 'file' | 'dir' | 'link' | 'other' | 'missing';

export interface FileOps {
  /** What a path names, without following a symbolic link. */
  kind(path: string): PathKind;
  mkdir(path: string): void;
  rmdir(path: string): void;
  /** A new file (never an existing one) holding `bytes`, with exactly `mode`. */
  create(path: string, bytes: Uint8Array, mode: number): void;
  /** Flushes a file or a directory to the disk (fsync). */
  sync(path: string): void;
  /** A second name for a file. */
  link(existing: string, path: string): void;
  /** A new file holding a copy of `existing` (where hard links are not supported). */
  copy(existing: string, path: string): void;
  rename(from: string, to: string): void;
  unlink(path: string): void;
  /** A regular file's bytes, or undefined when there is none. */
  read(path: string): Buffer | undefined;
  /** Whether two names are the same file (hard links of one another). */
  sameFile(a: string, b: string): boolean;
  /**
   * The file system a path lies on (its device; a link is followed: the package root may be one).
   * Without it, every path is taken to lie on one (test doubles).
   */
  device?(path: string): bigint;
}

function kind(path: string): PathKind {
  try {
    const stat = lstatSync(path);
    return stat.isSymbolicLink() ? 'link' : stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return 'missing';
    throw error;
  }
}

function withFile<T>(path: string, flags: number, mode: number | undefined, use: (fd: number) => T): T {
  const fd = openSync(path, flags | constants.O_NOFOLLOW, mode);
  try {
    return use(fd);
  } finally {
    closeSync(fd);
  }
}

function writeWhole(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
}

export const diskOps: FileOps = {
  kind,
  mkdir: (path) => mkdirSync(path),
  rmdir: (path) => rmdirSync(path),
  create: (path, bytes, mode) =>
    withFile(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode, (fd) => {
      // The umask narrows the mode given to open; the plan's mode is meant exactly.
      fchmodSync(fd, mode);
      writeWhole(fd, bytes);
    }),
  sync: (path) => withFile(path, constants.O_RDONLY, undefined, (fd) => fsyncSync(fd)),
  link: (existing, path) => linkSync(existing, path),
  copy: (existing, path) => copyFileSync(existing, path, constants.COPYFILE_EXCL),
  rename: (from, to) => renameSync(from, to),
  unlink: (path) => unlinkSync(path),
  sameFile: (a, b) => {
    const [x, y] = [lstatSync(a, { bigint: true }), lstatSync(b, { bigint: true })];
    return x.dev === y.dev && x.ino === y.ino;
  },
  device: (path) => statSync(path, { bigint: true }).dev,
  read: (path) => {
    if (kind(path) !== 'file') return undefined;
    return withFile(path, constants.O_RDONLY, undefined, (fd) => {
      const bytes = Buffer.alloc(fstatSync(fd).size);
      let at = 0;
      while (at < bytes.length) {
        const read = readSync(fd, bytes, at, bytes.length - at, at);
        if (read === 0) break;
        at += read;
      }
      return bytes.subarray(0, at);
    });
  },
};
