/**
 * A three-way merge of lines, as diff3 does it: `base` and two edited versions. Where only one
 * version changed a stretch of lines, its lines are taken; where both did, `theirs` wins. Used to
 * put a re-rendered document's changes back into its original text (see document-text.ts): the
 * original's own layout is one edit of the rendering, the merge's changes the other.
 */
import { appendAll } from './append';

/** Pairs of equal lines, as index pairs, forming a longest common subsequence (Myers' O(ND) diff); undefined beyond `maxEdits`. */
export function commonLines(a: readonly string[], b: readonly string[], maxEdits: number): Array<[number, number]> | undefined {
  // Common head and tail first: edits are usually few and close together.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < head; i += 1) pairs.push([i, i]);
  const middle = myers(a.slice(head, a.length - tail), b.slice(head, b.length - tail), maxEdits);
  if (!middle) return undefined;
  for (const [x, y] of middle) pairs.push([x + head, y + head]);
  for (let i = tail; i > 0; i -= 1) pairs.push([a.length - i, b.length - i]);
  return pairs;
}

function myers(a: readonly string[], b: readonly string[], maxEdits: number): Array<[number, number]> | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  // trace[d] holds the furthest x on each diagonal k in [-d, d] after d edits, at index k + d.
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d += 1) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        trace.push(v.slice(offset - d, offset + d + 1));
        return backtrack(trace, n, m);
      }
    }
    trace.push(v.slice(offset - d, offset + d + 1));
  }
  return undefined;
}

function backtrack(trace: readonly Int32Array[], n: number, m: number): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d > 0; d -= 1) {
    const previous = trace[d - 1]!;
    const at = (k: number) => previous[k + d - 1]!;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const previousK = down ? k + 1 : k - 1;
    const previousX = at(previousK);
    const snakeX = down ? previousX : previousX + 1;
    while (x > snakeX && y > snakeX - k) {
      x -= 1;
      y -= 1;
      pairs.push([x, y]);
    }
    x = previousX;
    y = previousX - previousK;
  }
  while (x > 0 && y > 0) {
    x -= 1;
    y -= 1;
    pairs.push([x, y]);
  }
  return pairs.reverse();
}

/** For each base line, the index of its equal line in `other`, or -1. */
function matchLines(base: readonly string[], other: readonly string[], maxEdits: number): Int32Array | undefined {
  const pairs = commonLines(base, other, maxEdits);
  if (!pairs) return undefined;
  const match = new Int32Array(base.length).fill(-1);
  for (const [i, j] of pairs) match[i] = j;
  return match;
}

/**
 * Moves each run of lines only `other` has as far down as equal lines allow: a blank line added
 * after a block, not before it, so that an edit of the block's last line does not meet it.
 */
function slideInsertionsDown(match: Int32Array, other: readonly string[]): void {
  const back = new Int32Array(other.length).fill(-1);
  match.forEach((j, i) => {
    if (j !== -1) back[j] = i;
  });
  let s = 0;
  while (s < other.length) {
    if (back[s] !== -1) {
      s += 1;
      continue;
    }
    let e = s;
    while (e < other.length && back[e] === -1) e += 1;
    while (e < other.length && back[e] !== -1 && other[s] === other[e]) {
      const i = back[e]!;
      match[i] = s;
      back[s] = i;
      back[e] = -1;
      s += 1;
      e += 1;
      while (e < other.length && back[e] === -1) e += 1;
    }
    s = e;
  }
}

/** One side's change: base lines [start, end) replaced by `lines` (start === end: inserted there). */
interface Hunk {
  readonly start: number;
  readonly end: number;
  readonly lines: readonly string[];
  readonly side: 'ours' | 'theirs';
}

/** The changes from `base` to `other` given their matched lines; matched lines that differ (re-indented) are changes too. */
function hunksOf(base: readonly string[], other: readonly string[], match: Int32Array, side: Hunk['side']): Hunk[] {
  const hunks: Hunk[] = [];
  let i = 0;
  let j = 0;
  while (i < base.length || j < other.length) {
    if (i < base.length && match[i] === j) {
      if (base[i] !== other[j]) hunks.push({ start: i, end: i + 1, lines: [other[j]!], side });
      i += 1;
      j += 1;
      continue;
    }
    let end = i;
    while (end < base.length && match[end] === -1) end += 1;
    const otherEnd = end < base.length ? match[end]! : other.length;
    hunks.push({ start: i, end, lines: other.slice(j, otherEnd), side });
    i = end;
    j = otherEnd;
  }
  return hunks;
}

/** Whether two changes from different sides touch the same base lines, or one inserts inside the other. */
function overlap(x: Hunk, y: Hunk): boolean {
  if (x.start === x.end && y.start === y.end) return false;
  if (x.start === x.end) return y.start < x.start && x.start < y.end;
  if (y.start === y.end) return x.start < y.start && y.start < x.end;
  return x.start < y.end && y.start < x.end;
}

const indentOf = (line: string): number => line.length - line.trimStart().length;

/** A line moved `delta` columns; blank lines, and lines that cannot move that far left, as they are. */
function shifted(line: string, delta: number): string {
  if (delta === 0 || line.trim() === '') return line;
  if (delta > 0) return ' '.repeat(delta) + line;
  return /^ *$/.test(line.slice(0, -delta)) ? line.slice(-delta) : line;
}

/**
 * Where `theirs` puts a line among base lines [start, end), it moves as `ours` moved the base line
 * at the same indentation nearest to it: one it replaces, else a sibling above, else one below.
 */
function reindenter(base: readonly string[], ours: readonly string[], toOurs: Int32Array): (line: string, start: number, end: number) => string {
  const delta = (k: number): number | undefined => (toOurs[k] === -1 ? undefined : indentOf(ours[toOurs[k]!]!) - indentOf(base[k]!));
  return (line, start, end) => {
    const indent = indentOf(line);
    const candidates = function* () {
      for (let k = start; k < end; k += 1) yield k;
      for (let k = start - 1; k >= 0 && (base[k]!.trim() === '' || indentOf(base[k]!) >= indent); k -= 1) yield k;
      for (let k = end; k < base.length && (base[k]!.trim() === '' || indentOf(base[k]!) >= indent); k += 1) yield k;
    };
    for (const k of candidates()) {
      const d = base[k]!.trim() !== '' && indentOf(base[k]!) === indent ? delta(k) : undefined;
      if (d !== undefined) return shifted(line, d);
    }
    return line;
  };
}

/**
 * The merged lines; undefined when either version differs from `base` by more than `maxEdits`
 * lines, which bounds time and memory (Myers' diff is quadratic in the number of edits).
 *
 * `ours` is matched to `base` by content regardless of indentation, so a line `ours` only
 * re-indented (a sequence in the other style, a map indented by four) is a change of its own, and
 * lines `theirs` changes or adds next to it move as it moved. Changes to different lines combine,
 * even next to each other; where both sides change the same lines, `theirs` wins.
 */
export function mergeLines(base: readonly string[], ours: readonly string[], theirs: readonly string[], maxEdits = 2000): string[] | undefined {
  const oursContent = ours.map((line) => line.trimStart());
  const toOurs = matchLines(base.map((line) => line.trimStart()), oursContent, maxEdits);
  const toTheirs = matchLines(base, theirs, maxEdits);
  if (!toOurs || !toTheirs) return undefined;
  slideInsertionsDown(toOurs, oursContent);
  const reindent = reindenter(base, ours, toOurs);
  const hunks = [...hunksOf(base, theirs, toTheirs, 'theirs'), ...hunksOf(base, ours, toOurs, 'ours')];
  // At one place, insertions go first (theirs, then ours), then what replaces base lines.
  hunks.sort((x, y) => x.start - y.start || Number(x.end > x.start) - Number(y.end > y.start) || (x.side === y.side ? 0 : x.side === 'theirs' ? -1 : 1));
  const conflicted = new Set<Hunk>();
  for (let x = 0; x < hunks.length; x += 1) {
    for (let y = x + 1; y < hunks.length && hunks[y]!.start <= hunks[x]!.end; y += 1) {
      if (hunks[x]!.side !== hunks[y]!.side && overlap(hunks[x]!, hunks[y]!)) {
        conflicted.add(hunks[x]!);
        conflicted.add(hunks[y]!);
      }
    }
  }
  const out: string[] = [];
  let at = 0;
  const copyBase = (to: number) => {
    while (at < to) out.push(base[at++]!);
  };
  for (let h = 0; h < hunks.length; h += 1) {
    const hunk = hunks[h]!;
    if (!conflicted.has(hunk)) {
      copyBase(hunk.start);
      appendAll(out, hunk.side === 'ours' ? hunk.lines : hunk.lines.map((line) => reindent(line, hunk.start, hunk.end)));
      at = Math.max(at, hunk.end);
      continue;
    }
    // A conflict: every change that overlaps it, transitively; theirs is written over its base lines.
    let end = hunk.end;
    const group: Hunk[] = [hunk];
    while (h + 1 < hunks.length && conflicted.has(hunks[h + 1]!) && hunks[h + 1]!.start < end) group.push(hunks[++h]!), (end = Math.max(end, hunks[h]!.end));
    copyBase(hunk.start);
    let k = hunk.start;
    for (const theirs of group.filter((g) => g.side === 'theirs')) {
      while (k < theirs.start) out.push(reindent(base[k]!, k, k + 1)), (k += 1);
      appendAll(out, theirs.lines.map((line) => reindent(line, theirs.start, theirs.end)));
      k = Math.max(k, theirs.end);
    }
    while (k < end) out.push(reindent(base[k]!, k, k + 1)), (k += 1);
    at = end;
  }
  copyBase(base.length);
  return out;
}
