/**
 * The text `yaml` renders for a document of the simple shapes an update writes (block and one-line
 * flow collections; strings, numbers, booleans and nulls; `|` and `|-` literals; comments and blank
 * lines), in this project's render options, made without `yaml`'s general machinery: several times
 * faster, and the same text to the byte (test/unit/simple-render.test.ts holds it to `yaml` on real,
 * generated and edited documents). Anything else (tags, anchors, aliases, multi-line or escaped
 * strings, strings that would need quotes they do not have, folded or kept block scalars, comments
 * inside flow collections) gives undefined, and the caller renders with `yaml`.
 */
import { isMap, isPair, isScalar, isSeq, type Node, type Pair, type Scalar, type ScalarTag, type YAMLMap, type YAMLSeq } from 'yaml';
import { OutsideSubset } from './plain-scalars';
import { newDocument, YAML_11_NON_STRING, type RenderStyle } from './yaml-format';

/** Out of the shapes rendered here: the caller renders with `yaml`. A declaration, so that the compiler narrows after it. */
function bail(): never {
  throw new OutsideSubset();
}

const STRING_TAG = 'tag:yaml.org,2002:str';
/** The tags of the rendering document (their `identify`, `test`, `resolve` and `format`), in its order. */
const TAGS = newDocument().schema.tags as ScalarTag[];
/** What the tags other than the string one read: a plain string matching it would read as another type. */
const OTHER_TYPES = new RegExp(
  TAGS.filter((tag) => tag.default && tag.tag !== STRING_TAG && tag.test)
    .map((tag) => `(?:${tag.test!.source})`)
    .join('|'),
);
const NULL_TEST = TAGS.find((tag) => tag.tag === 'tag:yaml.org,2002:null')!.test!;
const BOOL_TEST = TAGS.find((tag) => tag.tag === 'tag:yaml.org,2002:bool')!.test!;

const SCALAR_PROPERTIES = new Set(['value', 'source', 'type', 'format', 'minFractionDigits', 'spelling', 'comment', 'commentBefore', 'spaceBefore', 'range']);
const COLLECTION_PROPERTIES = new Set(['items', 'flow', 'comment', 'commentBefore', 'spaceBefore', 'range']);
const INDENT_STEP = '  ';

interface Context {
  /** The indentation of the lines the node's content continues on. */
  readonly indent: string;
  readonly inFlow: boolean;
  /** A map key written without `? `. */
  readonly implicitKey: boolean;
  readonly wide: boolean;
}

/** What a rendering did with the node's own line comment. */
interface Rendered {
  readonly text: string;
  /** The node's `comment` is in `text` already. */
  readonly commentDone: boolean;
}

// -- comments ----------------------------------------------------------------------------------

/** Comment text as written: `#` before each line with text, a line of one space a bare `#`. */
function commentText(comment: string): string {
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

function checkProperties(node: object, allowed: ReadonlySet<string>): void {
  for (const key of Object.keys(node)) if (!allowed.has(key) && (node as Record<string, unknown>)[key] !== undefined) bail();
}

/** The tag `yaml` renders a scalar with: among those that identify its value, one of its format. */
function findTag(scalar: Scalar): ScalarTag {
  let matches = TAGS.filter((tag) => tag.identify?.(scalar.value));
  if (matches.length > 1) {
    const tested = matches.filter((tag) => tag.test);
    if (tested.length > 0) matches = tested;
  }
  const tag = matches.find((candidate) => candidate.format === scalar.format) ?? matches.find((candidate) => !candidate.format) ?? bail();
  // A tag that is not the default for its values would be written out.
  if (!tag.default) bail();
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

function sameValue(a: unknown, b: unknown): boolean {
  return Object.is(a, b);
}

/** The spelling the input had, where the value is still the one it spelled (yaml-format.ts keepSourceSpelling). */
function keptSpelling(scalar: Scalar & { spelling?: string }, tag: ScalarTag): string | undefined {
  if (scalar.spelling === undefined || typeof scalar.source !== 'string') return undefined;
  // Strings resolve to themselves.
  if (tag.tag === STRING_TAG) return scalar.source === scalar.value ? scalar.spelling : undefined;
  let original: unknown;
  try {
    original = tag.resolve(scalar.source, () => undefined, {});
  } catch {
    return undefined;
  }
  const value = original !== null && typeof original === 'object' && 'value' in original ? (original as { value: unknown }).value : original;
  return sameValue(value, scalar.value) ? scalar.spelling : undefined;
}

/** Characters that make `yaml` write a string double-quoted, whatever its type. */
const NEEDS_ESCAPES = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u{D800}-\u{DFFF}]/u;
/** A plain string `yaml` would not write plain (its plainString's test). */
const NOT_PLAIN = /^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/;
const DOCUMENT_MARKER = /^(%|---|\.\.\.)/m;

function doubleQuoted(value: string): string {
  const json = JSON.stringify(value);
  if (json.includes('\\')) bail();
  return json;
}

function singleQuoted(value: string): string {
  if (value.includes('\n')) bail();
  return `'${value.replace(/'/g, "''")}'`;
}

function plain(value: string, ctx: Context): string {
  if (value.includes('\n') || (ctx.inFlow && /[[\]{},]/.test(value)) || NOT_PLAIN.test(value) || DOCUMENT_MARKER.test(value)) bail();
  if (OTHER_TYPES.test(value)) bail();
  return value;
}

/** A `|` or `|-` block: lines without leading or trailing white space at its ends, no tabs. */
function literal(scalar: Scalar, ctx: Context): Rendered {
  const value = scalar.value as string;
  if (ctx.implicitKey || ctx.inFlow || scalar.comment || value === '' || /[\t]/.test(value) || /^[ \n]/.test(value) || / \n?$/.test(value) || /\n\n$/.test(value)) bail();
  if (ctx.indent === '') bail();
  const clipped = value.endsWith('\n');
  const body = (clipped ? value.slice(0, -1) : value).replace(/\n+/g, (breaks) => `${breaks}${ctx.indent}`);
  return { text: `|${clipped ? '' : '-'}\n${ctx.indent}${body}`, commentDone: false };
}

function renderString(scalar: Scalar, ctx: Context): Rendered {
  const value = scalar.value as string;
  const type = scalar.type;
  if (NEEDS_ESCAPES.test(value)) bail();
  switch (type) {
    case 'BLOCK_LITERAL':
      return literal(scalar, ctx);
    case 'QUOTE_DOUBLE':
      return { text: doubleQuoted(value), commentDone: false };
    case 'QUOTE_SINGLE':
      return { text: singleQuoted(value), commentDone: false };
    case undefined:
    case 'PLAIN':
      // A new plain string that YAML 1.1 reads as another type is written double-quoted.
      return { text: YAML_11_NON_STRING.test(value) ? doubleQuoted(value) : plain(value, ctx), commentDone: false };
    default:
      return bail();
  }
}

function renderScalar(scalar: Scalar, ctx: Context): Rendered {
  checkProperties(scalar, SCALAR_PROPERTIES);
  const value = scalar.value;
  const tag = tagOf(scalar);
  const spelling = keptSpelling(scalar, tag);
  if (spelling !== undefined) return { text: spelling, commentDone: false };
  if (typeof value === 'string') return renderString(scalar, ctx);
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || scalar.format !== undefined || scalar.minFractionDigits !== undefined) bail();
    return { text: Object.is(value, -0) ? '-0' : String(value), commentDone: false };
  }
  if (typeof value === 'boolean') {
    const source = scalar.source;
    const spelled = typeof source === 'string' && BOOL_TEST.test(source) && value === (source[0] === 't' || source[0] === 'T');
    return { text: spelled ? source : String(value), commentDone: false };
  }
  if (value === null) {
    const source = scalar.source;
    return { text: typeof source === 'string' && NULL_TEST.test(source) ? source : 'null', commentDone: false };
  }
  return bail();
}

// -- collections -------------------------------------------------------------------------------

function render(node: unknown, ctx: Context): Rendered {
  if (isScalar(node)) return renderScalar(node, ctx);
  if (isMap(node) || isSeq(node)) {
    checkProperties(node, COLLECTION_PROPERTIES);
    return ctx.inFlow || node.flow === true ? { text: renderFlow(node, ctx), commentDone: false } : renderBlock(node, ctx);
  }
  return bail();
}

/** The lines before an item: a blank line, and its comment lines. */
function before(node: Node, lines: string[], indent: string): void {
  if (node.spaceBefore) lines.push('');
  if (node.commentBefore) lines.push(indentComment(commentText(node.commentBefore), indent).trimStart());
}

function renderBlock(collection: YAMLMap | YAMLSeq, ctx: Context): Rendered {
  const seq = isSeq(collection);
  const itemIndent = seq ? ctx.indent + INDENT_STEP : ctx.indent;
  const itemCtx: Context = { indent: itemIndent, inFlow: ctx.inFlow, implicitKey: ctx.implicitKey, wide: ctx.wide };
  const lines: string[] = [];
  for (const item of collection.items) {
    if (seq) {
      if (!isScalar(item) && !isMap(item) && !isSeq(item)) bail();
      before(item, lines, ctx.indent);
      const rendered = render(item, itemCtx);
      const comment = item.comment && !rendered.commentDone ? lineComment(rendered.text, itemIndent, commentText(item.comment)) : '';
      lines.push(`- ${rendered.text}${comment}`);
    } else {
      if (!isPair(item) || !isScalar(item.key)) bail();
      before(item.key, lines, ctx.indent);
      lines.push(renderPair(item as Pair<Scalar, unknown>, itemCtx));
    }
  }
  let text: string;
  if (lines.length === 0) text = seq ? '[]' : '{}';
  else text = lines.reduce((out, line, i) => (i === 0 ? line : line ? `${out}\n${ctx.indent}${line}` : `${out}\n`), '');
  if (collection.comment) return { text: `${text}\n${indentComment(commentText(collection.comment), ctx.indent)}`, commentDone: true };
  return { text, commentDone: false };
}

/** A flow collection on one line: no comments or blank lines inside it. */
function renderFlow(collection: YAMLMap | YAMLSeq, ctx: Context): string {
  const flowCtx: Context = { indent: (isSeq(collection) ? ctx.indent + INDENT_STEP : ctx.indent) + INDENT_STEP, inFlow: true, implicitKey: ctx.implicitKey, wide: ctx.wide };
  const parts = collection.items.map((item) => {
    if (isPair(item)) {
      if (!isScalar(item.key)) bail();
      return renderPair(item as Pair<Scalar, unknown>, flowCtx);
    }
    const node = item as Node;
    if (!isScalar(node) && !isMap(node) && !isSeq(node)) bail();
    if (node.spaceBefore || node.commentBefore || node.comment) bail();
    return render(node, flowCtx).text;
  });
  if (parts.some((part) => part.includes('\n'))) bail();
  const [open, close] = isSeq(collection) ? ['[', ']'] : ['{', '}'];
  return `${open}${parts.join(', ')}${close}`;
}

function renderPair(pair: Pair<Scalar, unknown>, ctx: Context): string {
  const key = pair.key;
  const value = pair.value;
  if (typeof key.value !== 'string' || (key.type !== undefined && key.type !== 'PLAIN' && key.type !== 'QUOTE_DOUBLE' && key.type !== 'QUOTE_SINGLE')) bail();
  if (!isScalar(value) && !isMap(value) && !isSeq(value)) bail();
  const keyCtx: Context = { indent: ctx.indent + INDENT_STEP, inFlow: ctx.inFlow, implicitKey: true, wide: ctx.wide };
  const keyText = renderScalar(key, keyCtx).text;
  if (keyText.length > 1024) bail();
  const keyComment = key.comment;
  if (ctx.inFlow && (keyComment || key.commentBefore || key.spaceBefore || value.spaceBefore || value.commentBefore || value.comment)) bail();
  let text = `${keyText}:${keyComment ? lineComment(`${keyText}:`, keyCtx.indent, commentText(keyComment)) : ''}`;
  const compactSeq = !ctx.wide && !ctx.inFlow && isSeq(value) && value.flow !== true;
  const valueCtx: Context = { indent: compactSeq ? ctx.indent : keyCtx.indent, inFlow: ctx.inFlow, implicitKey: false, wide: ctx.wide };
  const rendered = render(value, valueCtx);
  let space = ' ';
  if (keyComment || value.spaceBefore || value.commentBefore) {
    space = value.spaceBefore ? '\n' : '';
    if (value.commentBefore) space += `\n${indentComment(commentText(value.commentBefore), valueCtx.indent)}`;
    if (rendered.text === '' && !ctx.inFlow) {
      if (space === '\n' && value.comment) space = '\n\n';
    } else space += `\n${valueCtx.indent}`;
  } else if (isMap(value) || isSeq(value)) {
    // Flow collections come out on one line here (renderFlow), block ones on lines of their own; an
    // empty block one is `{}` or `[]`, on the next line when its comment follows it.
    if (rendered.commentDone || !(ctx.inFlow || (value.flow ?? value.items.length === 0))) space = `\n${valueCtx.indent}`;
  } else if (rendered.text === '' || rendered.text.startsWith('\n')) space = '';
  text += space + rendered.text;
  if (value.comment && !rendered.commentDone) {
    if (ctx.inFlow) bail();
    text += lineComment(text, valueCtx.indent, commentText(value.comment));
  }
  return text;
}

/**
 * The document `contents` with its own comments as `yaml` writes it in `style` (document-text.ts
 * renderDocument), or undefined where that is left to `yaml`.
 */
export function renderSimpleDocument(contents: Node | null, comments: { readonly commentBefore?: string | null; readonly comment?: string | null }, style: RenderStyle): string | undefined {
  if (style.version === '1.1' || !isMap(contents) || contents.flow) return undefined;
  try {
    const lines: string[] = [];
    if (comments.commentBefore) lines.push(indentComment(commentText(comments.commentBefore), ''), '');
    if (contents.commentBefore) lines.push(indentComment(commentText(contents.commentBefore), ''));
    const body = render(contents, { indent: '', inFlow: false, implicitKey: false, wide: style.seqIndent === 'wide' });
    lines.push(body.text);
    if (comments.comment) {
      if (lines[lines.length - 1] !== '') lines.push('');
      lines.push(indentComment(commentText(comments.comment), ''));
    }
    return `${lines.join('\n')}\n`;
  } catch (error) {
    if (error instanceof OutsideSubset) return undefined;
    throw error;
  }
}
