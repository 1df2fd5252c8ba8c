/**
 * Scalars read and written without `yaml`'s parser and stringifier, by the rules `yaml` uses with
 * the schema it uses (YAML 1.2's core schema): which tag a plain scalar resolves with, quoted
 * scalars and their escapes, and how a value is spelt when it is written: plain, quoted, or as the
 * input spelt it. The reader (block-reader.ts), the tree builder, the renderer and the data writer
 * all take their scalars from here, so they agree with `yaml` and with each other on every value.
 */
import { Document, isScalar, type Scalar, type ScalarTag } from 'yaml';

/** Thrown by the fast readers and writers when the text or data leaves their subset; they catch it. */
export class OutsideSubset extends Error {}

/** Out of the subset. A declaration, so that the compiler narrows after it. */
export function outsideSubset(): never {
  throw new OutsideSubset();
}

const STRING_TAG = 'tag:yaml.org,2002:str';

/** The scalar tags of the schema `yaml` reads and writes YAML 1.2 with (the core schema), in its order. */
export const SCALAR_TAGS = (new Document(null).schema.tags as ScalarTag[]).filter((tag) => !('collection' in tag && tag.collection));

/** The tags a plain scalar is tested against, in the order the composer tries them. */
const PLAIN_TAGS = SCALAR_TAGS.filter((tag) => tag.default === true && tag.test !== undefined);
const STRING = SCALAR_TAGS.find((tag) => tag.tag === STRING_TAG)!;

/**
 * Whether any tag but the string one may claim the text: the tags' own patterns in one, so that the
 * usual string costs one match instead of one per tag (at fleet scale, millions of scalars and keys
 * are read and written).
 */
const ANY_TAG = new RegExp(PLAIN_TAGS.map((tag) => `(?:${tag.test!.source})`).join('|'));
if (PLAIN_TAGS.some((tag) => tag.test!.flags !== '')) throw new Error('a scalar tag pattern has flags; ANY_TAG cannot combine it');

/** The tag a plain scalar written `text` resolves with: the first whose test it passes, else the string tag. */
export function plainTag(text: string): ScalarTag {
  return (ANY_TAG.test(text) && PLAIN_TAGS.find((tag) => tag.test!.test(text))) || STRING;
}

/** Whether `text`, written plain, reads back as that same string. */
export function readsBackAsString(text: string): boolean {
  return !ANY_TAG.test(text);
}

/** What a tag's `resolve` gives: a value, or a scalar holding it (floats with their fraction digits). */
export function resolvedValue(resolved: unknown): unknown {
  return isScalar(resolved) ? resolved.value : resolved;
}

/**
 * The strings a check has accepted, remembered so that what every object repeats (its keys) is
 * checked once; bounded, so that strings that never repeat are checked every time once it is full.
 */
export class AcceptedStrings {
  private readonly accepted = new Set<string>();

  constructor(
    private readonly check: (text: string) => boolean,
    private readonly capacity = 10_000,
  ) {}

  accepts(text: string): boolean {
    if (this.accepted.has(text)) return true;
    if (!this.check(text)) return false;
    if (this.accepted.size < this.capacity) this.accepted.add(text);
    return true;
  }
}

// -- quoted scalars on one line ---------------------------------------------------------------

export interface Read<T> {
  readonly value: T;
  /** The offset after what was read. */
  readonly end: number;
}

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
  if (escape.length === 2) return ESCAPES[escape[1]!] ?? outsideSubset();
  const code = parseInt(escape.slice(2), 16);
  return code <= 0x10ffff ? String.fromCodePoint(code) : outsideSubset();
}

/**
 * Where a scalar quoted with `mark` closes in `text` (one line) from `from` on: the first `"` after
 * an even run of backslashes, or the first `'` not doubled; -1 when it goes on to the next line.
 */
export function closingQuote(text: string, from: number, mark: string): number {
  for (let close = text.indexOf(mark, from); close !== -1; close = text.indexOf(mark, close + 1)) {
    if (mark === "'") {
      if (text[close + 1] !== "'") return close;
      close += 1;
      continue;
    }
    let backslashes = 0;
    while (text[close - 1 - backslashes] === '\\') backslashes += 1;
    if (backslashes % 2 === 0) return close;
  }
  return -1;
}

/** The value of a double-quoted scalar's body, its escapes read. */
export function unescapeDoubleQuoted(body: string): string {
  // One replace builds the value whole: a string built a piece at a time is a rope, up to a hundred
  // bytes a character until it is flattened.
  return body.includes('\\') ? body.replace(ESCAPE, unescape) : body;
}

/** The value of a single-quoted scalar's body, `''` read as `'`. */
export function unquoteSingleQuoted(body: string): string {
  return body.includes("'") ? body.replace(/''/g, "'") : body;
}

/** A quoted scalar that starts at `at` (on its quote) and closes on the same line. */
export function quoted(text: string, at: number): Read<string> {
  const close = closingQuote(text, at + 1, text[at]!);
  if (close === -1) outsideSubset();
  const body = text.slice(at + 1, close);
  return { value: text[at] === '"' ? unescapeDoubleQuoted(body) : unquoteSingleQuoted(body), end: close + 1 };
}

export const isQuote = (char: string | undefined): boolean => char === "'" || char === '"';

// -- spelling: how a value is written ---------------------------------------------------------

/**
 * Plain strings that Kubernetes' YAML 1.1 reader takes for something else: booleans (`on`, `y`),
 * legacy octals (`0755`), base-60 numbers (`12:30`), numbers with `_`. New strings like these are
 * written double-quoted, as go-yaml v3 does.
 */
export const YAML_11_NON_STRING = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|~|null|Null|NULL|[-+]?0[0-7_]+|[-+]?0b[01_]+|[-+]?(?:\d[\d_]*)?\.?\d[\d_]*(?:[eE][-+]?\d+)?|[-+]?\d[\d_]*(?::[0-5]?\d)+(?:\.[\d_]*)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|\d{4}-\d\d?-\d\d?(?:[Tt ].*)?)$/;

/**
 * A scalar's spelling in the input, where re-rendering its value could spell it otherwise. An own
 * property, so that `clone()` (taking upstream's value) keeps it.
 */
export type Spelled = Scalar & { spelling?: string };

function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return Object.is(a, b);
}

/**
 * The spelling a scalar is written with when the value it has is still the one its source spelt
 * (`tag` resolves the source again): `0755`, `0x1F`, `1e3`, `"\U0001F680"` and quoting survive where
 * rendering the value would normalise them.
 */
export function keptSpelling(scalar: Spelled, tag: ScalarTag): string | undefined {
  const { spelling, source } = scalar;
  if (spelling === undefined || typeof source !== 'string') return undefined;
  // Strings resolve to themselves.
  if (tag.tag === STRING_TAG) return source === scalar.value ? spelling : undefined;
  let original: unknown;
  try {
    original = tag.resolve(source, () => undefined, {});
  } catch {
    return undefined;
  }
  const value = original !== null && typeof original === 'object' && 'value' in original ? (original as { value: unknown }).value : original;
  return sameValue(value, scalar.value) ? spelling : undefined;
}

/** Where a string is written: `yaml`'s stringify context, as far as it decides the spelling. */
export interface Place {
  /** The indentation of the lines the node's content would continue on. */
  readonly indent: string;
  readonly inFlow: boolean;
  /** A map key written without `? `. */
  readonly implicitKey: boolean;
}

export const INDENT_STEP = '  ';

/** Characters that make `yaml` write a string double-quoted and escaped, whatever its type. */
const NEEDS_ESCAPES = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;

/** Refuses a string `yaml` would write with escapes (control characters, bytes that were not UTF-8). */
export function checkUnescaped(value: string): void {
  if (NEEDS_ESCAPES.test(value)) outsideSubset();
}

/** stringifyString's plainString: what cannot start, end or be inside a plain scalar, for a string without line breaks. */
const NOT_PLAIN = /^[\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|:[ \t]|[\t ]#|[\t :]$/;
const FLOW_INDICATOR = /[[\]{},]/;
/** What may make a string on one line be written quoted: NOT_PLAIN, a tag that claims it, YAML 1.1's reading. */
const MAY_NEED_QUOTES = new RegExp(`${NOT_PLAIN.source}|${ANY_TAG.source}|${YAML_11_NON_STRING.source}`);

/** Whether a string on one line starts as a document marker or directive would (`yaml`'s containsDocumentMarker). */
function startsLikeMarker(value: string): boolean {
  const first = value.charCodeAt(0);
  return first === 37 || ((first === 45 || first === 46) && (value.startsWith('---') || value.startsWith('...')));
}

/** What a string written on one line cannot hold without escapes: NEEDS_ESCAPES, and line breaks. */
const NOT_ONE_LINE = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;
/** Printable ASCII, which most strings are: none of NOT_ONE_LINE, found by a cheaper pattern. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Double-quoted, where `yaml`'s doubleQuotedString writes JSON's text: where the only escapes are
 * `\"` and `\\` (tabs it escapes otherwise).
 */
function doubleQuotedText(value: string): string {
  if (value.includes('\t')) outsideSubset();
  return JSON.stringify(value);
}

function singleQuotedText(value: string): string {
  return `'${value.includes("'") ? value.replace(/'/g, "''") : value}'`;
}

/**
 * A string that cannot be plain, quoted as `yaml` quotes it (quotedString with `singleQuote: null`):
 * single quotes for a string with `"` and no `'`, else double; one YAML 1.1 reads as another type
 * always double (the spelling rule).
 */
function quotedText(value: string): string {
  return value.includes('"') && !value.includes("'") && !YAML_11_NON_STRING.test(value) ? singleQuotedText(value) : doubleQuotedText(value);
}

/**
 * A new or plain string as plainString writes it on one line: plain where it reads back so, else
 * quoted; plain, but read as another type by YAML 1.1, double-quoted.
 */
function plainText(value: string, place: Place): string {
  if (value === '' || (place.inFlow && FLOW_INDICATOR.test(value))) return quotedText(value);
  // Most strings are written plain: one test says so.
  if (!MAY_NEED_QUOTES.test(value) && !startsLikeMarker(value)) return value;
  if (NOT_PLAIN.test(value) || !readsBackAsString(value)) return quotedText(value);
  if (startsLikeMarker(value)) {
    // At the top level a document marker would start a line: `yaml` writes a block scalar.
    if (place.indent === '') outsideSubset();
    if (place.implicitKey && place.indent === INDENT_STEP) return quotedText(value);
  }
  return YAML_11_NON_STRING.test(value) ? doubleQuotedText(value) : value;
}

/**
 * A string of the scalar type `type` (undefined: a new string) as `yaml` writes it at `place`, on
 * one line; block scalars are the renderer's. A new plain string that YAML 1.1 reads as another
 * type is written double-quoted.
 */
export function stringText(value: string, type: Scalar.Type | undefined, place: Place): string {
  if (!PRINTABLE_ASCII.test(value) && NOT_ONE_LINE.test(value)) outsideSubset();
  switch (type) {
    case 'QUOTE_DOUBLE':
      return doubleQuotedText(value);
    case 'QUOTE_SINGLE':
      return singleQuotedText(value);
    case undefined:
    case 'PLAIN':
      return plainText(value, place);
    default:
      return outsideSubset();
  }
}

/** A number as `yaml` writes it without a format: integers only (`-0` included); others are `yaml`'s. */
export function integerText(value: number): string {
  if (!Number.isInteger(value)) outsideSubset();
  return Object.is(value, -0) ? '-0' : String(value);
}
