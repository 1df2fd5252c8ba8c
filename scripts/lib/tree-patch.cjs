'use strict';
/**
 * A compact patch between two directory trees, for fixtures that must stay small: no context lines
 * and no copy of removed lines (the fixtures pin the result by sha256 instead). Format, one header
 * per changed file, paths relative to the tree:
 *
 *   M <path>              modified: hunks follow
 *   A <mode> <path>       added: its lines follow as `+` lines
 *   D <path>              deleted
 *   X <mode> <path>       mode changed, hunks may follow
 *   B <mode> <path>       added or replaced, bytes that are not UTF-8 text: one line of base64
 *   @<line>,<count>       hunk: remove <count> lines from 1-based <line> of the old file, then
 *                         insert the `+` lines that follow
 *
 * A file's lines are its text split at `\n`, so a file without a final newline round-trips.
 */
const { chmodSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { readTree } = require('./git-trees.cjs');

/** Beyond this many differing lines a file is replaced whole (the edit graph would grow too big). */
const MAX_EDIT_DISTANCE = 1000;

/**
 * The hunks turning `a` into `b` (arrays of lines): Myers' shortest edit script, after the common
 * head and tail are cut off. Each hunk: [start (0-based in a), removed count, inserted lines].
 */
function lineHunks(a, b) {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const A = a.slice(head, a.length - tail);
  const B = b.slice(head, b.length - tail);
  if (!A.length && !B.length) return [];
  const max = Math.min(A.length + B.length, MAX_EDIT_DISTANCE);
  // v[k]: the furthest x on diagonal k; trace[d] keeps v's window -d..d before step d
  const v = new Map([[1, 0]]);
  const trace = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    const snapshot = new Map();
    for (let k = -d - 1; k <= d + 1; k++) if (v.has(k)) snapshot.set(k, v.get(k));
    trace.push(snapshot);
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v.get(k - 1) ?? -1) < (v.get(k + 1) ?? -1));
      let x = down ? v.get(k + 1) : v.get(k - 1) + 1;
      let y = x - k;
      while (x < A.length && y < B.length && A[x] === B[y]) {
        x++;
        y++;
      }
      v.set(k, x);
      if (x >= A.length && y >= B.length) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return [[head, A.length, B]];
  const steps = [];
  let x = A.length;
  let y = B.length;
  for (let d = found; d > 0; d--) {
    const before = trace[d];
    const k = x - y;
    const down = k === -d || (k !== d && (before.get(k - 1) ?? -1) < (before.get(k + 1) ?? -1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = before.get(prevK);
    const prevY = prevX - prevK;
    steps.push(down ? { at: prevX, insert: B[prevY] } : { at: prevX, remove: true });
    x = prevX;
    y = prevY;
  }
  // consecutive steps at the end of the previous hunk's removed lines join it
  const hunks = [];
  for (const step of steps.reverse()) {
    const last = hunks[hunks.length - 1];
    const current = last && last[0] + last[1] === step.at ? last : undefined;
    const hunk = current ?? [step.at, 0, []];
    if (step.remove) hunk[1]++;
    else hunk[2].push(step.insert);
    if (!current) hunks.push(hunk);
  }
  return hunks.map(([at, count, lines]) => [at + head, count, lines]);
}

function isText(bytes) {
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) && !text.includes('\0');
}

const linesOf = (bytes) => bytes.toString('utf8').split('\n');
const plus = (lines) => lines.map((l) => `+${l}\n`).join('');

/** The patch from directory `from` to directory `to`; '' when they hold the same files. */
function diffTrees(from, to) {
  const a = readTree(from);
  const b = readTree(to);
  let out = '';
  for (const path of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const [old, now] = [a.get(path), b.get(path)];
    if (old && now && old.mode === now.mode && old.bytes.equals(now.bytes)) continue;
    if (!now) {
      out += `D ${path}\n`;
    } else if (!isText(now.bytes) || (old && !isText(old.bytes))) {
      out += `B ${now.mode} ${path}\n${now.bytes.toString('base64')}\n`;
    } else if (!old) {
      out += `A ${now.mode} ${path}\n${plus(linesOf(now.bytes))}`;
    } else {
      out += old.mode === now.mode ? `M ${path}\n` : `X ${now.mode} ${path}\n`;
      for (const [at, count, lines] of lineHunks(linesOf(old.bytes), linesOf(now.bytes))) out += `@${at + 1},${count}\n${plus(lines)}`;
    }
  }
  return out;
}

function removeEmptyParents(root, path) {
  for (let dir = dirname(path); dir !== '.' && dir !== ''; dir = dirname(dir)) {
    const full = join(root, dir);
    if (readdirSync(full).length) return;
    rmdirSync(full);
  }
}

/** Applies a patch made by diffTrees to directory `root`, which must hold the `from` tree. */
function applyTreePatch(root, patch) {
  if (!patch) return;
  const lines = patch.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let i = 0;
  const take = () => {
    const out = [];
    while (i < lines.length && lines[i].startsWith('+')) out.push(lines[i++].slice(1));
    return out;
  };
  while (i < lines.length) {
    const header = lines[i++];
    const [kind, ...rest] = header.split(' ');
    const path = kind === 'M' || kind === 'D' ? rest.join(' ') : rest.slice(1).join(' ');
    const full = join(root, path);
    if (!path || !['M', 'A', 'D', 'X', 'B'].includes(kind)) throw new Error(`tree patch: bad header "${header}"`);
    if (kind === 'D') {
      rmSync(full);
      removeEmptyParents(root, path);
      continue;
    }
    mkdirSync(dirname(full), { recursive: true });
    if (kind === 'B') writeFileSync(full, Buffer.from(lines[i++], 'base64'));
    else if (kind === 'A') writeFileSync(full, take().join('\n'));
    else {
      const hunks = [];
      while (i < lines.length && lines[i].startsWith('@')) {
        const [at, count] = lines[i++].slice(1).split(',').map(Number);
        hunks.push([at - 1, count, take()]);
      }
      const text = linesOf(readFileSync(full));
      for (const [at, count, inserted] of hunks.reverse()) {
        if (at + count > text.length) throw new Error(`tree patch: ${path} has ${text.length} lines, a hunk needs ${at + count}`);
        text.splice(at, count, ...inserted);
      }
      writeFileSync(full, text.join('\n'));
    }
    if (kind !== 'M') chmodSync(full, parseInt(rest[0], 8) & 0o777);
  }
}

module.exports = { diffTrees, applyTreePatch, lineHunks };
