// The I/O floor of an update (issue 20): the least a Node process must do to update a package
// durably, and nothing else. It reads every file of the three versions, then writes the files the
// update changes, each staged, flushed (fsync) and renamed over its target, directories flushed.
// The benchmark times it beside `package-variant update`, interleaved, on the same copies.
//
//   node bench/lib/io-floor.mjs PAYLOAD ORIGIN UPSTREAM LOCAL [--stage beside|together]
//
// PAYLOAD (writePayload below) holds the paths and bytes an update wrote, taken from a checked run:
// the floor writes exactly those bytes. The files are staged in one new directory at the package
// root (`together`, the default: the cheapest way, a create in an empty directory costs a fraction
// of one in a directory of a thousand), or beside their targets (`beside`). Node builtins only.
import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmdirSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Writes PAYLOAD: a JSON line of [path, byte length] pairs, then the bytes one after another. */
export function writePayload(file, root, paths) {
  const contents = paths.map((path) => readFileSync(join(root, path)));
  const header = JSON.stringify(paths.map((path, i) => [path, contents[i].length]));
  writeFileSync(file, Buffer.concat([Buffer.from(`${header}\n`), ...contents]));
}

function readPayload(file) {
  const all = readFileSync(file);
  const newline = all.indexOf(10);
  let at = newline + 1;
  return JSON.parse(all.subarray(0, newline).toString('utf8')).map(([path, length]) => {
    const bytes = all.subarray(at, at + length);
    at += length;
    return { path, bytes };
  });
}

/** Reads every regular file below `root`; returns the byte count. */
function readAll(root) {
  let bytes = 0;
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) bytes += readFileSync(full).length;
    }
  };
  walk(root);
  return bytes;
}

function syncPath(path) {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function floor(payloadFile, versions, stage) {
  const files = readPayload(payloadFile);
  for (const root of versions) readAll(root);
  const local = versions[versions.length - 1];
  const stageDir = join(local, '.io-floor-stage');
  if (stage === 'together') mkdirSync(stageDir);
  const staged = files.map((file, i) => {
    const path = stage === 'together' ? join(stageDir, String(i)) : join(local, dirname(file.path), `.io-floor-${i}.new`);
    const fd = openSync(path, 'wx', 0o644);
    try {
      writeSync(fd, file.bytes);
    } finally {
      closeSync(fd);
    }
    return path;
  });
  for (const path of staged) syncPath(path);
  const dirs = new Set(files.map((file) => dirname(join(local, file.path))));
  if (stage === 'together') {
    syncPath(stageDir);
    dirs.add(stageDir);
  }
  files.forEach((file, i) => renameSync(staged[i], join(local, file.path)));
  for (const dir of [...dirs].sort()) syncPath(dir);
  if (stage === 'together') {
    rmdirSync(stageDir);
    syncPath(local);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--stage');
  const stage = at === -1 ? 'together' : args.splice(at, 2)[1];
  if (args.length !== 4 || !['beside', 'together'].includes(stage)) {
    process.stderr.write('usage: node bench/lib/io-floor.mjs PAYLOAD ORIGIN UPSTREAM LOCAL [--stage beside|together]\n');
    process.exit(2);
  }
  floor(args[0], args.slice(1), stage);
}
