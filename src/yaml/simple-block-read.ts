/**
 * Reads the plain data of a document written in the simple block YAML that KRM packages are made
 * of (block maps and sequences, one-line scalars, comments), several times faster than building
 * `yaml`'s node tree. The result is exactly what `yaml` would give (`parse` with this project's
 * options), or undefined for anything outside that subset: flow collections or quoted scalars over
 * several lines, folded, kept or explicitly indented block scalars (`|` and `|-` are read), escapes,
 * anchors, tags, keys that are not plain strings, duplicate keys. Callers then use the full parser,
 * which also reports what is wrong.
 *
 * A fleet package's items are mostly read and left alone; their node trees are built only when
 * something edits them (see KrmResource), and then by this reader too where it can (simple-block-tree.ts):
 * what it reads, a `Build` makes, plain data here.
 */
import { leadingWhiteSpace } from './line-scan';
import { AcceptedStrings, outsideSubset, OutsideSubset, readsBackAsString, resolvePlainScalar } from './plain-scalars';

interface Line {
  indent: number;
  /** The line without its indentation and trailing spaces. */
  content: string;
  /** The line as written, for block scalars. */
  readonly raw: string;
  /** Blank, or only a comment: no structure, but content inside a block scalar. */
  readonly quiet: boolean;
}

const resolvePlain = (text: string): unknown => resolvePlainScalar(text, outsideSubset);

/** `key:` at the start of a line, the key plain (checked against the schema below) or simply quoted. */
export const KEY_LINE = /^(?:([A-Za-z_$/][\w$./@+-]*)|'([^']*)'|"([^"\\]*)"):(?: +|$)/;
export const PLAIN_KEY = /^[A-Za-z_$/][\w$./@+-]*$/;
const INTEGER_LIKE = /^\d/;

/**
 * The most keys a map read here may have. An object of millions of keys costs hundreds of bytes a
 * key while it grows; no KRM object comes near this, and a map beyond it goes to the parser, whose
 * budget refuses it (parse-budget.ts).
 */
export const MAX_MAP_KEYS = 100_000;

/** A key any object can hold: not one it could trip over, nor one it would reorder. */
const isOrdinaryKey = (key: string): boolean => key !== '__proto__' && !INTEGER_LIKE.test(key) && key.length <= 1000;
const PLAIN_KEYS = new AcceptedStrings((key) => PLAIN_KEY.test(key) && readsBackAsString(key) && isOrdinaryKey(key));

/** A key kept as written: plain ones no other tag claims, none an object could trip over. */
function checkKey(key: string, plain: boolean): string {
  if (!(plain ? PLAIN_KEYS.accepts(key) : isOrdinaryKey(key))) outsideSubset();
  return key;
}

/** A key as written: its text, and its spelling when quoted. */
interface Key {
  readonly key: string;
  readonly quoted?: string;
}

function readKey(content: string): Key & { rest: string } {
  const match = KEY_LINE.exec(content) ?? outsideSubset();
  const plain = match[1] !== undefined;
  const key = checkKey(match[1] ?? match[2] ?? match[3]!, plain);
  const rest = content.slice(match[0].length);
  return plain ? { key, rest } : { key, quoted: match[0].slice(0, match[0].lastIndexOf(':')), rest };
}

/**
 * How the reader makes what it reads: plain data (PLAIN_DATA below), or `yaml` nodes
 * (simple-block-tree.ts). Each method may refuse with outsideSubset().
 */
export interface Build<N> {
  /**
   * Whether blank lines, comment lines, comments after `key:` or `-` and trailing spaces are passed
   * over; a builder that keeps comments cannot place them, and refuses them.
   */
  readonly lenient: boolean;
  plain(text: string): N;
  /** A quoted scalar: its value, and its text with the quotes. */
  quoted(value: string, spelling: string): N;
  /** The value of a `|` scalar, or of a `|-` one (`strip`). */
  literal(value: string, strip: boolean): N;
  /** Nothing after `key:` or `-`, and nothing below. */
  empty(): N;
  /** A comment after a scalar or flow collection on its line, `#` and all. */
  comment(node: N, comment: string): void;
  map(flow: boolean): N;
  /** Adds a pair; refuses a key the map has. */
  set(map: N, key: Key, value: N): void;
  seq(flow: boolean): N;
  push(seq: N, item: N): void;
}

const PLAIN_DATA: Build<unknown> = {
  lenient: true,
  plain: (text) => resolvePlain(text),
  quoted: (value) => value,
  literal: (value) => value,
  empty: () => null,
  comment: () => undefined,
  map: () => ({}),
  set(map, { key }, value) {
    if (Object.prototype.hasOwnProperty.call(map, key)) outsideSubset();
    (map as Record<string, unknown>)[key] = value;
  },
  seq: () => [],
  push: (seq, item) => void (seq as unknown[]).push(item),
};

/** After a closing quote or bracket: only spaces and a comment may follow; the comment, if any. */
function trailingComment(trailer: string): string | undefined {
  if (trailer === '') return undefined;
  const match = /^ +(#.*)?$/.exec(trailer) ?? outsideSubset();
  return match[1];
}

/** Characters that make a plain scalar start as something else (YAML 1.2 §7.3.3 indicators). */
export const INDICATOR_START = /^[[\]{},#&*!|>'"%@`?:]|^-(?: |$)/;

export interface Read<T> {
  readonly value: T;
  /** The offset after what was read. */
  readonly end: number;
}

/** A quoted scalar that starts at `at` and closes on the same line, without escapes in double quotes. */
export function quoted(text: string, at: number): Read<string> {
  if (text[at] === '"') {
    const quote = text.indexOf('"', at + 1);
    if (quote === -1 || text.slice(at + 1, quote).includes('\\')) outsideSubset();
    return { value: text.slice(at + 1, quote), end: quote + 1 };
  }
  let value = '';
  for (let from = at + 1; ; ) {
    const quote = text.indexOf("'", from);
    if (quote === -1) outsideSubset();
    value += text.slice(from, quote);
    if (text[quote + 1] !== "'") return { value, end: quote + 1 };
    value += "'";
    from = quote + 2;
  }
}

function quotedNode<N>(build: Build<N>, text: string, at: number): Read<N> {
  const read = quoted(text, at);
  return { value: build.quoted(read.value, text.slice(at, read.end)), end: read.end };
}

export const isQuote = (char: string | undefined): boolean => char === "'" || char === '"';

/** Where a plain scalar in a flow collection ends: a flow indicator, `: `, or `:` before one. */
const FLOW_PLAIN_END = /[,[\]{}]|:(?=[ ,[\]{}]|$)/g;

export function skipSpaces(text: string, at: number): number {
  while (text[at] === ' ') at += 1;
  return at;
}

/**
 * A flow collection or scalar on one line (YAML 1.2 §7.4): `{a: b, c: [d]}`. Not read: implicit
 * keys and pairs without values, trailing commas, comments or line breaks inside.
 */
function flowNode<N>(build: Build<N>, text: string, start: number): Read<N> {
  const at = skipSpaces(text, start);
  if (text[at] === '{') return flowMap(build, text, at + 1);
  if (text[at] === '[') return flowSeq(build, text, at + 1);
  if (isQuote(text[at])) return quotedNode(build, text, at);
  const plain = flowPlain(text, at);
  return { value: build.plain(plain.value), end: plain.end };
}

export function flowPlain(text: string, at: number): Read<string> {
  FLOW_PLAIN_END.lastIndex = at;
  const end = FLOW_PLAIN_END.exec(text)?.index ?? text.length;
  const value = text.slice(at, end).replace(TRAILING_SPACES, '');
  if (value === '' || INDICATOR_START.test(value) || value.includes(' #')) outsideSubset();
  return { value, end };
}

/** Past the spaces after an entry: the offset after `,` (with more to come) or after `close`. */
export function afterEntry(text: string, at: number, close: string): { end: number; closed: boolean } {
  const next = skipSpaces(text, at);
  if (text[next] === close) return { end: next + 1, closed: true };
  if (text[next] !== ',' || text[skipSpaces(text, next + 1)] === close) outsideSubset();
  return { end: next + 1, closed: false };
}

function flowMap<N>(build: Build<N>, text: string, start: number): Read<N> {
  const map = build.map(true);
  let at = skipSpaces(text, start);
  if (text[at] === '}') return { value: map, end: at + 1 };
  for (let keys = 1; ; keys += 1) {
    if (keys > MAX_MAP_KEYS) outsideSubset();
    at = skipSpaces(text, at);
    const isQuoted = isQuote(text[at]);
    const key = isQuoted ? quoted(text, at) : flowPlain(text, at);
    if (text[key.end] !== ':' || text[key.end + 1] !== ' ') outsideSubset();
    const value = flowNode(build, text, key.end + 2);
    const name = checkKey(key.value, !isQuoted);
    build.set(map, isQuoted ? { key: name, quoted: text.slice(at, key.end) } : { key: name }, value.value);
    const next = afterEntry(text, value.end, '}');
    if (next.closed) return { value: map, end: next.end };
    at = next.end;
  }
}

function flowSeq<N>(build: Build<N>, text: string, start: number): Read<N> {
  const seq = build.seq(true);
  let at = skipSpaces(text, start);
  if (text[at] === ']') return { value: seq, end: at + 1 };
  for (;;) {
    const item = flowNode(build, text, at);
    // `[a: b]` is a map inside the list; left to the parser.
    if (text[item.end] === ':') outsideSubset();
    build.push(seq, item.value);
    const next = afterEntry(text, item.end, ']');
    if (next.closed) return { value: seq, end: next.end };
    at = next.end;
  }
}

/** A one-line scalar or flow collection after `key: ` or `- `, with an optional comment. */
function readScalar<N>(build: Build<N>, text: string): N {
  if (isQuote(text[0]) || text[0] === '{' || text[0] === '[') {
    const read = flowNode(build, text, 0);
    const comment = trailingComment(text.slice(read.end));
    if (comment !== undefined) build.comment(read.value, comment);
    return read.value;
  }
  if (INDICATOR_START.test(text)) outsideSubset();
  const comment = text.indexOf(' #');
  const value = (comment === -1 ? text : text.slice(0, comment)).replace(TRAILING_SPACES, '');
  if (value.includes(': ') || value.endsWith(':')) outsideSubset();
  const node = build.plain(value);
  if (comment !== -1) build.comment(node, text.slice(comment + 1));
  return node;
}

/** `|` or `|-`, and perhaps a comment. */
const LITERAL_HEADER = /^\|(-?)(?: +#.*)?$/;

export const isSeqEntry = (content: string): boolean => content === '-' || content.startsWith('- ');

/**
 * The lines of a document, read one at a time from a range of a larger text: the document's lines
 * are never all held at once, and its strings are slices of the text, not of a copy.
 */
class LineCursor {
  private next: number;
  private line: Line | undefined;

  /**
   * Lines from `start` to `end`; after the first, each loses up to `dedent` columns of leading white
   * space. The lines from `cut.start` to `cut.end` (both line starts) are passed over. `checked`:
   * the lines were read before, so their white space and markers need no second look.
   */
  constructor(
    private readonly text: string,
    start: number,
    private readonly end: number,
    private readonly dedent: number,
    private readonly cut: { readonly start: number; readonly end: number } = { start: -1, end: -1 },
    private readonly checked = false,
  ) {
    this.next = start;
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
    const lineEnd = newline === -1 || newline >= end ? end : newline;
    this.next = lineEnd + 1;
    // Columns left of the dedent hold only white space: the item splitter checked that.
    const from = dedent > 0 ? at + Math.min(leadingWhiteSpace(text, at, lineEnd), dedent) : at;
    const raw = text.slice(from, lineEnd);
    // Only spaces count as YAML indentation and separation; other white space would be read differently.
    if (!this.checked && (OTHER_WHITE_SPACE.test(raw) || DOCUMENT_LINE.test(raw))) outsideSubset();
    let indent = 0;
    while (raw.charCodeAt(indent) === 32) indent += 1;
    const content = raw.slice(indent).replace(TRAILING_SPACES, '');
    return { indent, content, raw, quiet: content === '' || content.charCodeAt(0) === 35 };
  }
}

/** Directives and document markers start a line only outside a document's content. */
const DOCUMENT_LINE = /^(?:---|\.\.\.|%)/;

class BlockReader<N> {
  constructor(
    private readonly build: Build<N>,
    private readonly lines: LineCursor,
  ) {}

  /** The document: one map at column 0 that takes every line. */
  document(): N {
    const first = this.current;
    if (!first || first.indent !== 0 || isSeqEntry(first.content)) outsideSubset();
    const value = this.map(0);
    if (this.current !== undefined) outsideSubset();
    return value;
  }

  /** The next line with structure, past blank and comment lines (where the builder takes them). */
  private get current(): Line | undefined {
    if (this.build.lenient) {
      while (this.lines.current?.quiet) this.lines.advance();
    } else if (this.lines.current?.quiet || this.lines.current?.raw.endsWith(' ')) {
      outsideSubset();
    }
    return this.lines.current;
  }

  /** The block node that starts on the current line, more indented than `parentIndent`. */
  private node(parentIndent: number): N {
    const line = this.current!;
    if (line.indent <= parentIndent) outsideSubset();
    return isSeqEntry(line.content) ? this.seq(line.indent) : this.map(line.indent);
  }

  /** The value of `key:` or `-` with nothing after it on the line but a comment: a node below, or nothing. */
  private valueBelow(ownerIndent: number, compactSeq: boolean, rest: string): N {
    if (rest !== '' && !this.build.lenient) outsideSubset();
    const next = this.current;
    if (next === undefined || next.indent < ownerIndent) return this.build.empty();
    if (next.indent === ownerIndent) return compactSeq && isSeqEntry(next.content) ? this.seq(ownerIndent) : this.build.empty();
    return this.node(ownerIndent);
  }

  /** A scalar on its owner's line: no line below may be deeper (that would continue the scalar). */
  private inlineValue(text: string, ownerIndent: number): N {
    const literal = LITERAL_HEADER.exec(text);
    const value = literal ? this.build.literal(this.literal(ownerIndent, literal[1] === '-'), literal[1] === '-') : readScalar(this.build, text);
    const next = this.current;
    if (next !== undefined && next.indent > ownerIndent) outsideSubset();
    return value;
  }

  /**
   * The lines of a `|` or `|-` scalar (YAML 1.2 §8.1.2): indented as its first non-blank line,
   * which must be deeper than the owner; blank lines inside are kept, trailing ones chomped.
   */
  private literal(ownerIndent: number, strip: boolean): string {
    const body: Line[] = [];
    let indent: number | undefined;
    for (let line = this.lines.current; line !== undefined; line = this.lines.current) {
      if (line.content !== '') {
        indent ??= line.indent > ownerIndent ? line.indent : undefined;
        if (indent === undefined || line.indent < indent) break;
      }
      body.push(line);
      this.lines.advance();
    }
    if (indent === undefined) return '';
    // Only spaces, no more than the indentation: an empty line. With more, it is text (spaces), except
    // before the first text, where YAML forbids it.
    const empty = (line: Line) => line.content === '' && line.raw.length <= indent!;
    const first = body.findIndex((line) => line.content !== '');
    if (body.slice(0, first).some((line) => !empty(line))) outsideSubset();
    let last = body.length;
    while (empty(body[last - 1]!)) last -= 1;
    const text = body.slice(0, last).map((line) => line.raw.slice(indent)).join('\n');
    return strip ? text : `${text}\n`;
  }

  private map(indent: number): N {
    const map = this.build.map(false);
    let keys = 0;
    for (let line = this.current; line !== undefined && line.indent >= indent; line = this.current) {
      if (line.indent > indent || isSeqEntry(line.content) || (keys += 1) > MAX_MAP_KEYS) outsideSubset();
      // The key as read is the Key builders take (its `rest` aside): no copy of it for each line.
      const key = readKey(line.content);
      const { rest } = key;
      this.lines.advance();
      this.build.set(map, key, rest === '' || rest.startsWith('#') ? this.valueBelow(indent, true, rest) : this.inlineValue(rest, indent));
    }
    return map;
  }

  private seq(indent: number): N {
    const seq = this.build.seq(false);
    for (let line = this.current; line !== undefined && line.indent === indent && isSeqEntry(line.content); line = this.current) {
      const after = line.content.slice(1).replace(LEADING_SPACES, '');
      if (after === '' || after.startsWith('#')) {
        this.lines.advance();
        this.build.push(seq, this.valueBelow(indent, false, after));
      } else if (isSeqEntry(after)) {
        outsideSubset();
      } else if (KEY_LINE.test(after)) {
        // `- key: value`: a map whose column is where its first key starts; the line is re-read as that key.
        const mapIndent = indent + line.content.length - after.length;
        this.lines.replace({ ...line, indent: mapIndent, content: after });
        this.build.push(seq, this.map(mapIndent));
      } else {
        this.lines.advance();
        this.build.push(seq, this.inlineValue(after, indent));
      }
    }
    if (this.current !== undefined && this.current.indent > indent) outsideSubset();
    return seq;
  }
}

export const OTHER_WHITE_SPACE = /[\t\r\f\v\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;
const LEADING_SPACES = /^ */;
export const TRAILING_SPACES = / +$/;

/**
 * The data of the document in `text` from `start` to `end` (lines after the first lose `dedent`
 * columns: an item of a list read in place) when it is a map in the simple subset; undefined otherwise.
 */
export function readSimpleBlockRange(text: string, start: number, end: number, dedent: number): Record<string, unknown> | undefined {
  return readWith(PLAIN_DATA, () => new LineCursor(text, start, end, dedent)) as Record<string, unknown> | undefined;
}

/** What `build` makes of the document on the lines, or undefined when something on them is outside its subset. */
function readWith<N>(build: Build<N>, lines: () => LineCursor): N | undefined {
  try {
    return new BlockReader(build, lines()).document();
  } catch (error) {
    // Deep nesting overflows the stack here first; the parser then says what is wrong.
    if (error instanceof OutsideSubset || error instanceof RangeError) return undefined;
    throw error;
  }
}

/** The same as readSimpleBlockRange, made by `build`; `read`: readSimpleBlockRange took these lines. */
export function readBlockRange<N>(build: Build<N>, text: string, start: number, end: number, dedent: number, read = false): N | undefined {
  return readWith(build, () => new LineCursor(text, start, end, dedent, undefined, read));
}

/** The document's data when it is a map in the simple subset; undefined otherwise. */
export function readSimpleBlockMap(text: string): Record<string, unknown> | undefined {
  return readSimpleBlockRange(text, 0, text.length, 0);
}

/**
 * The same for `text` without its lines from `cutStart` to `cutEnd` (both line starts): a list's
 * frame without its items, read in place, not from a copy of what is left.
 */
export function readSimpleBlockWithout(text: string, cutStart: number, cutEnd: number): Record<string, unknown> | undefined {
  return readWith(PLAIN_DATA, () => new LineCursor(text, 0, text.length, 0, { start: cutStart, end: cutEnd })) as Record<string, unknown> | undefined;
}
