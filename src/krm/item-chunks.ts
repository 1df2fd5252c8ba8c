/**
 * Splits a ResourceList's `items` block into one chunk per item, so each item is read on its own:
 * the parser's token tree then never holds the whole list at once, which bounds memory for large
 * packages. A chunk is a range of the input, not a copy: the fast reader reads it in place, and its
 * text (the item alone, dedented) is built only for an item that goes to the full parser.
 * Undefined when the text needs the full parser (anchors and aliases that may cross items, tags,
 * tabs, documents, or an `items` that is not a plain block sequence).
 */
import { BEYOND_LINE_SCAN, leadingWhiteSpace } from '../yaml/line-scan';

/** One item of the block: where it lies in the input and how its lines are dedented. */
export class ItemChunk {
  constructor(
    private readonly source: string,
    /** Offset of the item's `-` in the input, and where the item's text ends. */
    readonly dash: number,
    readonly end: number,
    /** Input line (1-based) of the chunk's first line, and the columns the dedent removed. */
    readonly line: number,
    readonly dedent: number,
    /** Where the item's content starts on the dash line (after `- `). */
    readonly bodyStart: number,
  ) {}

  /**
   * The item alone, dedented: a YAML document of its own. Its last line ends with a line break
   * where the input's does: at the end of an input without one, a block scalar's last line break
   * is not there (YAML 1.2 §8.1.1.2), in the item as in the list.
   */
  get text(): string {
    const lines: string[] = [];
    forEachChunkLine(this.source, this.bodyStart, this.end, this.dedent, (start, end) => lines.push(this.source.slice(start, end)));
    const broken = this.source.charCodeAt(this.end - 1) === 10;
    return broken ? `${lines.join('\n')}\n` : lines.join('\n');
  }
}

/**
 * The item's lines as its own document has them: the dash line from `bodyStart`, the others
 * without their first `dedent` columns, a blank or comment line left of that column trimmed.
 */
export function forEachChunkLine(source: string, bodyStart: number, end: number, dedent: number, line: (start: number, end: number) => void): void {
  let at = bodyStart;
  let first = true;
  while (at < end) {
    const newline = source.indexOf('\n', at);
    const lineEnd = newline === -1 || newline >= end ? end : newline;
    if (first) {
      line(at, lineEnd);
      first = false;
    } else {
      const indent = leadingWhiteSpace(source, at, lineEnd);
      line(at + Math.min(indent, dedent), lineEnd);
    }
    at = lineEnd + 1;
  }
}

export interface ItemsBlock {
  readonly chunks: readonly ItemChunk[];
  /** For `items: []`, where `[]` lies: new items replace it. */
  readonly emptyFlow?: readonly [number, number];
  /** The `items` block: its lines, without the `items:` line. */
  readonly start: number;
  readonly end: number;
  /** Column of the `-` indicators, and where the `items` key ends. */
  readonly indent: number;
  readonly keyEnd: number;
}

const ITEMS_KEY = /^items:[ \t]*(#.*)?$/gm;
const EMPTY_ITEMS = /^items:[ \t]*(\[\])[ \t]*(#.*)?$/dgm;

/** Whether the line holds nothing but white space or a comment. */
function isQuiet(text: string, contentAt: number, lineEnd: number): boolean {
  return contentAt === lineEnd || text.charCodeAt(contentAt) === 35;
}

/** Where `- ` (or a lone `-`) ends on a line whose content starts at `at`, or -1 when it is no dash line. */
function afterDash(text: string, at: number, lineEnd: number): number {
  if (text.charCodeAt(at) !== 45) return -1;
  if (at + 1 === lineEnd) return lineEnd;
  if (text.charCodeAt(at + 1) !== 32) return -1;
  let after = at + 1;
  while (after < lineEnd && text.charCodeAt(after) === 32) after += 1;
  return after;
}

/** An item being gathered: its dash line, and what later lines tell about its column. */
interface OpenItem {
  readonly dash: number;
  readonly line: number;
  readonly bodyStart: number;
  /** The item's column: where its content starts on the dash line, else on its first content line. */
  dedent: number | undefined;
  /** The end of its last line that is not a blank or comment line at or left of the dash column. */
  end: number;
  /** The least indentation of its content lines after the first. */
  minIndent: number;
}

function chunkOf(text: string, open: OpenItem, indent: number): ItemChunk | undefined {
  const { dedent } = open;
  if (dedent === undefined || dedent <= indent || open.minIndent < dedent) return undefined;
  return new ItemChunk(text, open.dash, Math.min(open.end + 1, text.length), open.line, dedent, open.bodyStart);
}

/** `items: []` alone: no items, the rest of the list a frame like any other (a fleet's List functionConfig). */
function emptyItems(text: string): ItemsBlock | undefined {
  const keys = [...text.matchAll(EMPTY_ITEMS)];
  if (keys.length !== 1 || text.match(/^items:/gm)!.length !== 1) return undefined;
  const keyAt = keys[0]!.index!;
  const [open, close] = keys[0]!.indices![1]!;
  return { chunks: [], emptyFlow: [open, close], start: keyAt, end: keyAt, indent: 0, keyEnd: keyAt + 'items'.length };
}

export function splitItems(text: string): ItemsBlock | undefined {
  if (BEYOND_LINE_SCAN.test(text)) return undefined;
  const keys = [...text.matchAll(ITEMS_KEY)];
  if (keys.length === 0) return emptyItems(text);
  if (keys.length !== 1) return undefined;
  const keyAt = keys[0]!.index!;
  const start = text.indexOf('\n', keyAt) + 1;
  if (start === 0) return undefined;
  // The block runs to the next top-level key.
  const next = /^[^\s#-]/m.exec(text.slice(start));
  const end = next ? start + next.index : text.length;
  let number = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < keyAt; at = text.indexOf('\n', at + 1)) number += 1;
  const chunks: ItemChunk[] = [];
  let indent = -1;
  let open: OpenItem | undefined;
  for (let at = start; at < end; ) {
    number += 1;
    const newline = text.indexOf('\n', at);
    const lineEnd = newline === -1 || newline >= end ? end : newline;
    const lineIndent = leadingWhiteSpace(text, at, lineEnd);
    const contentAt = at + lineIndent;
    const quiet = isQuiet(text, contentAt, lineEnd);
    const dashEnd = quiet ? -1 : afterDash(text, contentAt, lineEnd);
    if (!quiet && indent === -1) {
      if (dashEnd === -1) return undefined;
      indent = lineIndent;
    }
    if (dashEnd !== -1 && lineIndent === indent) {
      if (open) {
        const chunk = chunkOf(text, open, indent);
        if (!chunk) return undefined;
        chunks.push(chunk);
      }
      const inline = dashEnd !== lineEnd && text.charCodeAt(dashEnd) !== 35;
      open = { dash: contentAt, line: number, bodyStart: dashEnd, dedent: inline ? dashEnd - at : undefined, end: lineEnd, minIndent: Infinity };
    } else if (open) {
      if (!quiet) {
        open.dedent ??= lineIndent;
        open.minIndent = Math.min(open.minIndent, lineIndent);
      }
      // Blank and comment lines at the dash column or left of it, after the item, lie between items.
      if (!quiet || lineIndent > indent) open.end = lineEnd;
    } else if (!quiet) {
      return undefined;
    }
    at = lineEnd + 1;
  }
  if (!open) return undefined;
  const last = chunkOf(text, open, indent);
  if (!last) return undefined;
  chunks.push(last);
  return { chunks, start, end, indent, keyEnd: keyAt + 'items'.length };
}
