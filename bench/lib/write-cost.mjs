// What writing an update's files costs on this disk, for the lead to weigh the atomic writer (temp
// file, fsync, rename, directory fsync) against today's (one write per file): the files an update
// wrote are written again, the same bytes to the same paths, both ways, timed in this process.
// Node builtins only.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** As src/disk/plan-writer.ts writes a file today: in place, then its mode checked. */
function writeInPlace(full, bytes, mode) {
  writeFileSync(full, bytes, { mode });
  if ((statSync(full).mode & 0o7777) !== mode) throw new Error(`${full}: mode changed`);
}

/** Written beside the file, flushed, renamed over it; each directory flushed once at the end. */
function writeAtomically(full, bytes, mode, dirs) {
  const temp = join(dirname(full), `.${Date.now()}.bench-write`);
  const fd = openSync(temp, 'w', mode);
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, full);
  dirs.add(dirname(full));
}

/** Milliseconds to write `paths` (relative to `root`) today's way and atomically, with the file count. */
export function measureWriteCost(root, paths) {
  const files = paths.map((path) => {
    const full = join(root, path);
    return { full, bytes: readFileSync(full), mode: statSync(full).mode & 0o7777 };
  });
  const time = (write) => {
    const start = process.hrtime.bigint();
    write();
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  const inPlace = time(() => {
    for (const f of files) writeInPlace(f.full, f.bytes, f.mode);
  });
  const atomic = time(() => {
    const dirs = new Set();
    for (const f of files) writeAtomically(f.full, f.bytes, f.mode, dirs);
    for (const dir of dirs) {
      const fd = openSync(dir, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
  });
  return { files: files.length, today_ms: Number(inPlace.toFixed(1)), atomic_with_fsync_ms: Number(atomic.toFixed(1)) };
}
