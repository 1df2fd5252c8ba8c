/**
 * Reading and writing a ResourceList.
 *
 * Output is the input text with only the changed parts replaced: removed items are cut, changed
 * items re-rendered, new items appended, results added. A no-op run returns the input unchanged.
 */
import { appendAll } from '../yaml/append';
import { CST, isMap, isSeq, LineCounter, YAMLMap, YAMLSeq, type Document, type Node } from 'yaml';
import { KrmResource, type YamlTree } from './resource';
import { errorResult, FunctionError, resultToPlain, type Result } from './results';
import { splitItems, type ItemChunk, type ItemsBlock } from './item-chunks';
import { checkWholeList, tooManyObjects } from './input-limits';
import { ParseBudget, RUN_PARSE_LIMITS, type ParseLimits, type Refusal } from '../yaml/parse-budget';
import { readSimpleBlockRange, readSimpleBlockWithout } from '../yaml/data-reader';
import { writeSimpleBlockMap } from '../yaml/data-writer';
import { renderItem } from '../yaml/renderer';
import { buildItemTree, treeDocument } from '../yaml/tree-builder';
import { writeWholeList } from './whole-list';
import { ResourceList, type ItemSpan, type ItemsLayout, type LineLocator, type ListShape, type ResourceListSource } from './list-model';
import { newDocument, parseYaml, releaseSourceTokens, renderNode, yamlVersionOf } from '../yaml/yaml-format';

export { ResourceList, type LineLocator, type ResourceListSource };

export const RESOURCE_LIST_VERSIONS = ['config.kubernetes.io/v1', 'config.kubernetes.io/v1beta1'] as const;

/** 1-based line and column of an offset in a text. */
function positionIn(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) {
    line += 1;
    lineStart = at + 1;
  }
  return { line, col: offset - lineStart + 1 };
}

function offsetLocation(lineCounter: LineLocator, offset: number): string {
  const { line, col } = lineCounter.linePos(offset);
  return `line ${line}, column ${col}`;
}

function readItemsLayout(text: string, itemsNode: YAMLSeq, keyEnd: number, resources: KrmResource[]): ItemsLayout {
  const token = (itemsNode as { srcToken?: CST.Token }).srcToken;
  const range = itemsNode.range ?? [text.length, text.length, text.length];
  if (!token || token.type !== 'block-seq') {
    // A flow sequence: its items' own ranges, to tell which are still there.
    const flowSpans = new Map(resources.flatMap((resource, i) => {
      const itemRange = (itemsNode.items[i] as Node | undefined)?.range;
      return itemRange ? [[resource, { dash: itemRange[0], end: itemRange[1] }] as const] : [];
    }));
    return { keyEnd, indent: 0, spans: flowSpans, valueRange: [range[0], range[1]] };
  }
  const spans = new Map<KrmResource, ItemSpan>();
  let appendAt = token.offset;
  token.items.forEach((item, i) => {
    const dash = item.start.find((t) => t.type === 'seq-item-ind');
    const value = item.value;
    const resource = resources[i];
    if (!dash || !value || !resource) return;
    const end = value.offset + CST.stringify(value).length;
    spans.set(resource, { dash: dash.offset, end });
    appendAt = end;
  });
  return { keyEnd, indent: token.indent, spans, appendAt, valueRange: [range[0], range[1]] };
}

function describeItem(index: number, node: unknown): string {
  if (isMap(node)) {
    const kind = node.get('kind');
    const name = (node.getIn(['metadata', 'name']) as unknown) ?? undefined;
    if (typeof kind === 'string' && typeof name === 'string') return `items[${index}] (${kind} ${name})`;
  }
  return `items[${index}]`;
}

/** ` (line L, column C)` for a node, or nothing when it has no position. */
type Locate = (node: unknown) => string;

function locateIn(lines: LineLocator, line = 1, column = 0): Locate {
  return (node) => {
    const range = (node as { range?: [number, number, number] } | undefined)?.range;
    if (!range) return '';
    const position = lines.linePos(range[0]);
    return ` (line ${position.line + line - 1}, column ${position.col + column})`;
  };
}

/**
 * Every map is an item, whatever it names of its identity: kpt reads every map in a package's YAML
 * files as a resource (a kustomization.yaml, a config file without apiVersion), and its merge knows
 * one that lacks a kind or a name by its file path.
 */
function checkItem(node: unknown, index: number, where: Locate): Result | undefined {
  if (!isMap(node)) return errorResult(`${describeItem(index, node)} is not a KRM object: expected a map${where(node)}`, { field: { path: `items[${index}]` } });
  return undefined;
}

function yamlErrors(doc: Document.Parsed, locate: (offset: number) => string): Result[] {
  if (doc.errors.some((e) => e.message.includes('Maximum call stack size exceeded'))) return [errorResult('the input is nested too deeply to read as YAML')];
  return doc.errors.slice(0, 5).map((e) => errorResult(`input is not valid YAML: ${e.message.split('\n')[0]} (${locate(e.pos[0])})`));
}

function parseChecked(text: string, options: Parameters<typeof parseYaml>[1], locate: (offset: number) => string): Document.Parsed {
  let parsed: ReturnType<typeof parseYaml>;
  try {
    parsed = parseYaml(text, options);
  } catch (error) {
    if (error instanceof RangeError) throw new FunctionError(errorResult('the input is nested too deeply to read as YAML'));
    throw error;
  }
  const problems = yamlErrors(parsed.doc, locate);
  if (problems.length > 0) throw new FunctionError(problems);
  if (parsed.hasAliases) {
    try {
      parsed.doc.toJS({ maxAliasCount: 100 });
    } catch (error) {
      throw new FunctionError(errorResult(`the input's YAML aliases expand too far to be read safely: ${(error as Error).message}`));
    }
  }
  return parsed.doc;
}

/** Throws unless these are a ResourceList's apiVersion and kind. */
function checkListType(apiVersion: unknown, kind: unknown): asserts apiVersion is string {
  if (kind !== 'ResourceList' || !RESOURCE_LIST_VERSIONS.includes(apiVersion as (typeof RESOURCE_LIST_VERSIONS)[number])) {
    throw new FunctionError(
      errorResult(
        `input is not a ResourceList: got apiVersion ${JSON.stringify(apiVersion ?? null)} kind ${JSON.stringify(kind ?? null)}, expected kind ResourceList with apiVersion ${RESOURCE_LIST_VERSIONS.join(' or ')}`,
      ),
    );
  }
}

/** The ResourceList map, checked for apiVersion and kind. */
function checkedRoot(doc: Document.Parsed): YAMLMap {
  const root = doc.contents;
  if (!isMap(root)) {
    throw new FunctionError(errorResult('input is not a ResourceList: expected a YAML map with kind ResourceList'));
  }
  checkListType(root.get('apiVersion'), root.get('kind'));
  return root;
}

const NOT_A_MAP = () => new FunctionError(errorResult('functionConfig must be a KRM object (a YAML map)', { field: { path: 'functionConfig' } }));

function checkItems(nodes: readonly unknown[], locate: (index: number) => Locate): void {
  const problems = nodes.flatMap((node, index) => checkItem(node, index, locate(index)) ?? []);
  if (problems.length > 0) throw new FunctionError(problems);
}

function readFunctionConfigNode(root: YAMLMap, doc: Document): KrmResource | undefined {
  const configNode = root.get('functionConfig', true) as Node | null | undefined;
  if (isMap(configNode)) return KrmResource.fromTree(configNode, doc, 'input');
  if (configNode !== undefined && configNode !== null && !isNullScalar(configNode)) throw NOT_A_MAP();
  return undefined;
}

/**
 * Parses a ResourceList; throws FunctionError with results a user can act on. Items are parsed one
 * by one where the text allows (`byItem: false` forces one document, to compare the two in tests).
 * `parseLimits` bound what the list's items may hand to the full parser, now and as their trees
 * are built later (smaller ones in tests).
 */
export function parseResourceList(text: string, { byItem = true, parseLimits = RUN_PARSE_LIMITS }: { byItem?: boolean; parseLimits?: ParseLimits } = {}): ResourceList {
  if (text.trim() === '') {
    throw new FunctionError(errorResult('no input: expected a ResourceList (config.kubernetes.io/v1) on stdin'));
  }
  const block = byItem ? splitItems(text) : undefined;
  return (block && parseByItem(text, block, new ParseBudget(parseLimits, refusedInput))) || parseWhole(text);
}

/** The parser's bounds, reached, are the run's error result. */
const refusedInput: Refusal = (message) => new FunctionError(errorResult(message));

/** The whole list as one YAML document. */
function parseWhole(text: string): ResourceList {
  checkWholeList(text);
  const lineCounter = new LineCounter();
  const doc = parseChecked(text, { lineCounter }, (offset) => offsetLocation(lineCounter, offset));
  const root = checkedRoot(doc);
  const itemsNode = root.get('items', true) as Node | undefined;
  if (!isSeq(itemsNode)) {
    throw new FunctionError(errorResult('the ResourceList has no items list: `items` must be a list of KRM objects', { field: { path: 'items' } }));
  }
  checkItems(itemsNode.items, () => locateIn(lineCounter));
  const resources = itemsNode.items.map((node) => KrmResource.fromTree(node as YAMLMap, doc, 'input'));
  const itemsKey = root.items.find((pair) => (pair.key as { value?: unknown }).value === 'items')?.key as Node;
  const layout = readItemsLayout(text, itemsNode, itemsKey.range![1], resources);
  releaseSourceTokens(doc);
  const source = { text, doc: () => doc, hasResults: root.has('results'), layout, lineCounter, shape: shapeOf(text, root), eol: lineEnding(text) };
  return new ResourceList(root.get('apiVersion') as string, resources, readFunctionConfigNode(root, doc), source);
}

function shapeOf(text: string, root: YAMLMap): ListShape {
  if (!root.flow) return 'block';
  try {
    JSON.parse(text);
    return 'json';
  } catch {
    return 'flow';
  }
}

/** CRLF when the first line ends so. */
function lineEnding(text: string): '\n' | '\r\n' {
  const newline = text.indexOf('\n');
  return newline > 0 && text[newline - 1] === '\r' ? '\r\n' : '\n';
}

/**
 * Puts the comments of an item's own document where kpt has them: the comment that opens it (after
 * `- `) on its first key, and the comments after its last line on the item, so that they stay with it
 * when it is rewritten.
 */
function takeItemComments(node: YAMLMap, doc: { commentBefore?: string | null; comment?: string | null }): void {
  if (doc.commentBefore && node.items.length > 0) {
    const key = node.items[0]!.key as Node;
    key.commentBefore = key.commentBefore ? `${doc.commentBefore}\n${key.commentBefore}` : doc.commentBefore;
    doc.commentBefore = null;
  }
  if (doc.comment) {
    node.comment = node.comment ? `${node.comment}\n${doc.comment}` : doc.comment;
    doc.comment = null;
  }
}

/** One item's text parsed on its own; throws FunctionError when it is not valid YAML, or past the budget. */
function parseItem(chunk: ItemChunk, budget: ParseBudget): { tree: YamlTree; locate: Locate } {
  const text = chunk.text;
  budget.spend(text);
  // Positions are worked out from the chunk's text only when something must be located.
  const itemLines: LineLocator = { linePos: (offset) => positionIn(text, offset) };
  const where = (offset: number) => {
    const { line, col } = itemLines.linePos(offset);
    return `line ${chunk.line + line - 1}, column ${col + chunk.dedent}`;
  };
  const doc = parseChecked(text, { releaseTokens: true }, where);
  const node = doc.contents;
  if (isMap(node)) takeItemComments(node, doc);
  return { tree: { node: node as YAMLMap, doc }, locate: locateIn(itemLines, chunk.line, chunk.dedent) };
}

interface Frame {
  readonly apiVersion: string;
  readonly functionConfig: KrmResource | undefined;
  readonly doc: () => Document.Parsed;
}

/**
 * The list without its items: read as plain data when it is simple YAML (the functionConfig's tree,
 * needed only to edit it or to locate a problem in it, is built on demand), else parsed. Undefined
 * when the input carries results already, whose rewriting needs the frame's offsets to be the input's.
 */
function readFrame(read: () => Record<string, unknown> | undefined, parse: () => Document.Parsed): Frame | undefined {
  const plain = read();
  if (!plain) {
    const doc = parse();
    const root = checkedRoot(doc);
    return root.has('results') ? undefined : { apiVersion: root.get('apiVersion') as string, functionConfig: readFunctionConfigNode(root, doc), doc: () => doc };
  }
  checkListType(plain.apiVersion, plain.kind);
  if ('results' in plain) return undefined;
  let parsed: Document.Parsed | undefined;
  const doc = () => (parsed ??= parse());
  const config = plain.functionConfig;
  if (config !== null && config !== undefined && (typeof config !== 'object' || Array.isArray(config))) throw NOT_A_MAP();
  const configTree = (): YamlTree => {
    const node = (doc().contents as YAMLMap).get('functionConfig', true);
    if (!isMap(node)) throw new TypeError('a functionConfig read as a map must parse as one');
    return { node, doc: doc() };
  };
  const functionConfig = config ? KrmResource.fromPlain(config as Record<string, unknown>, configTree, 'input') : undefined;
  return { apiVersion: plain.apiVersion, functionConfig, doc };
}

/**
 * The list's frame (the text without its items block) and each item parsed on its own: the parser
 * never holds the whole list's token tree. Undefined when the input carries results already, whose
 * rewriting needs the frame's offsets to be the input's.
 */
function parseByItem(text: string, block: ItemsBlock, budget: ParseBudget): ResourceList | undefined {
  const tooMany = tooManyObjects(block.chunks.length, 0);
  if (tooMany) throw tooMany;
  const frameLines = new LineCounter();
  let cutLines = 0;
  for (let at = text.indexOf('\n', block.start); at !== -1 && at < block.end; at = text.indexOf('\n', at + 1)) cutLines += 1;
  // Offsets in the frame, as lines of the input: the items block was cut out at block.start.
  const lineCounter: LineLocator = {
    linePos: (offset) => {
      const position = frameLines.linePos(offset);
      return offset >= block.start ? { line: position.line + cutLines, col: position.col } : position;
    },
  };
  const frame = readFrame(() => readSimpleBlockWithout(text, block.start, block.end), () => {
    const frameText = text.slice(0, block.start) + text.slice(block.end);
    budget.spend(frameText);
    return parseChecked(frameText, { lineCounter: frameLines, releaseTokens: true }, (offset) => offsetLocation(lineCounter, offset));
  });
  if (!frame) return undefined;
  const listed = frame.functionConfig?.getData(['items']);
  const tooManyListed = tooManyObjects(block.chunks.length, Array.isArray(listed) ? listed.length : 0);
  if (tooManyListed) throw tooManyListed;
  // An item's node tree, built when something first needs it (one function for every item, no
  // closure each): by the fast reader where it can, which costs a small part of a parse.
  const buildTree = (chunk: ItemChunk): YamlTree => {
    // Only items the reader took come here (the others were parsed as they were read): their lines were checked.
    const built = buildItemTree(text, chunk.bodyStart, chunk.end, chunk.dedent, true);
    if (!built) return parseItem(chunk, budget).tree;
    budget.spend(text.slice(chunk.bodyStart, chunk.end));
    takeItemComments(built.root, { commentBefore: built.commentBefore, comment: built.comment });
    return { node: built.root, doc: treeDocument() };
  };
  // Items in simple YAML are read as plain data, their trees built only if they are edited; the
  // others (to locate what is wrong with them in the message) are parsed now.
  const resources: KrmResource[] = [];
  const spans = new Map<KrmResource, ItemSpan>();
  const problems: Result[] = [];
  block.chunks.forEach((chunk, index) => {
    const plain = readSimpleBlockRange(text, chunk.bodyStart, chunk.end, chunk.dedent);
    let resource = plain && KrmResource.fromPlain(plain, buildTree, 'input', chunk);
    if (!resource) {
      const parsed = parseItem(chunk, budget);
      resource = KrmResource.fromTree(parsed.tree.node, parsed.tree.doc, 'input');
      const problem = checkItem(parsed.tree.node, index, parsed.locate);
      if (problem) problems.push(problem);
    }
    resources.push(resource);
    spans.set(resource, chunk);
  });
  if (problems.length > 0) throw new FunctionError(problems);
  const last = block.chunks[block.chunks.length - 1];
  const layout: ItemsLayout = last
    ? { keyEnd: block.keyEnd, indent: block.indent, spans, appendAt: last.end, valueRange: [block.chunks[0]!.dash, last.end] }
    : { keyEnd: block.keyEnd, indent: 0, spans, valueRange: block.emptyFlow! };
  return new ResourceList(frame.apiVersion, resources, frame.functionConfig, { text, doc: frame.doc, hasResults: false, layout, lineCounter, shape: 'block', eol: '\n' });
}

function isNullScalar(node: Node): boolean {
  return (node as { value?: unknown }).value === null;
}

// Lines are split and joined, not replaced with a global regular expression: V8 builds that result
// as a rope of one string per match, several times the size of the text, and at fleet scale the
// rendered items are most of the output.

/** Every line after the first indented by `indent`, except empty lines inside the text. */
function indentLines(text: string, indent: string): string {
  const lines = text.split('\n');
  const last = lines.length - 1;
  return lines.map((line, i) => (i === 0 || (line === '' && i < last) ? line : indent + line)).join('\n');
}

/** `- ` + one item in simple YAML, every following line indented to the sequence's column. */
function seqItem(text: string, indent: string): string {
  return `- ${text.split('\n').join(`\n${indent}  `)}`;
}

/**
 * `- ` + each item, every following line indented to the sequence's column, one part per rendering
 * (to be joined by a newline and the column). New items still in plain data are written without a
 * node tree where they can be, trees without `yaml`'s stringifier where they can be (renderer.ts);
 * the others share one rendering.
 */
function renderItemParts(resources: readonly KrmResource[], indent: number): string[] {
  const pad = ' '.repeat(indent);
  const parts: string[] = [];
  let pending: KrmResource[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const seq = new YAMLSeq();
    appendAll(seq.items, pending.map((r) => r.node));
    parts.push(indentLines(renderNode(seq, { version: yamlVersionOf(pending[0]!.doc) }), pad));
    pending = [];
  };
  for (const resource of resources) {
    const data = resource.generatedData;
    const written = data && writeSimpleBlockMap(data);
    if (written !== undefined) {
      flush();
      parts.push(seqItem(written, pad));
      continue;
    }
    // Items read under `%YAML 1.1` are rendered with its schema, the others with 1.2's.
    const version = yamlVersionOf(resource.doc);
    const rendered = version === '1.2' ? renderItem(resource.node) : undefined;
    if (rendered !== undefined) {
      flush();
      parts.push(indentLines(rendered, pad));
      continue;
    }
    if (pending.length > 0 && yamlVersionOf(pending[0]!.doc) !== version) flush();
    pending.push(resource);
  }
  flush();
  return parts;
}

function renderItems(resources: readonly KrmResource[], indent: number): string {
  return renderItemParts(resources, indent).join(`\n${' '.repeat(indent)}`);
}

/** A changed item at its place: a comment above its `- ` stays in the text around it, so it is not rendered again. */
function renderInPlace(resource: KrmResource, indent: number): string {
  const above = resource.node.commentBefore;
  resource.node.commentBefore = undefined;
  try {
    return renderItems([resource], indent);
  } finally {
    resource.node.commentBefore = above;
  }
}

function renderResults(results: readonly Result[]): string {
  const data = { results: results.map(resultToPlain) };
  return writeSimpleBlockMap(data) ?? renderNode(newDocument().createNode(data));
}

/** Text from `start` to `end` replaced by `pieces`, in order. */
interface Edit {
  start: number;
  end: number;
  pieces: string[];
}

/** The text with the edits applied, as pieces to write in order (never joined into one string). */
function applyEdits(text: string, edits: Edit[]): string[] {
  edits.sort((a, b) => a.start - b.start || a.end - b.end);
  const out: string[] = [];
  let at = 0;
  for (const edit of edits) {
    if (edit.start > at) out.push(text.slice(at, edit.start));
    appendAll(out, edit.pieces);
    at = edit.end;
  }
  if (at < text.length) out.push(text.slice(at));
  return out;
}

function itemEdits(list: ResourceList, source: ResourceListSource): Edit[] {
  const { layout } = source;
  const present = new Set(list.items);
  const edits: Edit[] = [];
  if (layout.appendAt === undefined) {
    const original = [...layout.spans.keys()];
    if (list.items.some((r, i) => r.isChanged || r !== original[i]) || list.items.length !== original.length) {
      const rendered = renderItems(list.items, 0);
      edits.push({ start: layout.valueRange[0], end: layout.valueRange[1], pieces: [list.items.length ? `\n${rendered}` : '[]'] });
    }
    return edits;
  }
  const text = source.text;
  if (list.items.length === 0) {
    // A block sequence cannot be empty: every item went, so the list becomes `[]`.
    return layout.spans.size === 0 ? [] : [{ start: layout.keyEnd, end: layout.appendAt, pieces: [`: []${text[layout.appendAt - 1] === '\n' ? '\n' : ''}`] }];
  }
  for (const [resource, span] of layout.spans) {
    if (!present.has(resource)) {
      // Take the indentation before the `- ` too, so the next item keeps its column.
      const lineStart = text.lastIndexOf('\n', span.dash - 1) + 1;
      const start = text.slice(lineStart, span.dash).trim() === '' ? lineStart : span.dash;
      edits.push({ start, end: span.end, pieces: [] });
    } else if (resource.isChanged) {
      const newline = text[span.end - 1] === '\n' ? '\n' : '';
      edits.push({ start: span.dash, end: span.end, pieces: [`${renderInPlace(resource, layout.indent)}${newline}`] });
    }
  }
  const added = list.items.filter((r) => !layout.spans.has(r));
  if (added.length > 0) {
    const indent = ' '.repeat(layout.indent);
    const needsNewline = text[layout.appendAt - 1] !== '\n';
    // One piece per item: at fleet scale the new items are most of the output, never one string.
    const pieces = renderItemParts(added, layout.indent).map((part, i) => `${i === 0 && needsNewline ? '\n' : ''}${indent}${part}\n`);
    edits.push({ start: layout.appendAt, end: layout.appendAt, pieces });
  }
  return edits;
}

function existingResults(source: ResourceListSource) {
  return source.hasResults ? (source.doc().contents as YAMLMap).items.find((pair) => (pair.key as { value?: unknown }).value === 'results') : undefined;
}

/** The input's results, if it had any, then this run's. */
function allResults(list: ResourceList, source: ResourceListSource): Result[] {
  const existing = existingResults(source);
  const earlier = existing ? ((existing.value as Node | null)?.toJSON?.() as Record<string, unknown>[] | undefined) ?? [] : [];
  return [...(Array.isArray(earlier) ? (earlier as unknown as Result[]) : []), ...list.results];
}

function resultsEdit(list: ResourceList, source: ResourceListSource): Edit | undefined {
  if (list.results.length === 0) return undefined;
  const existing = existingResults(source);
  const text = source.text;
  const block = `${renderResults(allResults(list, source))}\n`;
  if (existing) {
    const keyRange = (existing.key as Node).range!;
    const valueRange = (existing.value as Node | null)?.range ?? keyRange;
    const end = text.indexOf('\n', valueRange[2] - 1);
    return { start: keyRange[0], end: end === -1 ? text.length : end + 1, pieces: [block] };
  }
  return { start: text.length, end: text.length, pieces: [(text.endsWith('\n') ? '' : '\n') + block] };
}

/** The input item whose text holds `offset`, with its index; undefined outside every item. */
export function inputItemAt(list: ResourceList, offset: number): { index: number; resource: KrmResource } | undefined {
  const spans = [...(list.source?.layout.spans ?? [])];
  const index = spans.findIndex(([, span]) => offset >= span.dash && offset < span.end);
  return index === -1 ? undefined : { index, resource: spans[index]![0] };
}

/** 1-based line and column of an offset in the list's input. */
export function inputPosition(list: ResourceList, offset: number): { line: number; col: number } {
  return positionIn(list.source?.text ?? '', offset);
}

/**
 * The list's text as pieces to write in order; `keepItems` writes the input's items untouched (after
 * an error, nothing half-applied). Everything that can fail happens here, before any piece is
 * written, so that the output is never cut short.
 */
export function resourceListPieces(list: ResourceList, { keepItems = false } = {}): string[] {
  const { source } = list;
  if (!source) throw new Error('a ResourceList built in memory has no text to write back');
  const edits = keepItems ? [] : itemEdits(list, source);
  const results = resultsEdit(list, source);
  if (results) edits.push(results);
  if (edits.length === 0) return [source.text];
  if (source.shape !== 'block') return [writeWholeList(list, source, { keepItems, results: allResults(list, source) })];
  if (source.eol === '\r\n') for (const edit of edits) edit.pieces = edit.pieces.map((piece) => piece.split(/\r?\n/).join('\r\n'));
  return applyEdits(source.text, edits);
}

/** The list's text in one string. */
export function serializeResourceList(list: ResourceList, options: { keepItems?: boolean } = {}): string {
  return resourceListPieces(list, options).join('');
}

/** The output when the input could not be read at all: a valid, empty ResourceList with the results. */
export function failureResourceList(results: readonly Result[], apiVersion: string = RESOURCE_LIST_VERSIONS[0]): string {
  return `apiVersion: ${apiVersion}\nkind: ResourceList\nitems: []\n${renderResults(results)}\n`;
}
