/**
 * The text `yaml` writes for a node tree of the simple shapes packages are made of (block and
 * one-line flow collections; strings, integers, booleans and nulls; `|` and `|-` literals; comments
 * and blank lines), in this project's render options and YAML 1.2, made without `yaml`'s
 * stringifier: several times faster, and the same text to the byte. Its rules are `yaml`'s
 * (stringifyDocument, stringifyCollection, stringifyPair, stringifyString, stringifyNumber) with
 * yaml-format.ts's spelling rule (scalars.ts).
 *
 * Two uses: a changed document of a package, in its own sequence style (an update's rewrite), and a
 * changed item of a ResourceList, as `renderNode` writes it in a one-item sequence (a run writes a
 * few dozen changed items, and the stringifier, cold in a process that runs once, cost more than the
 * edits). Anything else (tags, anchors, aliases, multi-line or escaped strings, floats, folded or kept
 * block scalars, comments inside flow collections) gives undefined, and the caller uses `yaml`.
 */
import * as yaml from 'yaml';
import { YAMLSeq, type Node, type Pair, type Scalar, type ScalarTag, type YAMLMap } from 'yaml';
import { checkUnescaped, INDENT_STEP, integerText, keptSpelling, OutsideSubset, outsideSubset, SCALAR_TAGS, stringText, type Place, type Spelled } from './scalars';
import type { RenderStyle } from './yaml-format';

// A bundle reads a package's exports through getters: `yaml`'s node tests are taken once, as every
// node of a rendering is tested.
const { isMap, isPair, isScalar, isSeq } = yaml;

// -- comments ----------------------------------------------------------------------------------

/** Comment text as written: `#` before each line with text, a line of one space a bare `#`. */
function commentLines(comment: string): string {
  return comment.replace(/^(?!$)(?: $)?/gm, '#');
}

/** Comment lines indented (empty ones not); a comment of line breaks only is one line shorter. */
function indentComment(comment: string, indent: string): string {
  if (/^\n+$/.test(comment)) return comment.slice(1);
  return indent ? comment.replace(/^(?! *$)/gm, indent) : comment;
}

/** A comment after `text` on its line, or on lines of its own when it has several. */
function lineComment(text: string, indent: string, comment: string): string {
  if (text.endsWith('\n')) return indentComment(comment, indent);
  if (comment.includes('\n')) return `\n${indentComment(comment, indent)}`;
  return (text.endsWith(' ') ? '' : ' ') + comment;
}

// -- scalars -----------------------------------------------------------------------------------

/** Nodes carry nothing here that only the stringifier's other paths write. */
function checkNode(node: Node): void {
  if (node.tag !== undefined || node.anchor !== undefined) outsideSubset();
}

const NULL_TEST = SCALAR_TAGS.find((tag) => tag.tag === 'tag:yaml.org,2002:null')!.test!;
const BOOL_TEST = SCALAR_TAGS.find((tag) => tag.tag === 'tag:yaml.org,2002:bool')!.test!;

/** The tag `yaml` renders a scalar with (its getTagObject): among those that identify its value, one of its format. */
function findTag(scalar: Scalar): ScalarTag {
  let matches = SCALAR_TAGS.filter((tag) => tag.identify?.(scalar.value));
  if (matches.length > 1) {
    const tested = matches.filter((tag) => tag.test);
    if (tested.length > 0) matches = tested;
  }
  const tag = matches.find((candidate) => candidate.format === scalar.format) ?? matches.find((candidate) => !candidate.format) ?? outsideSubset();
  // A tag that is not the default for its values would be written out.
  if (!tag.default) outsideSubset();
  return tag;
}

/** The tag of strings, of booleans, of null, and of numbers by format and whether they are whole: the same for every such value. */
const tagsByKind = new Map<string, ScalarTag>();

function tagOf(scalar: Scalar): ScalarTag {
  const value = scalar.value;
  const kind = typeof value === 'number' ? `number ${Number.isInteger(value)} ${scalar.format}` : value === null ? 'null' : typeof value;
  let tag = tagsByKind.get(kind);
  if (!tag) tagsByKind.set(kind, (tag = findTag(scalar)));
  return tag;
}

/** A `|` or `|-` block: lines without leading or trailing white space at its ends, no tabs. */
function literal(scalar: Scalar, value: string, place: Place): string {
  if (place.implicitKey || place.inFlow || scalar.comment || value === '' || value.includes('\t') || /^[ \n]/.test(value) || / \n?$/.test(value) || /\n\n$/.test(value)) outsideSubset();
  if (place.indent === '') outsideSubset();
  checkUnescaped(value);
  const clipped = value.endsWith('\n');
  const body = (clipped ? value.slice(0, -1) : value).replace(/\n+/g, (breaks) => `${breaks}${place.indent}`);
  return `|${clipped ? '' : '-'}\n${place.indent}${body}`;
}

// -- places ------------------------------------------------------------------------------------

/** A place, and how deep it is: its indentation is `level` steps. */
interface At extends Place {
  readonly level: number;
}

/** Where the pairs of a map go: its keys, their values, and a value that is a block sequence in compact style (its `- ` at the key's column). */
interface PairPlaces {
  readonly key: At;
  readonly value: At;
  readonly compactSeq: At;
}

/** The places of a block collection at one level, the same for all: its pairs, and a sequence's items (at `value`). */
interface Level extends PairPlaces {
  readonly indent: string;
}

const levels: Level[] = [];

function levelAt(level: number): Level {
  let at = levels[level];
  if (!at) {
    const indent = INDENT_STEP.repeat(level);
    const deeper = indent + INDENT_STEP;
    at = levels[level] = {
      indent,
      key: { indent: deeper, inFlow: false, implicitKey: true, level: level + 1 },
      value: { indent: deeper, inFlow: false, implicitKey: false, level: level + 1 },
      compactSeq: { indent, inFlow: false, implicitKey: false, level },
    };
  }
  return at;
}

/** Appends a line of a block collection at `indent`: an empty one without its indentation. */
function withLine(text: string, first: boolean, indent: string, line: string): string {
  return first ? line : line ? `${text}\n${indent}${line}` : `${text}\n`;
}

/** A map or sequence written in block style, outside a flow collection (one written in flow style is on one line). */
function isBlock(node: Node): boolean {
  return (isMap(node) || isSeq(node)) && node.flow !== true;
}

// -- the renderer ------------------------------------------------------------------------------

class Renderer {
  constructor(
    /** Sequences in maps two columns deeper than their key (`indentSeq`), or at its column. */
    private readonly wide: boolean,
  ) {}

  /** A node as the value of a pair or an item of a sequence at `place`. */
  private node(node: Node, place: At): string {
    if (isScalar(node)) return this.scalar(node, place);
    if (isMap(node)) return this.collection(node, place, false);
    if (isSeq(node)) return this.collection(node, place, true);
    return outsideSubset();
  }

  private collection(node: YAMLMap | YAMLSeq, place: At, seq: boolean): string {
    checkNode(node);
    return place.inFlow || node.flow === true ? this.flow(node, place, seq) : this.block(node, place.level, seq);
  }

  private scalar(scalar: Scalar, place: Place): string {
    checkNode(scalar);
    // Only a spelling the input recorded needs the tag, to see whether it still spells the value.
    if ((scalar as Spelled).spelling !== undefined) {
      const spelling = keptSpelling(scalar as Spelled, tagOf(scalar));
      if (spelling !== undefined) return spelling;
    }
    const { value } = scalar;
    if (typeof value === 'string') return scalar.type === 'BLOCK_LITERAL' ? literal(scalar, value, place) : stringText(value, scalar.type, place);
    if (typeof value === 'number') {
      if (scalar.format !== undefined || scalar.minFractionDigits !== undefined) outsideSubset();
      return integerText(value);
    }
    const { source } = scalar;
    if (typeof value === 'boolean') return typeof source === 'string' && BOOL_TEST.test(source) && value === (source[0] === 't' || source[0] === 'T') ? source : String(value);
    if (value === null) return typeof source === 'string' && NULL_TEST.test(source) ? source : 'null';
    return outsideSubset();
  }

  /**
   * A block collection at `level` (the column of a map's keys, of a sequence's `-`): its items,
   * each after its blank line and comment lines, then its own comment on lines of their own.
   */
  block(collection: YAMLMap | YAMLSeq, level: number, seq: boolean): string {
    const places = levelAt(level);
    const { indent } = places;
    let text = '';
    let first = true;
    for (const item of collection.items) {
      let before: Node | undefined;
      if (seq) {
        // Not a pair, nor a value that is no node; which nodes an item may be, node() checks.
        if (item === null || typeof item !== 'object' || isPair(item)) outsideSubset();
        before = item as Node;
      } else {
        if (!isPair(item)) outsideSubset();
        const { key } = item as Pair;
        if (isScalar(key)) before = key;
      }
      if (before !== undefined) {
        if (before.spaceBefore) {
          text = withLine(text, first, indent, '');
          first = false;
        }
        if (before.commentBefore) {
          text = withLine(text, first, indent, indentComment(commentLines(before.commentBefore), indent).trimStart());
          first = false;
        }
      }
      text = withLine(text, first, indent, seq ? this.entry(before!, places.value) : this.pair(item as Pair, places));
      first = false;
    }
    if (first) text = seq ? '[]' : '{}';
    return collection.comment ? `${text}\n${indentComment(commentLines(collection.comment), indent)}` : text;
  }

  /** `- ` and an item of a block sequence, with its comment. */
  private entry(node: Node, place: At): string {
    const rendered = this.node(node, place);
    // A block collection writes its own comment.
    const comment = node.comment && !isBlock(node) ? lineComment(rendered, place.indent, commentLines(node.comment)) : '';
    return `- ${rendered}${comment}`;
  }

  /** A flow collection on one line: no comments or blank lines inside it. */
  private flow(collection: YAMLMap | YAMLSeq, place: At, seq: boolean): string {
    const level = place.level + (seq ? 2 : 1);
    const indent = INDENT_STEP.repeat(level);
    const deeper: At = { indent: indent + INDENT_STEP, inFlow: true, implicitKey: false, level: level + 1 };
    const entry: At = { indent, inFlow: true, implicitKey: place.implicitKey, level };
    const pairs: PairPlaces = { key: { ...deeper, implicitKey: true }, value: deeper, compactSeq: deeper };
    let text = '';
    for (const item of collection.items) {
      let part: string;
      if (isPair(item)) {
        part = this.pair(item as Pair, pairs);
      } else {
        if (!isScalar(item) && !isMap(item) && !isSeq(item)) outsideSubset();
        const node = item as Node;
        if (node.spaceBefore || node.commentBefore || node.comment) outsideSubset();
        part = this.node(node, entry);
      }
      if (part.includes('\n')) outsideSubset();
      text = text === '' ? part : `${text}, ${part}`;
    }
    return seq ? `[${text}]` : `{${text}}`;
  }

  /** `key: value`, with their comments. */
  private pair(pair: Pair, places: PairPlaces): string {
    const { key, value } = pair;
    const { inFlow } = places.key;
    const node = value as Node;
    const scalar = isScalar(node);
    const seq = !scalar && isSeq(node);
    const collection = seq || (!scalar && isMap(node));
    if (!scalar && !collection) return outsideSubset();
    let keyText: string;
    let keyComment: string | null | undefined;
    if (typeof key === 'string' && key !== '') {
      // A key set by `map.set('name', ...)` is a string, not a node: written as a new string.
      keyText = stringText(key, undefined, places.key);
    } else {
      if (!isScalar(key) || typeof key.value !== 'string') return outsideSubset();
      if (key.type !== undefined && key.type !== 'PLAIN' && key.type !== 'QUOTE_DOUBLE' && key.type !== 'QUOTE_SINGLE') outsideSubset();
      keyText = this.scalar(key, places.key);
      keyComment = key.comment;
      if (inFlow && (keyComment || key.commentBefore || key.spaceBefore)) outsideSubset();
    }
    // A long key is written as an explicit `? key`.
    if (keyText.length > 1024) outsideSubset();
    if (inFlow && (node.spaceBefore || node.commentBefore || node.comment)) outsideSubset();
    let text = keyComment ? `${keyText}:${lineComment(`${keyText}:`, places.key.indent, commentLines(keyComment))}` : `${keyText}:`;
    const flow = collection && (inFlow || (node as YAMLMap | YAMLSeq).flow === true);
    // Compact sequences (no indentSeq) have their `- ` at the key's column.
    const valuePlace = seq && !flow && !this.wide ? places.compactSeq : places.value;
    const valueIndent = valuePlace.indent;
    const rendered = collection ? this.collection(node as YAMLMap | YAMLSeq, valuePlace, seq) : this.scalar(node as Scalar, valuePlace);
    // A block collection writes its own comment.
    const commentDone = collection && !flow && !!node.comment;
    let space = ' ';
    if (keyComment || node.spaceBefore || node.commentBefore) {
      space = node.spaceBefore ? '\n' : '';
      if (node.commentBefore) space += `\n${indentComment(commentLines(node.commentBefore), valueIndent)}`;
      if (rendered === '' && !inFlow) {
        if (space === '\n' && node.comment) space = '\n\n';
      } else space += `\n${valueIndent}`;
    } else if (collection) {
      // Flow collections come out on one line here, block ones on lines of their own; an empty block
      // one is `{}` or `[]`, on the next line when its comment follows it.
      if (commentDone || !(inFlow || ((node as YAMLMap | YAMLSeq).flow ?? (node as YAMLMap | YAMLSeq).items.length === 0))) space = `\n${valueIndent}`;
    } else if (rendered === '' || rendered.startsWith('\n')) space = '';
    text += space + rendered;
    if (node.comment && !commentDone) text += lineComment(text, valueIndent, commentLines(node.comment));
    return text;
  }
}

const COMPACT = new Renderer(false);
const WIDE = new Renderer(true);

/** Runs a rendering; undefined where it leaves the subset. */
function attempt(render: () => string): string | undefined {
  try {
    return render();
  } catch (error) {
    if (error instanceof OutsideSubset) return undefined;
    throw error;
  }
}

/**
 * The document `contents` with its own comments as `yaml` writes it in `style` (document-text.ts
 * renderDocument), ending with a newline, or undefined where that is left to `yaml`.
 */
export function renderSimpleDocument(contents: Node | null, comments: { readonly commentBefore?: string | null; readonly comment?: string | null }, style: RenderStyle): string | undefined {
  if (style.version === '1.1' || !isMap(contents) || contents.flow) return undefined;
  const renderer = style.seqIndent === 'wide' ? WIDE : COMPACT;
  return attempt(() => {
    checkNode(contents);
    const lines: string[] = [];
    if (comments.commentBefore) lines.push(indentComment(commentLines(comments.commentBefore), ''), '');
    if (contents.commentBefore) lines.push(indentComment(commentLines(contents.commentBefore), ''));
    lines.push(renderer.block(contents, 0, false));
    if (comments.comment) {
      if (lines[lines.length - 1] !== '') lines.push('');
      lines.push(indentComment(commentLines(comments.comment), ''));
    }
    return `${lines.join('\n')}\n`;
  });
}

/**
 * An item of a ResourceList as `renderNode` writes a sequence holding it alone, in YAML 1.2 (`- `
 * and the item's lines, its blank line and comment lines before it, no final newline), or
 * undefined where that is left to `yaml`.
 */
export function renderItem(node: Node): string | undefined {
  const seq = new YAMLSeq();
  seq.items.push(node);
  return attempt(() => COMPACT.block(seq, 0, true));
}
