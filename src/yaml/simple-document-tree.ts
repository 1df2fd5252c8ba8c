/**
 * `yaml`'s node tree of a document in the simple block style KRM packages are written in, built
 * straight from its lines, several times faster than `yaml`'s lexer, parser and composer: block maps
 * and sequences, one-line scalars and flow collections, `|` and `|-` literals, comments and blank
 * lines. The tree is the one `parseYaml(text, { releaseTokens: true })` gives (comments where `yaml`
 * files them, blank lines, scalar types, formats and kept spellings, flow styles), without source
 * ranges: nothing that reads a package for an update looks at them.
 *
 * `yaml` files a comment by rules of its parser that are not all written down; the ones encoded here
 * are checked against the parser by test/unit/simple-document-tree.test.ts. For anything outside the
 * subset, and for comments in places these rules do not cover (deeper than the value before them,
 * around values left empty), the answer is undefined and the caller parses.
 */
import { Document, isScalar, Pair, Scalar, YAMLMap, YAMLSeq, type Node, type ScalarTag } from 'yaml';
import { OutsideSubset } from './plain-scalars';
import { afterEntry, flowPlain, INDICATOR_START, isQuote, isSeqEntry, KEY_LINE, PLAIN_KEY, quoted, skipSpaces, TRAILING_SPACES, type Read } from './simple-block-read';
import { PARSE_OPTIONS, parseYaml, YAML_11_NON_STRING, type YamlVersion } from './yaml-format';

const NO_LINES: readonly Line[] = [];

/**
 * Characters a line scan would take for white space or line breaks where YAML does not, or the other
 * way round: tabs, carriage returns, the line breaks of YAML 1.1 and of JavaScript's patterns, a
 * byte-order mark. Other spaces (no-break and the like) are content to YAML, and here.
 */
const BREAKS_THE_LINE_SCAN = /[\t\r\f\v\u0085\u2028\u2029\ufeff]/;

/** What each one-character escape of a double-quoted scalar stands for (YAML 1.2 §5.7). */
const ESCAPES: Readonly<Record<string, string>> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  N: '\u0085',
  _: '\u00a0',
  L: '\u2028',
  P: '\u2029',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
};

/** A backslash and what it escapes: x, u or U and their hex digits, or one character (`\\x` without them refused in `unescape`). */
const ESCAPE = /\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[^])/g;

function unescape(escape: string): string {
  if (escape.length === 2) return ESCAPES[escape[1]!] ?? bail();
  const code = parseInt(escape.slice(2), 16);
  return code <= 0x10ffff ? String.fromCodePoint(code) : bail();
}

/** A double-quoted scalar that starts at `at` and closes on its line, its escapes read. */
function doubleQuoted(text: string, at: number): Read<string> {
  // The closing quote is the first one after an even run of backslashes.
  let close = text.indexOf('"', at + 1);
  for (; close !== -1; close = text.indexOf('"', close + 1)) {
    let backslashes = 0;
    while (text[close - 1 - backslashes] === '\\') backslashes += 1;
    if (backslashes % 2 === 0) break;
  }
  if (close === -1) bail();
  const body = text.slice(at + 1, close);
  // One replace builds the value whole: a string built a piece at a time is a rope, up to a hundred
  // bytes a character until it is flattened.
  return { value: body.includes('\\') ? body.replace(ESCAPE, unescape) : body, end: close + 1 };
}

const enum Kind {
  Blank,
  Comment,
  Content,
}

interface Line {
  readonly indent: number;
  /** After the indentation. */
  readonly content: string;
  /** The whole line, for literals and comments (whose trailing spaces `yaml` keeps). */
  readonly raw: string;
  readonly kind: Kind;
  /** A line break ends it: all but the last line of a text without a final one. */
  readonly broken: boolean;
}

type Spelled = Scalar & { spelling?: string };

const DOCUMENT_OPTIONS = { ...PARSE_OPTIONS, lineCounter: undefined };
const TEMPLATE = new Document(undefined, DOCUMENT_OPTIONS);
/** The tags a plain scalar is tested against, in the order the composer tries them. */
const PLAIN_TAGS = (TEMPLATE.schema.tags as ScalarTag[]).filter((tag) => tag.default === true && tag.test !== undefined);
const STRING_TAG = (TEMPLATE.schema.tags as ScalarTag[]).find((tag) => tag.tag === 'tag:yaml.org,2002:str')!;

/** What any tag but the string one reads: most plain text is a string, found with one test. */
const OTHER_TYPES = new RegExp(PLAIN_TAGS.map((tag) => `(?:${tag.test!.source})`).join('|'));

/** The tag of a plain scalar: the first whose test its text passes, else the string tag. */
function plainTag(source: string): ScalarTag {
  return (OTHER_TYPES.test(source) && PLAIN_TAGS.find((candidate) => candidate.test!.test(source))) || STRING_TAG;
}

/** Out of the subset: the caller parses. A declaration, so that the compiler narrows after it. */
function bail(): never {
  throw new OutsideSubset();
}


/**
 * What `yaml` makes of the comments and line breaks before a node (its resolveProps): blank lines
 * before the first comment mark the node `spaceBefore`, comments are joined by the line breaks
 * between them, and blank lines after a comment add line breaks to it.
 */
class Props {
  spaceBefore = false;
  comment = '';
  private sep = '';

  constructor(
    private atNewline: boolean,
    /** After a sequence's `-`, blank lines no longer count as space before the node. */
    private afterDash = false,
  ) {}

  addComment(source: string): void {
    const text = source.slice(1) || ' ';
    this.comment = this.comment ? this.comment + this.sep + text : text;
    this.sep = '';
    this.atNewline = false;
  }

  addNewline(): void {
    if (!this.atNewline) this.sep += '\n';
    else if (this.comment) this.comment += '\n';
    else if (!this.afterDash) this.spaceBefore = true;
    this.atNewline = true;
  }

  /** A blank or comment line, with its line break. */
  addLine(line: Line): void {
    if (line.kind === Kind.Comment) this.addComment(line.content);
    if (line.broken) this.addNewline();
  }

  dash(): void {
    this.afterDash = true;
    this.atNewline = true;
  }

  applyTo(node: Node): void {
    if (this.spaceBefore) node.spaceBefore = true;
    if (this.comment) node.commentBefore = this.comment;
  }
}

/** What the lines before an item, at the start of a line, make of it. */
function propsOf(lines: readonly Line[]): Props {
  const props = new Props(true);
  for (const line of lines) props.addLine(line);
  return props;
}

/** The comment lines before the document's first content, as `yaml`'s composer reads its prelude. */
function preludeComment(lines: readonly Line[]): { comment: string; afterEmptyLine: boolean } {
  let comment = '';
  let atComment = false;
  let afterEmptyLine = false;
  // Each line is its tokens: perhaps a comment, and a line break.
  const other = () => {
    if (!atComment) afterEmptyLine = true;
    atComment = false;
  };
  for (const line of lines) {
    if (line.kind === Kind.Comment) {
      comment += (comment === '' ? '' : afterEmptyLine ? '\n\n' : '\n') + (line.content.slice(1) || ' ');
      atComment = true;
      afterEmptyLine = false;
    }
    other();
  }
  return { comment, afterEmptyLine };
}

/** The comments after the document's content, as `yaml` reads the end of a document. */
function endComment(lines: readonly Line[]): string {
  let comment = '';
  let sep = '';
  for (const line of lines) {
    if (line.kind === Kind.Comment) {
      const text = line.content.slice(1) || ' ';
      comment = comment ? comment + sep + text : text;
      sep = '';
    }
    if (comment && line.broken) sep += '\n';
  }
  return comment;
}

function linesOf(text: string): Line[] {
  const raws = text.split('\n');
  if (text.endsWith('\n')) raws.pop();
  const last = text.endsWith('\n') ? -1 : raws.length - 1;
  return raws.map((raw, i) => {
    let indent = 0;
    while (raw.charCodeAt(indent) === 32) indent += 1;
    const rest = raw.slice(indent);
    const kind = rest === '' ? Kind.Blank : rest[0] === '#' ? Kind.Comment : Kind.Content;
    return { indent, content: rest, raw, kind, broken: i !== last };
  });
}


/** A comment after a value on its line: `#` after spaces, to the end of the line. */
function trailingComment(trailer: string): string | undefined {
  if (/^ *$/.test(trailer)) return undefined;
  const match = /^ +(#.*)$/.exec(trailer) ?? bail();
  return match[1];
}

class TreeBuilder {
  private at = 0;
  private readonly schema: Document['schema'];

  constructor(
    private readonly lines: Line[],
    private readonly doc: Document,
  ) {
    this.schema = doc.schema;
  }

  build(): void {
    const first = this.nextContent();
    if (first === -1) bail();
    const line = this.lines[first]!;
    if (line.indent !== 0 || isSeqEntry(line.content)) bail();
    const prelude = preludeComment(this.lines.slice(0, first));
    this.at = first;
    const root = this.map(0);
    if (this.nextContent() !== -1) bail();
    const end = endComment(this.lines.slice(this.at));
    if (end) this.doc.comment = end;
    this.doc.contents = root;
    if (!prelude.comment) return;
    if (prelude.afterEmptyLine) {
      this.doc.commentBefore = prelude.comment;
      return;
    }
    const key = (root.items[0] as Pair<Scalar, unknown>).key;
    key.commentBefore = key.commentBefore ? `${prelude.comment}\n${key.commentBefore}` : prelude.comment;
  }

  /** The index of the next content line from `at`, or -1. */
  private nextContent(): number {
    for (let i = this.at; i < this.lines.length; i += 1) if (this.lines[i]!.kind === Kind.Content) return i;
    return -1;
  }

  /** The blank and comment lines from `at` to `end`. */
  private gap(end: number): readonly Line[] {
    const to = end === -1 ? this.lines.length : end;
    return to === this.at ? NO_LINES : this.lines.slice(this.at, to);
  }

  /**
   * After an entry whose value sits on its own line (a scalar, a flow collection), a comment deeper
   * than the entry is the value's own in `yaml`; those are left to the parser.
   */
  private checkAfterLineValue(gap: readonly Line[], indent: number): void {
    const comment = gap.find((line) => line.kind === Kind.Comment);
    if (comment && comment.indent > indent) bail();
  }

  /**
   * Where a block collection ends, the comments after it are its own when one is at least as
   * indented as its entries (not at column 0); otherwise they go on to what follows.
   */
  private end(collection: YAMLMap | YAMLSeq, indent: number, lineValue: boolean): void {
    const gap = this.gap(this.nextContent());
    if (lineValue) this.checkAfterLineValue(gap, indent);
    if (indent === 0 || !gap.some((line) => line.kind === Kind.Comment && line.indent >= indent)) return;
    collection.comment = propsOf(gap).comment;
    this.at += gap.length;
  }

  private map(indent: number): YAMLMap {
    const map = new YAMLMap(this.schema);
    const keys: string[] = [];
    let lineValue = false;
    for (;;) {
      const next = this.nextContent();
      const line = next === -1 ? undefined : this.lines[next]!;
      if (line === undefined || line.indent < indent) {
        this.end(map, indent, lineValue);
        return map;
      }
      if (line.indent > indent || isSeqEntry(line.content)) bail();
      const gap = this.gap(next);
      if (lineValue) this.checkAfterLineValue(gap, indent);
      this.at = next;
      const entry = this.mapEntry(line.content, indent);
      // Duplicate keys are the parser's to report.
      if (keys.includes(entry.keyText)) bail();
      keys.push(entry.keyText);
      if (gap.length > 0) propsOf(gap).applyTo(entry.pair.key as Scalar);
      map.items.push(entry.pair);
      lineValue = entry.lineValue;
    }
  }

  /** One `key: value` line and what belongs to it below. */
  private mapEntry(content: string, indent: number): { pair: Pair; keyText: string; lineValue: boolean } {
    const match = KEY_LINE.exec(content) ?? bail();
    const keyText = match[1] ?? match[2] ?? match[3]!;
    if (keyText.length > 1000) bail();
    const key = match[1] !== undefined ? this.plainScalar(keyText) : this.quotedScalar(content, 0).value;
    if (typeof key.value !== 'string') bail();
    const rest = content.slice(match[0].length);
    this.at += 1;
    if (rest === '' || rest.startsWith('#')) return { pair: new Pair(key, this.valueBelow(key, rest, indent)), keyText, lineValue: false };
    const value = this.lineValue(rest, indent);
    return { pair: new Pair(key, value.node), keyText, lineValue: value.onLine };
  }

  /**
   * The value of `key:` with nothing after it but perhaps a comment: the block collection on the
   * lines below (a sequence may start at the key's own column). Comments and blank lines before it
   * are the collection's; the comment on the key's line goes to the key, as kpt has it.
   */
  private valueBelow(key: Scalar, keyLineComment: string, indent: number): Node {
    const props = new Props(false);
    if (keyLineComment) props.addComment(keyLineComment);
    props.addNewline();
    const next = this.nextContent();
    const line = next === -1 ? undefined : this.lines[next]!;
    const nested = line !== undefined && (line.indent > indent || (line.indent === indent && isSeqEntry(line.content)));
    if (!nested) {
      // An empty value: `yaml` shares the lines around it between it and the next entry; not encoded.
      if (keyLineComment || this.gap(next).length > 0) bail();
      return this.emptyScalar();
    }
    for (const l of this.gap(next)) props.addLine(l);
    this.at = next;
    const node = isSeqEntry(line.content) ? this.seq(line.indent) : this.map(line.indent);
    props.applyTo(node);
    if (keyLineComment) {
      const [first, ...rest] = node.commentBefore!.split('\n');
      key.comment = first;
      node.commentBefore = rest.length ? rest.join('\n') : undefined;
    }
    return node;
  }

  /** A value on its entry's line: a scalar or flow collection with perhaps a comment, or a literal. */
  private lineValue(text: string, indent: number): { node: Node; onLine: boolean } {
    const header = text.replace(TRAILING_SPACES, '');
    if (header === '|' || header === '|-') return { node: this.literal(indent, header === '|-'), onLine: true };
    let node: Node;
    let trailer: string;
    if (isQuote(text[0]) || text[0] === '{' || text[0] === '[') {
      const read = this.flowNode(text, 0);
      node = read.value;
      trailer = text.slice(read.end);
    } else {
      if (INDICATOR_START.test(text)) bail();
      const hash = text.indexOf(' #');
      const value = (hash === -1 ? text : text.slice(0, hash)).replace(TRAILING_SPACES, '');
      if (value.includes(': ') || value.endsWith(':') || value.includes('\t')) bail();
      node = this.plainScalar(value);
      trailer = hash === -1 ? '' : text.slice(value.length);
    }
    const comment = trailingComment(trailer);
    if (comment !== undefined) node.comment = comment.slice(1) || ' ';
    // A deeper line below would continue the scalar.
    const next = this.nextContent();
    if (next !== -1 && this.lines[next]!.indent > indent) bail();
    return { node, onLine: true };
  }

  /** The lines of a `|` or `|-` scalar (YAML 1.2 §8.1.2), indented deeper than its owner. */
  private literal(ownerIndent: number, strip: boolean): Scalar {
    const body: Line[] = [];
    let indent: number | undefined;
    for (let line = this.lines[this.at]; line !== undefined; line = this.lines[this.at]) {
      if (line.kind !== Kind.Blank) {
        indent ??= line.indent > ownerIndent ? line.indent : undefined;
        if (indent === undefined || line.indent < indent) break;
      }
      body.push(line);
      this.at += 1;
    }
    // Blank lines after the text stay between it and what follows; they are not encoded.
    if (indent === undefined || body[body.length - 1]!.kind === Kind.Blank) bail();
    const first = body.findIndex((line) => line.kind !== Kind.Blank);
    if (body.slice(0, first).some((line) => line.raw.length > indent!)) bail();
    const text = body.map((line) => line.raw.slice(indent)).join('\n');
    const scalar = new Scalar(strip ? text : `${text}\n`);
    scalar.source = scalar.value as string;
    scalar.type = 'BLOCK_LITERAL';
    return scalar;
  }

  private seq(indent: number): YAMLSeq {
    const seq = new YAMLSeq(this.schema);
    let lineValue = false;
    for (;;) {
      const next = this.nextContent();
      const line = next === -1 ? undefined : this.lines[next]!;
      if (line === undefined || line.indent !== indent || !isSeqEntry(line.content)) {
        if (line !== undefined && line.indent > indent) bail();
        this.end(seq, indent, lineValue);
        return seq;
      }
      const gap = this.gap(next);
      if (lineValue) this.checkAfterLineValue(gap, indent);
      const props = propsOf(gap);
      props.dash();
      this.at = next;
      const item = this.seqItem(line, props);
      seq.items.push(item.node);
      lineValue = item.lineValue;
    }
  }

  /** One `- ...` entry: a value on the line, a map that starts there, or a map below a `- # comment` line. */
  private seqItem(line: Line, props: Props): { node: Node; lineValue: boolean } {
    const after = line.content.slice(1).replace(/^ */, '');
    if (after.startsWith('#')) {
      props.addComment(after);
      props.addNewline();
      this.at += 1;
      const next = this.nextContent();
      const below = next === -1 ? undefined : this.lines[next]!;
      if (below === undefined || below.indent <= line.indent || isSeqEntry(below.content)) bail();
      for (const l of this.gap(next)) props.addLine(l);
      this.at = next;
      const map = this.map(below.indent);
      // `yaml` files the comment on the dash's line before the map; kpt has it on the map's first key.
      const key = (map.items[0] as Pair<Scalar, unknown>).key;
      key.commentBefore = key.commentBefore ? `${props.comment}\n${key.commentBefore}` : props.comment;
      if (props.spaceBefore) map.spaceBefore = true;
      return { node: map, lineValue: false };
    }
    if (after === '' || isSeqEntry(after) || after.startsWith('|')) bail();
    if (KEY_LINE.test(after)) {
      // `- key: value`: a map whose column is where its first key starts; the line is re-read as that key.
      const mapIndent = line.indent + line.content.length - after.length;
      this.lines[this.at] = { ...line, indent: mapIndent, content: after };
      const map = this.map(mapIndent);
      props.applyTo(map);
      return { node: map, lineValue: false };
    }
    this.at += 1;
    const value = this.lineValue(after, line.indent);
    props.applyTo(value.node);
    return { node: value.node, lineValue: true };
  }

  /** The null of `key:` with nothing after it: no spelling of its own. */
  private emptyScalar(): Scalar {
    const scalar: Spelled = this.plainScalar('');
    delete scalar.spelling;
    return scalar;
  }

  /** A plain scalar as the composer resolves it: the first default tag whose test matches, else a string. */
  private plainScalar(source: string): Scalar {
    const tag = plainTag(source);
    const resolved: unknown = tag.resolve(source, bail, this.doc.options);
    const scalar: Spelled = isScalar(resolved) ? resolved : new Scalar(resolved);
    scalar.source = source;
    scalar.type = 'PLAIN';
    if (tag.format) scalar.format = tag.format;
    if (typeof scalar.value !== 'string' || YAML_11_NON_STRING.test(scalar.value)) scalar.spelling = source;
    return scalar;
  }

  /** A quoted scalar that closes on its line; its spelling kept. */
  private quotedScalar(text: string, at: number): Read<Scalar> {
    const read = text[at] === '"' ? doubleQuoted(text, at) : quoted(text, at);
    const scalar: Spelled = new Scalar(read.value);
    scalar.source = read.value;
    scalar.type = text[at] === '"' ? 'QUOTE_DOUBLE' : 'QUOTE_SINGLE';
    scalar.spelling = text.slice(at, read.end);
    return { value: scalar, end: read.end };
  }

  /**
   * A flow collection or scalar on one line (YAML 1.2 §7.4): `{a: b, c: [d]}`. Not read: implicit
   * keys and pairs without values, trailing commas, comments or line breaks inside.
   */
  private flowNode(text: string, start: number): Read<Node> {
    const at = skipSpaces(text, start);
    if (text[at] === '{') return this.flowMap(text, at + 1);
    if (text[at] === '[') return this.flowSeq(text, at + 1);
    if (isQuote(text[at])) return this.quotedScalar(text, at);
    return this.flowPlainScalar(text, at);
  }

  private flowPlainScalar(text: string, at: number): Read<Scalar> {
    const plain = flowPlain(text, at);
    return { value: this.plainScalar(plain.value), end: plain.end };
  }

  private flowMap(text: string, start: number): Read<YAMLMap> {
    const map = new YAMLMap(this.schema);
    map.flow = true;
    const keys = new Set<string>();
    let at = skipSpaces(text, start);
    if (text[at] === '}') return { value: map, end: at + 1 };
    for (;;) {
      at = skipSpaces(text, at);
      const quotedKey = isQuote(text[at]);
      const key = quotedKey ? this.quotedScalar(text, at) : this.flowPlainScalar(text, at);
      const keyText = key.value.value;
      if (typeof keyText !== 'string' || keyText.length > 1000 || keys.has(keyText)) bail();
      if (!quotedKey && !PLAIN_KEY.test(keyText)) bail();
      keys.add(keyText);
      if (text[key.end] !== ':' || text[key.end + 1] !== ' ') bail();
      const value = this.flowNode(text, key.end + 2);
      map.items.push(new Pair(key.value, value.value));
      const next = afterEntry(text, value.end, '}');
      if (next.closed) return { value: map, end: next.end };
      at = next.end;
    }
  }

  private flowSeq(text: string, start: number): Read<YAMLSeq> {
    const seq = new YAMLSeq(this.schema);
    seq.flow = true;
    let at = skipSpaces(text, start);
    if (text[at] === ']') return { value: seq, end: at + 1 };
    for (;;) {
      const item = this.flowNode(text, at);
      // `[a: b]` is a map inside the list; left to the parser.
      if (text[item.end] === ':') bail();
      seq.items.push(item.value);
      const next = afterEntry(text, item.end, ']');
      if (next.closed) return { value: seq, end: next.end };
      at = next.end;
    }
  }
}

/**
 * The parsed document, as `parseYaml(text, { releaseTokens: true })` has it without source ranges,
 * when the text is a map in the simple block subset of YAML 1.2; undefined otherwise.
 */
/** Documents built here: no aliases, anchors or tags anywhere in them. */
const SIMPLE_DOCUMENTS = new WeakSet<Document>();

/** Whether `doc` was built here, so that nothing in it is an alias, an anchor or a tag. */
export function isSimpleDocument(doc: Document): boolean {
  return SIMPLE_DOCUMENTS.has(doc);
}

export function buildSimpleDocument(text: string): Document.Parsed | undefined {
  // Only spaces count as YAML indentation and separation; markers and directives are the stream's.
  if (BREAKS_THE_LINE_SCAN.test(text) || /^(?:---|\.\.\.|%)/m.test(text)) return undefined;
  const doc = new Document(undefined, DOCUMENT_OPTIONS) as Document.Parsed;
  try {
    new TreeBuilder(linesOf(text), doc).build();
  } catch (error) {
    // Deep nesting overflows the stack here first; the parser then says what is wrong.
    if (error instanceof OutsideSubset || error instanceof RangeError) return undefined;
    throw error;
  }
  SIMPLE_DOCUMENTS.add(doc);
  return doc;
}

/**
 * A document read for editing, tokens released: the simple tree where the text allows it, else
 * `yaml`'s parse (which also reports what is wrong), after `beforeParse` has counted it (parse-budget.ts).
 */
export function readDocument(text: string, version?: YamlVersion, beforeParse?: (text: string) => void): Document.Parsed {
  const simple = version !== '1.1' && !text.includes('%YAML') ? buildSimpleDocument(text) : undefined;
  if (simple) return simple;
  beforeParse?.(text);
  return parseYaml(text, { releaseTokens: true, ...(version ? { version } : {}) }).doc;
}
