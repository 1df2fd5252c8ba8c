/**
 * A three-way merge of lines, as diff3 does it: `base` and two edited versions. Where only one
 * version changed a stretch of lines, its lines are taken; where both did, `theirs` wins. Used to
 * put a re-rendered document's changes back into its original text (see document-text.ts): the
 * original's own layout is one edit of the rendering, the merge's changes the other.
 */

/** Pairs of equal lines, as index pairs, forming a longest common subsequence (Myers' O(ND) diff). */
function commonLines(a: readonly string[], b: readonly string[], maxEdits: number): Array<[number, number]> | undefined {
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

function sameLines(a: readonly string[], aFrom: number, aTo: number, b: readonly string[], bFrom: number, bTo: number): boolean {
  if (aTo - aFrom !== bTo - bFrom) return false;
  for (let i = 0; i < aTo - aFrom; i += 1) if (a[aFrom + i] !== b[bFrom + i]) return false;
  return true;
}

/**
 * The merged lines; undefined when either version differs from `base` by more than `maxEdits`
 * lines, which bounds time and memory (Myers' diff is quadratic in the number of edits).
 */
export function mergeLines(base: readonly string[], ours: readonly string[], theirs: readonly string[], maxEdits = 2000): string[] | undefined {
  const toOurs = matchLines(base, ours, maxEdits);
  const toTheirs = matchLines(base, theirs, maxEdits);
  if (!toOurs || !toTheirs) return undefined;
  const out: string[] = [];
  let i = 0;
  let a = 0;
  let c = 0;
  for (;;) {
    // The next line all three share: everything up to it is one stretch, changed by one side, both or none.
    let j = i;
    while (j < base.length && (toOurs[j] === -1 || toTheirs[j] === -1)) j += 1;
    const aEnd = j < base.length ? toOurs[j]! : ours.length;
    const cEnd = j < base.length ? toTheirs[j]! : theirs.length;
    const oursChanged = !sameLines(base, i, j, ours, a, aEnd);
    const theirsChanged = !sameLines(base, i, j, theirs, c, cEnd);
    out.push(...(oursChanged && !theirsChanged ? ours.slice(a, aEnd) : theirs.slice(c, cEnd)));
    if (j >= base.length) return out;
    out.push(ours[aEnd]!);
    i = j + 1;
    a = aEnd + 1;
    c = cEnd + 1;
  }
}
