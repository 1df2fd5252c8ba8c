/**
 * The lines of a document, read one at a time from a range of a larger text: a document's lines are
 * never all held at once, and its strings are slices of the text, not of a copy. The range is a whole
 * file's document, or an item inside a ResourceList read in place (its lines after the first dedented
 * as the item's own text has them, see krm/item-chunks.ts).
 */
import { leadingWhiteSpace } from './line-scan';
import { outsideSubset } from './scalars';

export const BLANK = 0;
export const COMMENT = 1;
export const CONTENT = 2;

export interface Line {
  readonly indent: number;
  /** After the indentation, as written (a comment keeps its trailing spaces, as `yaml` keeps them). */
  readonly content: string;
  /** The whole line, for literals. */
  readonly raw: string;
  /** BLANK (spaces only), COMMENT or CONTENT. */
  readonly kind: number;
  /** A line break ends it. */
  readonly broken: boolean;
}

/**
 * Characters a line scan would take for white space or line breaks where YAML does not, or the other
 * way round: tabs, carriage returns, the line breaks of YAML 1.1 and of JavaScript's patterns, a
 * byte-order mark. Other spaces (no-break and the like) are content to YAML, and here.
 */
export const BREAKS_THE_LINE_SCAN = /[\t\r\f\v\u0085\u2028\u2029\ufeff]/;
/** Directives and document markers start a line only outside a document's content. */
export const DOCUMENT_LINE = /^(?:---|\.\.\.|%)/;

export interface LineRange {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /** Columns of leading white space each line after the first loses. */
  readonly dedent: number;
  /** Lines from `cut.start` to `cut.end` (both line starts) are passed over. */
  readonly cut?: { readonly start: number; readonly end: number };
  /** The lines were checked before (white space, markers): they need no second look. */
  readonly checked?: boolean;
}

const NO_CUT = { start: -1, end: -1 };

/** A cursor over the lines of a range; refuses (outsideSubset) a line this reading cannot take. */
export class LineCursor {
  private next: number;
  private line: Line | undefined;
  private readonly text: string;
  private readonly end: number;
  private readonly dedent: number;
  private readonly cut: { readonly start: number; readonly end: number };
  private readonly checked: boolean;

  constructor(range: LineRange) {
    this.text = range.text;
    this.end = range.end;
    this.dedent = range.dedent;
    this.cut = range.cut ?? NO_CUT;
    this.checked = range.checked ?? false;
    this.next = range.start;
    this.line = this.read(0);
  }

  /** The line at the cursor, blank and comment lines included. */
  get current(): Line | undefined {
    return this.line;
  }

  advance(): void {
    this.line = this.read(this.dedent);
  }

  /** Reads the line at the cursor again as `line` (a `- key:` line, as its map's first key). */
  replace(line: Line): void {
    this.line = line;
  }

  private read(dedent: number): Line | undefined {
    const { text, end } = this;
    if (this.next === this.cut.start) this.next = this.cut.end;
    const at = this.next;
    if (at >= end) return undefined;
    const newline = text.indexOf('\n', at);
    const broken = newline !== -1 && newline < end;
    const lineEnd = broken ? newline : end;
    this.next = lineEnd + 1;
    // Columns left of the dedent hold only white space: the item splitter checked that.
    const from = dedent > 0 ? at + Math.min(leadingWhiteSpace(text, at, lineEnd), dedent) : at;
    const raw = text.slice(from, lineEnd);
    // Only spaces count as YAML indentation and separation; other white space would be read differently.
    if (!this.checked && (BREAKS_THE_LINE_SCAN.test(raw) || DOCUMENT_LINE.test(raw))) outsideSubset();
    let indent = 0;
    while (raw.charCodeAt(indent) === 32) indent += 1;
    const content = indent === 0 ? raw : raw.slice(indent);
    const kind = content === '' ? BLANK : content.charCodeAt(0) === 35 ? COMMENT : CONTENT;
    return { indent, content, raw, kind, broken };
  }
}
