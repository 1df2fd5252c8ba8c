'use strict';
/**
 * The kill test of `package-variant update` (issue 13), shared by bench/kill.bench.mjs (many kills)
 * and test/cli/kill.test.ts (a few): a package whose upstream moved every locally customised
 * resource to a new directory (so the update removes as many files as it writes), some of them
 * large; the CLI is run and SIGKILLed at a chosen time after its journal appears (its first write);
 * afterwards every file must be the old or the new version, and a re-run must complete the update.
 * Node builtins only.
 */
const { spawn } = require('node:child_process');
const { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const JOURNAL = '.package-variant.journal';
/** The update's own files (src/disk/safe-write/reserved.ts): not part of the package. */
const isReserved = (name) => name.startsWith('.package-variant.') || name.startsWith('.package-variant-');

const KPTFILE = 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: moved\n';

function configMap(i, { label = false, bytes = 0 } = {}) {
  const name = `cm-${String(i).padStart(4, '0')}`;
  const labels = label ? '  labels:\n    team: mine\n' : '';
  const payload = bytes ? `  payload: ${'x'.repeat(bytes)}\n` : '';
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${labels}data:\n  key: "value-${i}"\n${payload}`;
}

/**
 * origin/, upstream/ and local/ under `dir`: `resources` ConfigMaps in old/ (origin), customised with
 * a label in local, moved to new/ upstream, which also changes the Kptfile; the first `large` of
 * them carry a payload of `largeBytes`.
 */
function writeMovedPackage(dir, { resources, large = 0, largeBytes = 8 << 20 }) {
  const dirs = { origin: join(dir, 'origin'), upstream: join(dir, 'upstream'), local: join(dir, 'local') };
  mkdirSync(join(dirs.origin, 'old'), { recursive: true });
  mkdirSync(join(dirs.local, 'old'), { recursive: true });
  mkdirSync(join(dirs.upstream, 'new'), { recursive: true });
  writeFileSync(join(dirs.origin, 'Kptfile'), KPTFILE);
  writeFileSync(join(dirs.local, 'Kptfile'), KPTFILE);
  writeFileSync(join(dirs.upstream, 'Kptfile'), `${KPTFILE}info:\n  description: moved to new/\n`);
  for (let i = 0; i < resources; i += 1) {
    const bytes = i < large ? largeBytes : 0;
    const file = `cm-${String(i).padStart(4, '0')}.yaml`;
    writeFileSync(join(dirs.origin, 'old', file), configMap(i, { bytes }));
    writeFileSync(join(dirs.local, 'old', file), configMap(i, { bytes, label: true }));
    writeFileSync(join(dirs.upstream, 'new', file), configMap(i, { bytes }));
  }
  return dirs;
}

/** Every file of a package, path -> bytes; `reserved` lists the update's own files left in it. */
function snapshot(root) {
  const files = new Map();
  const reserved = [];
  const walk = (rel) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      if (isReserved(name)) reserved.push(path);
      else if (lstatSync(join(root, path)).isDirectory()) walk(path);
      else files.set(path, readFileSync(join(root, path)));
    }
  };
  walk('');
  return { files, reserved };
}

/** How a package compares with its versions before and after the update: counts, and any file that is neither. */
function compare(now, before, after) {
  let old = 0;
  let updated = 0;
  const neither = [];
  for (const [path, bytes] of now.files) {
    const wasOld = before.files.get(path)?.equals(bytes) ?? false;
    const isNew = after.files.get(path)?.equals(bytes) ?? false;
    if (isNew) updated += 1;
    else if (wasOld) old += 1;
    else neither.push(`${path} (${bytes.length} bytes)`);
  }
  // A file both versions hold must never be missing.
  const missing = [...before.files.keys()].filter((p) => after.files.has(p) && !now.files.has(p));
  const equalsBefore = now.files.size === before.files.size && [...before.files].every(([p, b]) => now.files.get(p)?.equals(b));
  const equalsAfter = now.files.size === after.files.size && [...after.files].every(([p, b]) => now.files.get(p)?.equals(b));
  return { old, updated, neither, missing, equalsBefore, equalsAfter };
}

/**
 * Runs `node main update local --origin … --upstream …`, noting when each path of `watch` (relative
 * to the package; default: the journal) first appears; with `killAfterMs`, sends SIGKILL that long
 * after `killOn` (default: the journal, the update's first write) appears. Resolves with the exit,
 * the output and the timings (ms from the start).
 */
function runUpdate(mainJs, dirs, { killAfterMs, killOn = JOURNAL, watch = [JOURNAL] } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const ms = () => Number(process.hrtime.bigint() - started) / 1e6;
    const child = spawn(process.execPath, [mainJs, 'update', dirs.local, '--origin', dirs.origin, '--upstream', dirs.upstream], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const seen = {};
    let killedAt;
    let exited = false;
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      exited = true;
      resolve({ code, signal, stdout, stderr, seen, journalAt: seen[JOURNAL], killedAt, endedAt: ms() });
    });
    const watched = [...new Set([...watch, killOn])];
    const poll = () => {
      if (exited) return;
      for (const path of watched) if (seen[path] === undefined && existsSync(join(dirs.local, path))) seen[path] = ms();
      const trigger = seen[killOn];
      if (killAfterMs !== undefined && trigger !== undefined) {
        // Timers are too coarse for the last stretch: it is waited out on the spot.
        if (trigger + killAfterMs - ms() > 2) return setTimeout(poll, 1);
        while (ms() < trigger + killAfterMs);
        killedAt = ms();
        child.kill('SIGKILL');
        return;
      }
      // A timer, not a busy loop: the update must not compete with its observer for the CPU.
      setTimeout(poll, 1);
    };
    poll();
  });
}

module.exports = { writeMovedPackage, snapshot, compare, runUpdate, isReserved };
