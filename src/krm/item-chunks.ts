/**
 * Splits a ResourceList's `items` block into one text per item, so each item is parsed on its own:
 * the parser's token tree then never holds the whole list at once, which bounds memory for large
 * packages. Undefined when the text needs the full parser (anchors and aliases that may cross
 * items, tags, tabs, documents, or an `items` that is not a plain block sequence).
 */
import { BEYOND_LINE_SCAN } from './line-scan';

export interface ItemChunk {
  /** The item alone, dedented: a YAML document of its own. */
  readonly text: string;
  /** Offset of the item's `-` in the input, and where the item's text ends. */
  readonly dash: number;
  readonly end: number;
  /** Input line (1-based) of the chunk's first line, and the columns the dedent removed. */
  readonly line: number;
  readonly dedent: number;
}

export interface ItemsBlock {
  readonly chunks: readonly ItemChunk[];
  /** The `items` block: its lines, without the `items:` line. */
  readonly start: number;
  readonly end: number;
  /** Column of the `-` indicators, and where the `items` key ends. */
  readonly indent: number;
  readonly keyEnd: number;
}

const ITEMS_KEY = /^items:[ \t]*(#.*)?$/gm;
const DASH = /^(\s*)-( +|$)/;

interface RawLine {
  readonly start: number;
  readonly text: string;
  readonly indent: number;
  /** 1-based line number in the input. */
  readonly number: number;
  /** Blank, or a comment. */
  readonly quiet: boolean;
}

function linesOf(text: string, from: number, to: number, firstNumber: number): RawLine[] {
  const lines: RawLine[] = [];
  let at = from;
  let number = firstNumber;
  while (at < to) {
    const newline = text.indexOf('\n', at);
    const end = newline === -1 || newline >= to ? to : newline;
    const line = text.slice(at, end);
    const trimmed = line.trimStart();
    lines.push({ start: at, text: line, indent: line.length - trimmed.length, number, quiet: trimmed === '' || trimmed.startsWith('#') });
    at = end + 1;
    number += 1;
  }
  return lines;
}

/** One item's lines as a document of its own, or undefined when its layout needs the parser. */
function chunkOf(own: readonly RawLine[], indent: number, text: string): ItemChunk | undefined {
  const head = own[0]!;
  const afterDash = head.text.slice(DASH.exec(head.text)![0].length);
  const firstContent = own.slice(1).find((l) => !l.quiet);
  // The item's column: where its content starts on the dash line, else on its first content line.
  const inline = afterDash !== '' && !afterDash.startsWith('#');
  const dedent = inline ? head.text.length - afterDash.length : firstContent?.indent;
  if (dedent === undefined || dedent <= indent) return undefined;
  const body: string[] = [afterDash];
  for (const line of own.slice(1)) {
    if (!line.quiet && line.indent < dedent) return undefined;
    body.push(line.quiet && line.indent < dedent ? line.text.trimStart() : line.text.slice(dedent));
  }
  const last = own[own.length - 1]!;
  return { text: `${body.join('\n')}\n`, dash: head.start + indent, end: Math.min(last.start + last.text.length + 1, text.length), line: head.number, dedent };
}

export function splitItems(text: string): ItemsBlock | undefined {
  if (BEYOND_LINE_SCAN.test(text)) return undefined;
  const keys = [...text.matchAll(ITEMS_KEY)];
  if (keys.length !== 1) return undefined;
  const keyAt = keys[0]!.index!;
  const start = text.indexOf('\n', keyAt) + 1;
  if (start === 0) return undefined;
  // The block runs to the next top-level key.
  const next = /^[^\s#-]/m.exec(text.slice(start));
  const end = next ? start + next.index : text.length;
  let keyLine = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < keyAt; at = text.indexOf('\n', at + 1)) keyLine += 1;
  const lines = linesOf(text, start, end, keyLine + 1);
  const first = lines.find((l) => !l.quiet);
  if (!first || !DASH.test(first.text)) return undefined;
  const indent = first.indent;
  const groups: RawLine[][] = [];
  for (const line of lines) {
    if (!line.quiet && line.indent === indent && DASH.test(line.text)) groups.push([line]);
    else if (groups.length > 0) groups[groups.length - 1]!.push(line);
    else if (!line.quiet) return undefined;
  }
  const chunks: ItemChunk[] = [];
  for (const group of groups) {
    // Blank and comment lines at the dash column or left of it, after the item, lie between items.
    let last = group.length;
    while (last > 1 && group[last - 1]!.quiet && group[last - 1]!.indent <= indent) last -= 1;
    const chunk = chunkOf(group.slice(0, last), indent, text);
    if (!chunk) return undefined;
    chunks.push(chunk);
  }
  return { chunks, start, end, indent, keyEnd: keyAt + 'items'.length };
}
