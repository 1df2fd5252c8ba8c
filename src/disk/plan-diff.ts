/**
 * An update plan as a unified diff, in git's form (`diff --git`, `new file mode`, `deleted file
 * mode`, mode changes, `\ No newline at end of file`, `Binary files ... differ`), paths relative to
 * the package: `git apply --directory=PKG` or `patch -p1 -d PKG` applies it. Three lines of context.
 */
import { commonLines } from '../yaml/line-merge';
import { quotePath } from '../package/path-text';
import type { UpdatePlan } from './plan';
import type { TreeFile } from '../package/tree';

const CONTEXT = 3;
/** Beyond this many differing lines a file is shown as all removed and all added, which stays fast. */
const MAX_EDITS = 5000;

const utf8 = new TextDecoder('utf-8', { fatal: true });

function textOf(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** A last line without `\n` is marked (text has no NUL), so that it differs from the same line with one. */
const NO_NEWLINE = '\0';

/** Lines without their `\n` (a `\r` stays). */
function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  else lines[lines.length - 1] += NO_NEWLINE;
  return lines;
}

type Op = { kind: ' ' | '-' | '+'; line: string; a: number; b: number };

function editScript(a: readonly string[], b: readonly string[]): Op[] {
  const pairs = commonLines(a, b, MAX_EDITS) ?? [];
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  for (const [x, y] of [...pairs, [a.length, b.length] as [number, number]]) {
    for (; i < x; i += 1) ops.push({ kind: '-', line: a[i]!, a: i, b: j });
    for (; j < y; j += 1) ops.push({ kind: '+', line: b[j]!, a: i, b: j });
    if (x < a.length) ops.push({ kind: ' ', line: a[x]!, a: x, b: y });
    i = x + 1;
    j = y + 1;
  }
  return ops;
}

const range = (start: number, count: number) => (count === 1 ? `${start + 1}` : `${count === 0 ? start : start + 1},${count}`);

function hunks(before: string, after: string): string {
  const ops = editScript(linesOf(before), linesOf(after));
  const out: string[] = [];
  const changed = ops.flatMap((op, index) => (op.kind === ' ' ? [] : [index]));
  let at = 0;
  while (at < changed.length) {
    let end = at;
    while (end + 1 < changed.length && changed[end + 1]! - changed[end]! <= 2 * CONTEXT + 1) end += 1;
    const first = Math.max(0, changed[at]! - CONTEXT);
    const last = Math.min(ops.length - 1, changed[end]! + CONTEXT);
    const slice = ops.slice(first, last + 1);
    const oldCount = slice.filter((op) => op.kind !== '+').length;
    const newCount = slice.filter((op) => op.kind !== '-').length;
    out.push(`@@ -${range(slice[0]!.a, oldCount)} +${range(slice[0]!.b, newCount)} @@`);
    for (const op of slice) {
      if (!op.line.endsWith(NO_NEWLINE)) out.push(`${op.kind}${op.line}`);
      else out.push(`${op.kind}${op.line.slice(0, -1)}`, '\\ No newline at end of file');
    }
    at = end + 1;
  }
  return out.map((line) => `${line}\n`).join('');
}

const modeText = (mode: number) => (mode & 0o111 ? '100755' : '100644');

function fileDiff(path: string, before: TreeFile | undefined, after: TreeFile | undefined): string {
  // Names are quoted as git quotes them (a newline or an escape in a name cannot forge a line).
  const a = quotePath(`a/${path}`);
  const b = quotePath(`b/${path}`);
  let head = `diff --git ${a} ${b}\n`;
  if (!before) head += `new file mode ${modeText(after!.mode)}\n`;
  else if (!after) head += `deleted file mode ${modeText(before.mode)}\n`;
  else if (modeText(before.mode) !== modeText(after.mode)) head += `old mode ${modeText(before.mode)}\nnew mode ${modeText(after.mode)}\n`;
  const oldBytes = before?.bytes ?? Buffer.alloc(0);
  const newBytes = after?.bytes ?? Buffer.alloc(0);
  if (oldBytes.equals(newBytes)) return head;
  const oldText = textOf(oldBytes);
  const newText = textOf(newBytes);
  if (oldText === undefined || newText === undefined) return `${head}Binary files ${before ? a : '/dev/null'} and ${after ? b : '/dev/null'} differ\n`;
  return `${head}--- ${before ? a : '/dev/null'}\n+++ ${after ? b : '/dev/null'}\n${hunks(oldText, newText)}`;
}

export function planDiff(plan: UpdatePlan): string {
  const paths = [...plan.writes.map((w) => w.path), ...plan.removes].sort();
  const writes = new Map(plan.writes.map((w) => [w.path, { bytes: w.bytes, mode: w.mode }]));
  return paths.map((path) => fileDiff(path, plan.before.files.get(path), writes.get(path))).join('');
}
