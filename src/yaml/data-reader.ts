/**
 * The plain data of a document in simple block YAML (block-reader.ts), exactly what `yaml` would
 * give (`parse` with this project's options), or undefined outside that subset, without a node tree.
 *
 * A fleet package's items are mostly read and left alone; their node trees are built only when
 * something edits them (see KrmResource), by the same reader (tree-builder.ts).
 */
import { BlockReader, type Build } from './block-reader';
import { LineCursor, type LineRange } from './lines';
import { AcceptedStrings, outsideSubset, OutsideSubset, plainTag, readsBackAsString, resolvedValue } from './scalars';

const INTEGER_LIKE = /^\d/;

/** A key any object can hold: not one it could trip over, nor one it would reorder. */
const isOrdinaryKey = (key: string): boolean => key !== '__proto__' && !INTEGER_LIKE.test(key);
const PLAIN_KEYS = new AcceptedStrings((key) => readsBackAsString(key) && isOrdinaryKey(key));

function plainData(text: string): unknown {
  const tag = plainTag(text);
  return tag.test === undefined ? text : resolvedValue(tag.resolve(text, outsideSubset, {}));
}

const PLAIN_DATA: Build<unknown, string> = {
  comments: false,
  plain: plainData,
  quoted: (value) => value,
  folded: (value, style) => (style === 'PLAIN' ? plainData(value) : value),
  literal: (value) => value,
  empty: () => null,
  key({ key, quoted }) {
    if (!(quoted === undefined ? PLAIN_KEYS.accepts(key) : isOrdinaryKey(key))) outsideSubset();
    return key;
  },
  map: () => ({}),
  set(map, key, value) {
    if (Object.prototype.hasOwnProperty.call(map, key)) outsideSubset();
    (map as Record<string, unknown>)[key] = value;
  },
  seq: () => [],
  push: (seq, item) => void (seq as unknown[]).push(item),
  before: () => undefined,
  after: () => undefined,
};

/** A plain scalar kpt's typed fields read as none: `~`, `null` in its three spellings, nothing. */
export const PLAIN_NULL = /^(~|null|Null|NULL|)$/;

/**
 * YAML's failsafe schema as kpt's typed fields read a Kptfile: every scalar is its text and only a
 * plain null is none. A key that would read as none is left to the parser.
 */
const FAILSAFE_DATA: Build<unknown, string> = {
  ...PLAIN_DATA,
  plain: (text) => (PLAIN_NULL.test(text) ? null : text),
  folded: (value, style) => (style === 'PLAIN' && PLAIN_NULL.test(value) ? null : value),
  key({ key, quoted }) {
    if (!isOrdinaryKey(key) || (quoted === undefined && PLAIN_NULL.test(key))) outsideSubset();
    return key;
  },
};

/** The data of the lines, or undefined when something on them is outside the subset. */
function readData(range: LineRange, build: Build<unknown, string> = PLAIN_DATA): Record<string, unknown> | undefined {
  try {
    return new BlockReader(build, new LineCursor(range)).document() as Record<string, unknown>;
  } catch (error) {
    // Deep nesting overflows the stack here first; the parser then says what is wrong.
    if (error instanceof OutsideSubset || error instanceof RangeError) return undefined;
    throw error;
  }
}

/**
 * The data of the document in `text` from `start` to `end` (lines after the first lose `dedent`
 * columns: an item of a list read in place) when it is a map in the simple subset; undefined otherwise.
 */
export function readSimpleBlockRange(text: string, start: number, end: number, dedent: number): Record<string, unknown> | undefined {
  return readData({ text, start, end, dedent });
}

/** The document's data when it is a map in the simple subset; undefined otherwise. */
export function readSimpleBlockMap(text: string): Record<string, unknown> | undefined {
  return readData({ text, start: 0, end: text.length, dedent: 0 });
}

/** The document's data read with the failsafe schema (FAILSAFE_DATA) when it is a map in the simple subset; undefined otherwise. */
export function readFailsafeBlockMap(text: string): Record<string, unknown> | undefined {
  return readData({ text, start: 0, end: text.length, dedent: 0 }, FAILSAFE_DATA);
}

/**
 * The same for `text` without its lines from `cutStart` to `cutEnd` (both line starts): a list's
 * frame without its items, read in place, not from a copy of what is left.
 */
export function readSimpleBlockWithout(text: string, cutStart: number, cutEnd: number): Record<string, unknown> | undefined {
  return readData({ text, start: 0, end: text.length, dedent: 0, cut: { start: cutStart, end: cutEnd } });
}
