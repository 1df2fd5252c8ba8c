/**
 * Reads a document written in the simple block YAML that KRM packages are made of, straight from its
 * lines, several times faster than `yaml`'s lexer, parser and composer: a map at column 0 of block
 * maps and sequences, scalars (plain, quoted, double-quoted with escapes; a map's values also over
 * several lines, folded), one-line flow collections, `|` and `|-` literals, comments and blank
 * lines. What it reads, a `Build` makes: plain data (data-reader.ts) or `yaml`'s node tree
 * (tree-builder.ts), exactly what `yaml` gives for the text.
 *
 * Anything else is refused (outsideSubset) and the caller parses, which also reports what is wrong:
 * flow collections over several lines, scalars over several lines in a list, a backslash at the end
 * of a double-quoted scalar's line, folded, kept or explicitly indented block scalars, anchors,
 * tags, keys that are not strings, duplicate keys, collections nested deeper than the parser's
 * bound (nesting-depth.ts, which the parser's budget then applies), and, for a builder that keeps
 * comments, comments where the rules encoded here (comment-props.ts) do not say where `yaml` files
 * them (deeper than the value before them, around values left empty).
 */
import { commentText, endComment, preludeComment, propsOf, Props } from './comment-props';
import { foldedValue, type FoldedStyle } from './folded-scalar';
import { BLANK, COMMENT, CONTENT, type Line, type LineCursor } from './lines';
import { MAX_NESTING_DEPTH } from './nesting-depth';
import { closingQuote, isQuote, outsideSubset, quoted, type Read } from './scalars';

/** A key as written: its text, and its spelling with the quotes when quoted. */
export interface Key {
  readonly key: string;
  readonly quoted?: string;
}

/** How the reader makes what it reads. Each method may refuse with outsideSubset(). */
export interface Build<N, K> {
  /**
   * Whether comments and blank lines are kept: the reader then places them as `yaml` does (or
   * refuses where it cannot), and calls `before` and `after`. Otherwise they are passed over.
   */
  readonly comments: boolean;
  plain(text: string): N;
  /** A quoted scalar: its value, and its text with the quotes. */
  quoted(value: string, spelling: string): N;
  /** A plain or quoted scalar written over several lines, its value folded: `yaml` keeps no spelling of it. */
  folded(value: string, style: FoldedStyle): N;
  /** The value of a `|` scalar, or of a `|-` one (`strip`). */
  literal(value: string, strip: boolean): N;
  /** Nothing after `key:` or `-`, and nothing below. */
  empty(): N;
  key(key: Key): K;
  map(flow: boolean): N;
  /** Adds a pair; refuses a key the map has. */
  set(map: N, key: K, value: N): void;
  seq(flow: boolean): N;
  push(seq: N, item: N): void;
  /** Comment lines before a node, joined by line breaks (undefined: none), and whether a blank line comes first. */
  before(node: N | K, comment: string | undefined, spaceBefore: boolean): void;
  /** A comment after a node: on its line, or after a collection on lines of its own. */
  after(node: N | K, comment: string): void;
}

/** `key:` at the start of a line, the key plain (checked by the builder) or simply quoted. */
export const KEY_LINE = /^(?:([A-Za-z_$/][\w$./@+-]*)|'([^']*)'|"([^"\\]*)"):(?: +|$)/;
export const PLAIN_KEY = /^[A-Za-z_$/][\w$./@+-]*$/;
/** Characters that make a plain scalar start as something else (YAML 1.2 §7.3.3 indicators). */
const INDICATOR_START = /^[[\]{},#&*!|>'"%@`?:]|^-(?: |$)/;
/** `|` or `|-`, perhaps spaces, perhaps a comment. */
const LITERAL_HEADER = /^\|(-?)(?: +(#.*)?)?$/;
/** Where a plain scalar in a flow collection ends: a flow indicator, `: `, or `:` before one. */
const FLOW_PLAIN_END = /[,[\]{}]|:(?=[ ,[\]{}]|$)/g;
const TRAILING_SPACES = / +$/;
const LEADING_SPACES = /^ */;

/**
 * The most keys a map read here may have. An object of millions of keys costs hundreds of bytes a
 * key while it grows; no KRM object comes near this, and a map beyond it goes to the parser, whose
 * budget refuses it (parse-budget.ts).
 */
export const MAX_MAP_KEYS = 100_000;
/** A longer key is written `? key` by `yaml`; keys this long are left to it. */
const MAX_KEY_LENGTH = 1000;

const NO_LINES: readonly Line[] = [];

export const isSeqEntry = (content: string): boolean => content === '-' || content.startsWith('- ');

function skipSpaces(text: string, at: number): number {
  while (text[at] === ' ') at += 1;
  return at;
}

/** After a closing quote or bracket: only spaces and a comment may follow; the comment, if any. */
function trailingComment(trailer: string): string | undefined {
  if (trailer === '') return undefined;
  const match = /^ +(#.*)?$/.exec(trailer) ?? outsideSubset();
  return match[1];
}

/** A key line's key and what follows it. */
function readKey(content: string): Key & { rest: string } {
  const match = KEY_LINE.exec(content) ?? outsideSubset();
  const key = match[1] ?? match[2] ?? match[3]!;
  if (key.length > MAX_KEY_LENGTH) outsideSubset();
  const rest = content.slice(match[0].length);
  return match[1] !== undefined ? { key, rest } : { key, quoted: match[0].slice(0, match[0].lastIndexOf(':')), rest };
}

/** A plain scalar in a flow collection, up to where it ends. */
function flowPlain(text: string, at: number): Read<string> {
  FLOW_PLAIN_END.lastIndex = at;
  const end = FLOW_PLAIN_END.exec(text)?.index ?? text.length;
  const value = text.slice(at, end).replace(TRAILING_SPACES, '');
  if (value === '' || INDICATOR_START.test(value) || value.includes(' #')) outsideSubset();
  return { value, end };
}

/** Past the spaces after an entry: the offset after `,` (with more to come) or after `close`. */
function afterEntry(text: string, at: number, close: string): { end: number; closed: boolean } {
  const next = skipSpaces(text, at);
  if (text[next] === close) return { end: next + 1, closed: true };
  if (text[next] !== ',' || text[skipSpaces(text, next + 1)] === close) outsideSubset();
  return { end: next + 1, closed: false };
}

/** One-line scalars and flow collections (YAML 1.2 §7.4), made by `build`. */
class FlowReader<N, K> {
  constructor(private readonly build: Build<N, K>) {}

  /**
   * A flow collection or scalar on one line: `{a: b, c: [d]}`, `depth` collections deep. Not read:
   * implicit keys and pairs without values, trailing commas, comments or line breaks inside.
   */
  node(text: string, start: number, depth: number): Read<N> {
    const at = skipSpaces(text, start);
    if ((text[at] === '{' || text[at] === '[') && depth >= MAX_NESTING_DEPTH) outsideSubset();
    if (text[at] === '{') return this.map(text, at + 1, depth + 1);
    if (text[at] === '[') return this.seq(text, at + 1, depth + 1);
    if (isQuote(text[at])) return this.quoted(text, at);
    const plain = flowPlain(text, at);
    return { value: this.build.plain(plain.value), end: plain.end };
  }

  private quoted(text: string, at: number): Read<N> {
    const read = quoted(text, at);
    return { value: this.build.quoted(read.value, text.slice(at, read.end)), end: read.end };
  }

  private map(text: string, start: number, depth: number): Read<N> {
    const { build } = this;
    const map = build.map(true);
    let at = skipSpaces(text, start);
    if (text[at] === '}') return { value: map, end: at + 1 };
    for (let keys = 1; ; keys += 1) {
      if (keys > MAX_MAP_KEYS) outsideSubset();
      at = skipSpaces(text, at);
      const isQuoted = isQuote(text[at]);
      const read = isQuoted ? quoted(text, at) : flowPlain(text, at);
      if (read.value.length > MAX_KEY_LENGTH || (!isQuoted && !PLAIN_KEY.test(read.value))) outsideSubset();
      if (text[read.end] !== ':' || text[read.end + 1] !== ' ') outsideSubset();
      const key = build.key(isQuoted ? { key: read.value, quoted: text.slice(at, read.end) } : { key: read.value });
      const value = this.node(text, read.end + 2, depth);
      build.set(map, key, value.value);
      const next = afterEntry(text, value.end, '}');
      if (next.closed) return { value: map, end: next.end };
      at = next.end;
    }
  }

  private seq(text: string, start: number, depth: number): Read<N> {
    const seq = this.build.seq(true);
    let at = skipSpaces(text, start);
    if (text[at] === ']') return { value: seq, end: at + 1 };
    for (;;) {
      const item = this.node(text, at, depth);
      // `[a: b]` is a map inside the list; left to the parser.
      if (text[item.end] === ':') outsideSubset();
      this.build.push(seq, item.value);
      const next = afterEntry(text, item.end, ']');
      if (next.closed) return { value: seq, end: next.end };
      at = next.end;
    }
  }
}

/** Reads one document from its lines, as `build` makes it; see the top of this file for what it reads. */
export class BlockReader<N, K> {
  /** The document's own comments, for a builder that keeps them: before its content, and after it. */
  commentBefore = '';
  comment = '';
  private readonly keep: boolean;
  private readonly flow: FlowReader<N, K>;
  /** Blank and comment lines passed since the last ones taken, for a builder that keeps them. */
  private gap: Line[] | undefined;
  /** Block collections open. */
  private depth = 0;

  constructor(
    private readonly build: Build<N, K>,
    private readonly lines: LineCursor,
  ) {
    this.keep = build.comments;
    this.flow = new FlowReader(build);
  }

  /** The document: one map at column 0 that takes every line. */
  document(): N {
    const first = this.content();
    if (!first || first.indent !== 0 || isSeqEntry(first.content)) outsideSubset();
    let leading: string | undefined;
    if (this.keep) {
      const prelude = preludeComment(this.takeGap());
      if (prelude.afterEmptyLine) this.commentBefore = prelude.comment;
      else if (prelude.comment) leading = prelude.comment;
    }
    const root = this.map(0, leading);
    if (this.content() !== undefined) outsideSubset();
    if (this.keep) this.comment = endComment(this.takeGap());
    return root;
  }

  /** The next line with content, past blank and comment lines (kept in the gap where the builder keeps them). */
  private content(): Line | undefined {
    const { lines } = this;
    for (let line = lines.current; line !== undefined; line = lines.current) {
      if (line.kind === CONTENT) return line;
      if (this.keep) (this.gap ??= []).push(line);
      lines.advance();
    }
    return undefined;
  }

  /** The blank and comment lines passed since the last ones taken, taken. */
  private takeGap(): readonly Line[] {
    const gap = this.gap ?? NO_LINES;
    this.gap = undefined;
    return gap;
  }

  /**
   * After an entry whose value sits on its line (a scalar, a flow collection, a literal), a comment
   * deeper than the entry is the value's own in `yaml`; those are left to the parser.
   */
  private checkAfterLineValue(indent: number): void {
    const comment = this.gap?.find((line) => line.kind === COMMENT);
    if (comment && comment.indent > indent) outsideSubset();
  }

  /**
   * Where a block collection ends, the comments after it are its own when one is at least as
   * indented as its entries (not at column 0); otherwise they go on to what follows.
   */
  private end(collection: N, indent: number, lineValue: boolean): void {
    if (lineValue) this.checkAfterLineValue(indent);
    if (indent === 0 || !this.gap?.some((line) => line.kind === COMMENT && line.indent >= indent)) return;
    this.build.after(collection, propsOf(this.takeGap()).comment);
  }

  /** One block collection more open; a refusal ends the whole read, so only a collection read to its end closes. */
  private open(): void {
    if (this.depth >= MAX_NESTING_DEPTH) outsideSubset();
    this.depth += 1;
  }

  /** A block map at `indent`; `leading`: comment lines its first key takes before its own. */
  private map(indent: number, leading?: string): N {
    this.open();
    const map = this.mapAt(indent, leading);
    this.depth -= 1;
    return map;
  }

  private mapAt(indent: number, leading?: string): N {
    const { build, keep } = this;
    const map = build.map(false);
    let keys = 0;
    let lineValue = false;
    for (let line = this.content(); line !== undefined && line.indent >= indent; line = this.content()) {
      if (line.indent > indent || isSeqEntry(line.content) || (keys += 1) > MAX_MAP_KEYS) outsideSubset();
      // The key as read is the Key builders take (its `rest` aside): no copy of it for each line.
      const read = readKey(line.content);
      const key = build.key(read);
      if (keep) {
        if (lineValue) this.checkAfterLineValue(indent);
        const gap = this.takeGap();
        if (gap.length > 0 || leading !== undefined) {
          const { comment, spaceBefore } = propsOf(gap);
          build.before(key, leading === undefined ? comment || undefined : comment ? `${leading}\n${comment}` : leading, spaceBefore);
          leading = undefined;
        }
      }
      this.lines.advance();
      const { rest } = read;
      if (rest === '' || rest.startsWith('#')) {
        build.set(map, key, this.valueBelow(key, rest, indent));
        lineValue = false;
      } else {
        build.set(map, key, this.lineValue(rest, indent, true));
        lineValue = true;
      }
    }
    if (keep) this.end(map, indent, lineValue);
    return map;
  }

  /**
   * The value of `key:` with nothing after it but perhaps a comment: the block collection on the
   * lines below (a sequence may start at the key's own column), or nothing. Comments and blank
   * lines before the collection are its own; the comment on the key's line goes to the key, as kpt
   * has it.
   */
  private valueBelow(key: K, keyLineComment: string, indent: number): N {
    const next = this.content();
    const nested = next !== undefined && (next.indent > indent || (next.indent === indent && isSeqEntry(next.content)));
    if (!nested) {
      // An empty value: `yaml` shares the lines around it between it and the next entry; not encoded.
      if (this.keep && (keyLineComment !== '' || this.gap !== undefined)) outsideSubset();
      return this.build.empty();
    }
    if (!this.keep) return this.collection(next);
    const props = new Props(false);
    if (keyLineComment) props.addComment(keyLineComment);
    props.addNewline();
    props.addLines(this.takeGap());
    const node = this.collection(next);
    if (keyLineComment) {
      // Its first line is the key's; the rest (perhaps only a line break) the collection's.
      const lineBreak = props.comment.indexOf('\n');
      this.build.after(key, lineBreak === -1 ? props.comment : props.comment.slice(0, lineBreak));
      this.build.before(node, lineBreak === -1 ? undefined : props.comment.slice(lineBreak + 1), props.spaceBefore);
    } else {
      this.build.before(node, props.comment || undefined, props.spaceBefore);
    }
    return node;
  }

  /** The block sequence or map that starts on `line`. */
  private collection(line: Line): N {
    return isSeqEntry(line.content) ? this.seq(line.indent) : this.map(line.indent);
  }

  /**
   * A value that starts on its owner's line: a literal, or a scalar or flow collection with perhaps
   * a comment. A scalar may go on over deeper lines where `folds`; no other line below may be deeper.
   */
  private lineValue(text: string, ownerIndent: number, folds: boolean): N {
    const literal = LITERAL_HEADER.exec(text);
    let node: N;
    if (literal) {
      // A comment on the header is filed in ways not encoded here.
      if (this.keep && literal[2] !== undefined) outsideSubset();
      const strip = literal[1] === '-';
      node = this.build.literal(this.literal(ownerIndent, strip), strip);
    } else {
      node = this.scalar(text, folds ? ownerIndent : undefined);
    }
    const next = this.content();
    if (next !== undefined && next.indent > ownerIndent) outsideSubset();
    return node;
  }

  /**
   * A scalar or a one-line flow collection, with an optional comment after it; a scalar goes on over
   * the lines below that are deeper than `foldAbove`, where that is given.
   */
  private scalar(text: string, foldAbove?: number): N {
    let node: N;
    let comment: string | undefined;
    if (isQuote(text[0]) || text[0] === '{' || text[0] === '[') {
      if (foldAbove !== undefined && isQuote(text[0]) && closingQuote(text, 1, text[0]!) === -1) return this.foldedQuoted(text, foldAbove);
      const read = this.flow.node(text, 0, this.depth);
      node = read.value;
      comment = trailingComment(text.slice(read.end));
    } else {
      if (INDICATOR_START.test(text)) outsideSubset();
      const hash = text.indexOf(' #');
      const value = (hash === -1 ? text : text.slice(0, hash)).replace(TRAILING_SPACES, '');
      if (value.includes(': ') || value.endsWith(':')) outsideSubset();
      if (hash === -1 && foldAbove !== undefined) return this.plainLines(value, foldAbove);
      node = this.build.plain(value);
      if (hash !== -1) comment = text.slice(hash + 1);
    }
    if (comment !== undefined && this.keep) this.build.after(node, commentText(comment));
    return node;
  }

  /** A plain scalar, `first` its first line, and the lines below deeper than `ownerIndent` that go on with it. */
  private plainLines(first: string, ownerIndent: number): N {
    const { lines } = this;
    const parts = [first];
    const blanks: Line[] = [];
    for (let line = lines.current; line !== undefined; line = lines.current) {
      if (line.kind === BLANK) {
        blanks.push(line);
      } else if (line.kind === CONTENT && line.indent > ownerIndent) {
        const text = line.content.replace(TRAILING_SPACES, '');
        if (INDICATOR_START.test(text) || text.includes(': ') || text.endsWith(':') || text.includes(' #')) outsideSubset();
        parts.push(...blanks.map(() => ''), text);
        blanks.length = 0;
      } else {
        break;
      }
      lines.advance();
    }
    // Blank lines after the scalar are the gap before what follows, as content() takes them.
    if (this.keep && blanks.length > 0) (this.gap ??= []).push(...blanks);
    return parts.length === 1 ? this.build.plain(first) : this.build.folded(foldedValue(parts, 'PLAIN'), 'PLAIN');
  }

  /** A quoted scalar that closes on a line below, `text` its first line from the opening quote. */
  private foldedQuoted(text: string, ownerIndent: number): N {
    const { lines } = this;
    const mark = text[0]!;
    const parts = [text.slice(1)];
    for (let line = lines.current; ; line = lines.current) {
      // Its lines are deeper than its owner; otherwise the parser says what is wrong.
      if (line === undefined || (line.kind !== BLANK && line.indent <= ownerIndent)) outsideSubset();
      lines.advance();
      const close = closingQuote(line.content, 0, mark);
      if (close === -1) {
        parts.push(line.content);
        continue;
      }
      parts.push(line.content.slice(0, close));
      const style = mark === '"' ? 'QUOTE_DOUBLE' : 'QUOTE_SINGLE';
      const node = this.build.folded(foldedValue(parts, style), style);
      const comment = trailingComment(line.content.slice(close + 1));
      if (comment !== undefined && this.keep) this.build.after(node, commentText(comment));
      return node;
    }
  }

  /**
   * The lines of a `|` or `|-` scalar (YAML 1.2 §8.1.2): indented as its first non-blank line,
   * which must be deeper than the owner; blank lines inside are kept, trailing ones chomped. `|`
   * keeps the last line's break only where there is one (§8.1.1.2): not at the end of a text
   * without a final line break, where `yaml` adds one.
   */
  private literal(ownerIndent: number, strip: boolean): string {
    const { lines } = this;
    const body: Line[] = [];
    let indent: number | undefined;
    for (let line = lines.current; line !== undefined; line = lines.current) {
      if (line.kind !== BLANK) {
        indent ??= line.indent > ownerIndent ? line.indent : undefined;
        if (indent === undefined || line.indent < indent) break;
      }
      body.push(line);
      lines.advance();
    }
    if (indent === undefined) {
      // An empty literal, and blank lines after the text, are filed in ways not encoded here.
      if (this.keep) outsideSubset();
      return '';
    }
    // Only spaces, no more than the indentation: an empty line. With more, it is text (spaces), except
    // before the first text, where YAML forbids it.
    const empty = (line: Line) => line.kind === BLANK && line.raw.length <= indent!;
    const first = body.findIndex((line) => line.kind !== BLANK);
    for (let i = 0; i < first; i += 1) if (!empty(body[i]!)) outsideSubset();
    let last = body.length;
    while (empty(body[last - 1]!)) last -= 1;
    if (this.keep && body[body.length - 1]!.kind === BLANK) outsideSubset();
    let text = body[0]!.raw.slice(indent);
    for (let i = 1; i < last; i += 1) text += `\n${body[i]!.raw.slice(indent)}`;
    return strip || !body[last - 1]!.broken ? text : `${text}\n`;
  }

  private seq(indent: number): N {
    this.open();
    const seq = this.seqAt(indent);
    this.depth -= 1;
    return seq;
  }

  private seqAt(indent: number): N {
    const { build, keep } = this;
    const seq = build.seq(false);
    let lineValue = false;
    for (let line = this.content(); line !== undefined && line.indent === indent && isSeqEntry(line.content); line = this.content()) {
      let props: Props | undefined;
      if (keep) {
        if (lineValue) this.checkAfterLineValue(indent);
        props = propsOf(this.takeGap());
        props.dash();
      }
      const after = line.content.slice(1).replace(LEADING_SPACES, '');
      if (after === '' || after.startsWith('#')) {
        this.lines.advance();
        build.push(seq, props && after !== '' ? this.commentedEntry(line, after, props) : this.entryBelow(indent, props));
        lineValue = false;
      } else if (isSeqEntry(after) || (keep && after.startsWith('|'))) {
        // A list in a list on one line, and (filed in ways not encoded here) a literal after `- `.
        outsideSubset();
      } else if (KEY_LINE.test(after)) {
        // `- key: value`: a map whose column is where its first key starts; the line is re-read as that key.
        const mapIndent = indent + line.content.length - after.length;
        this.lines.replace({ ...line, indent: mapIndent, content: after });
        const map = this.map(mapIndent);
        if (props) build.before(map, props.comment || undefined, props.spaceBefore);
        build.push(seq, map);
        lineValue = false;
      } else {
        this.lines.advance();
        const value = this.lineValue(after, indent, false);
        if (props) build.before(value, props.comment || undefined, props.spaceBefore);
        build.push(seq, value);
        lineValue = true;
      }
    }
    const next = this.content();
    if (next !== undefined && next.indent > indent) outsideSubset();
    if (keep) this.end(seq, indent, lineValue);
    return seq;
  }

  /** The value of a `-` with nothing after it: a node below, or nothing. Kept comments around it are not encoded. */
  private entryBelow(indent: number, props: Props | undefined): N {
    const next = this.content();
    if (props && (props.comment !== '' || props.spaceBefore || this.gap !== undefined)) outsideSubset();
    return next !== undefined && next.indent > indent ? this.collection(next) : this.build.empty();
  }

  /** `- # comment` and a map below it: `yaml` files the comment before the map; kpt has it on the map's first key. */
  private commentedEntry(dash: Line, comment: string, props: Props): N {
    props.addComment(comment);
    props.addNewline();
    const below = this.content();
    if (below === undefined || below.indent <= dash.indent || isSeqEntry(below.content)) outsideSubset();
    props.addLines(this.takeGap());
    const map = this.map(below.indent, props.comment);
    if (props.spaceBefore) this.build.before(map, undefined, true);
    return map;
  }
}
