/**
 * Writes a changed item's node tree as `yaml` would (renderNode of a one-item sequence, this
 * project's options, YAML 1.2), byte for byte, without `yaml`'s stringifier: a run writes a few dozen
 * changed items, and the stringifier, cold in a process that runs once, cost more than the edits.
 * The rules are `yaml`'s (stringify, stringifyPair, stringifyCollection, stringifyString,
 * stringifyNumber) with yaml-format.ts's spelling rule, for the trees items in simple YAML make:
 * block and one-line flow collections, printable ASCII strings, integers, booleans, nulls, comments
 * after values. Anything else (tags, anchors, aliases, comment or blank lines, multi-line or
 * non-ASCII strings, floats, new numbers in hex...) answers undefined, and the caller uses `yaml`.
 */
import { isMap, isPair, isScalar, isSeq, type Node, type Pair, type Scalar, type ScalarTag } from 'yaml';
import { outsideSubset, OutsideSubset, readsBackAsString } from './plain-scalars';
import { newDocument, sourceSpelling, YAML_11_NON_STRING } from './yaml-format';

const INDENT_STEP = '  ';

let tags: ScalarTag[] | undefined;

/** The scalar tags of the rendering document, in its schema's order. */
function renderTags(): ScalarTag[] {
  return (tags ??= (newDocument().schema.tags as ScalarTag[]).filter((tag) => !('collection' in tag && tag.collection)));
}

/** The tag `yaml` renders a scalar with (its getTagObject), for a scalar without an explicit tag. */
function tagOf(node: Scalar): ScalarTag | undefined {
  let match = renderTags().filter((tag) => tag.identify?.(node.value));
  if (match.length > 1) {
    const tested = match.filter((tag) => tag.test);
    if (tested.length > 0) match = tested;
  }
  return match.find((tag) => tag.format === node.format) ?? match.find((tag) => !tag.format);
}

/** yaml-format.ts's rule: a scalar whose value its source still resolves to is written as it was spelt. */
function keptSpelling(node: Scalar): string | undefined {
  const spelling = sourceSpelling(node);
  if (spelling === undefined || typeof node.source !== 'string') return undefined;
  // A string is written with the string tag, which resolves a source to itself.
  if (typeof node.value === 'string') return node.source === node.value ? spelling : undefined;
  let original: unknown;
  try {
    original = tagOf(node)?.resolve(node.source, () => undefined, {});
  } catch {
    return undefined;
  }
  const value = original && typeof original === 'object' && 'value' in original ? (original as { value: unknown }).value : original;
  return Object.is(value, node.value) ? spelling : undefined;
}

const PRINTABLE = /^[\x20-\x7e]*$/;
/** stringifyString's plainString: what cannot start, end or be inside a plain scalar on one line. */
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
const FLOW_INDICATOR = /[[\]{},]/;

/** quotedString with `singleQuote: null`: single quotes for a string with `"` and no `'`, else double. */
function quotedString(value: string): string {
  const hasDouble = value.includes('"');
  if (hasDouble && !value.includes("'")) return `'${value}'`;
  return JSON.stringify(value);
}

function plainString(value: string, inFlow: boolean): string {
  // The rendering document's default tags are the parser's (plain-scalars.ts), wrapped only to write.
  if ((inFlow && FLOW_INDICATOR.test(value)) || value === '' || NOT_PLAIN.test(value) || !readsBackAsString(value)) return quotedString(value);
  return value;
}

/** How new and plain strings are written in block context, by value: keys and many values repeat. */
const PLAIN_TEXTS = new Map<string, string>();
const MAX_REMEMBERED = 10_000;

/** A string scalar on one line, printable ASCII: as stringifyString writes it for its type. */
function stringText(node: Scalar, value: string, inFlow: boolean): string {
  const plainType = node.type === undefined || node.type === 'PLAIN';
  const remembered = plainType && !inFlow ? PLAIN_TEXTS.get(value) : undefined;
  if (remembered !== undefined) return remembered;
  const text = typedStringText(node.type, value, inFlow);
  if (plainType && !inFlow && PLAIN_TEXTS.size < MAX_REMEMBERED) PLAIN_TEXTS.set(value, text);
  return text;
}

function typedStringText(written: Scalar['type'], value: string, inFlow: boolean): string {
  if (!PRINTABLE.test(value)) outsideSubset();
  let type = written;
  if ((type === undefined || type === 'PLAIN') && YAML_11_NON_STRING.test(value)) type = 'QUOTE_DOUBLE';
  switch (type) {
    case 'QUOTE_DOUBLE':
      return JSON.stringify(value);
    case 'QUOTE_SINGLE':
      return `'${value.replace(/'/g, "''")}'`;
    case undefined:
    case 'PLAIN':
      return plainString(value, inFlow);
    default:
      return outsideSubset();
  }
}

function scalarText(node: Scalar, inFlow: boolean): string {
  if (node.tag !== undefined || node.anchor !== undefined) outsideSubset();
  const spelt = keptSpelling(node);
  if (spelt !== undefined) return spelt;
  const { value, source } = node;
  if (typeof value === 'string') return stringText(node, value, inFlow);
  if (typeof value === 'number') return node.format === undefined && Number.isSafeInteger(value) && !Object.is(value, -0) ? String(value) : outsideSubset();
  if (typeof value === 'boolean') {
    const sourceSays = typeof source === 'string' && /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/.test(source) ? source[0] === 't' || source[0] === 'T' : undefined;
    return sourceSays === value ? source! : String(value);
  }
  if (value === null) return typeof source === 'string' && /^(?:~|[Nn]ull|NULL)?$/.test(source) ? source : 'null';
  return outsideSubset();
}

/**
 * A comment after a value on its line: ` #text`, `#` alone for a comment of one space. (No text
 * written here ends with a space, after which yaml would not add one.)
 */
function lineComment(text: string, comment: string | null | undefined): string {
  if (!comment) return text;
  if (comment.includes('\n')) outsideSubset();
  return `${text} #${comment === ' ' ? '' : comment}`;
}

/** Nodes carry nothing here that only the stringifier's other paths write. */
function checkPlainNode(node: Node): void {
  const props = node as { commentBefore?: string | null; spaceBefore?: boolean; tag?: string; anchor?: string };
  if (props.commentBefore || props.spaceBefore || props.tag !== undefined || props.anchor !== undefined) outsideSubset();
}

/** A key set by `map.set('name', ...)` is a string, not a node: written as a new string scalar. */
const NEW_STRING = { type: undefined } as Scalar;

function keyText(pair: Pair, inFlow: boolean): string {
  const key = pair.key;
  let text: string;
  if (typeof key === 'string' && key !== '') {
    text = stringText(NEW_STRING, key, inFlow);
  } else {
    if (!isScalar(key) || typeof key.value !== 'string' || key.comment) outsideSubset();
    checkPlainNode(key as Scalar);
    text = scalarText(key as Scalar, inFlow);
  }
  // A long key is written as an explicit `? key`.
  if (text.length > 1024) outsideSubset();
  return text;
}

/** A flow collection or a scalar in one, on one line; its own comment is the caller's to write. */
function flowText(node: Node): string {
  if (isScalar(node)) return scalarText(node, true);
  if (isMap(node)) {
    const entries = node.items.map((pair) => {
      if (!isPair(pair)) outsideSubset();
      return `${keyText(pair as Pair, true)}: ${flowItemText(pair.value)}`;
    });
    return `{${entries.join(', ')}}`;
  }
  if (isSeq(node)) return `[${node.items.map(flowItemText).join(', ')}]`;
  return outsideSubset();
}

/** A node inside a flow collection: a comment there would break the collection over lines. */
function flowItemText(item: unknown): string {
  if (!isScalar(item) && !isMap(item) && !isSeq(item)) return outsideSubset();
  const node = item as Node;
  checkPlainNode(node);
  if (node.comment) outsideSubset();
  return flowText(node);
}

/** A collection written as flow: written so, or empty (and not marked block). */
function isFlowCollection(node: Node): boolean {
  if (!isMap(node) && !isSeq(node)) return false;
  if (node.flow === false && node.items.length === 0) outsideSubset();
  return node.flow ?? node.items.length === 0;
}

/** A block map's pairs at `indent`, joined by newlines; the first line is not indented. */
function blockMapText(node: Node, indent: string): string {
  if (!isMap(node)) return outsideSubset();
  return node.items.map((pair) => pairText(pair as Pair, indent)).join(`\n${indent}`);
}

/** A block sequence's items at `indent`, `- ` before each; the first line is not indented. */
function blockSeqText(node: Node, indent: string): string {
  if (!isSeq(node)) return outsideSubset();
  return node.items
    .map((item) => {
      if (!isScalar(item) && !isMap(item) && !isSeq(item)) outsideSubset();
      const itemNode = item as Node;
      checkPlainNode(itemNode);
      if (isScalar(itemNode) || isFlowCollection(itemNode)) return `- ${lineComment(isScalar(itemNode) ? scalarText(itemNode, false) : flowText(itemNode), itemNode.comment)}`;
      if (itemNode.comment || isSeq(itemNode)) outsideSubset();
      return `- ${blockMapText(itemNode, `${indent}${INDENT_STEP}`)}`;
    })
    .join(`\n${indent}`);
}

function pairText(pair: Pair, indent: string): string {
  if (!isPair(pair)) outsideSubset();
  const key = keyText(pair, false);
  const value = pair.value;
  if (!isScalar(value) && !isMap(value) && !isSeq(value)) return outsideSubset();
  const node = value as Node;
  checkPlainNode(node);
  if (isScalar(node)) {
    const text = scalarText(node, false);
    return lineComment(text === '' ? `${key}:` : `${key}: ${text}`, node.comment);
  }
  if (isFlowCollection(node)) return lineComment(`${key}: ${flowText(node)}`, node.comment);
  if (node.comment) outsideSubset();
  const inner = `${indent}${INDENT_STEP}`;
  // Sequences are compact (indentSeq: false): their `- ` at the key's column.
  return isSeq(node) ? `${key}:\n${indent}${blockSeqText(node, indent)}` : `${key}:\n${inner}${blockMapText(node, inner)}`;
}

/**
 * The item as `renderNode` writes a sequence holding it alone (`- ` and its pairs, no final
 * newline), or undefined when the tree has anything beyond these rules.
 */
export function renderTreeItem(node: Node): string | undefined {
  try {
    checkPlainNode(node);
    if (!isMap(node) || node.comment || node.flow || node.items.length === 0) return undefined;
    return `- ${blockMapText(node, INDENT_STEP)}`;
  } catch (error) {
    if (error instanceof OutsideSubset) return undefined;
    throw error;
  }
}
