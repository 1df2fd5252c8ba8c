/**
 * Reading and writing a ResourceList.
 *
 * Output is the input text with only the changed parts replaced: removed items are cut, changed
 * items re-rendered, new items appended, results added. A no-op run returns the input unchanged.
 */
import { CST, isMap, isSeq, LineCounter, YAMLMap, YAMLSeq, type Document, type Node } from 'yaml';
import { KrmResource } from './resource';
import { errorResult, FunctionError, resultToPlain, type Result } from './results';
import { newDocument, parseYaml, releaseSourceTokens, renderNode } from './yaml-format';

export const RESOURCE_LIST_VERSIONS = ['config.kubernetes.io/v1', 'config.kubernetes.io/v1beta1'] as const;

interface ItemSpan {
  /** Offset of the `- ` indicator. */
  readonly dash: number;
  readonly end: number;
}

interface ItemsLayout {
  /** Where the `items` key ends, to write `items: []` when every item is removed. */
  readonly keyEnd: number;
  /** Column of the `- ` indicators. */
  readonly indent: number;
  readonly spans: ReadonlyMap<KrmResource, ItemSpan>;
  /** Where new items go; absent when `items` is not a block sequence and must be rendered whole. */
  readonly appendAt?: number;
  /** The text range of the whole `items` value, replaced when it is not a block sequence. */
  readonly valueRange: readonly [number, number];
}

export interface ResourceListSource {
  readonly text: string;
  readonly doc: Document.Parsed;
  readonly layout: ItemsLayout;
  readonly lineCounter: LineCounter;
}

export class ResourceList {
  items: KrmResource[];
  readonly results: Result[] = [];

  /** `source` is the text it was read from; a list built in memory (the update command) has none. */
  constructor(
    readonly apiVersion: string,
    items: KrmResource[],
    readonly functionConfig: KrmResource | undefined,
    readonly source?: ResourceListSource,
  ) {
    this.items = items;
  }
}

function offsetLocation(lineCounter: LineCounter, offset: number): string {
  const { line, col } = lineCounter.linePos(offset);
  return `line ${line}, column ${col}`;
}

function readItemsLayout(text: string, itemsNode: YAMLSeq, keyEnd: number, resources: KrmResource[]): ItemsLayout {
  const token = (itemsNode as { srcToken?: CST.Token }).srcToken;
  const range = itemsNode.range ?? [text.length, text.length, text.length];
  if (!token || token.type !== 'block-seq') {
    return { keyEnd, indent: 0, spans: new Map(), valueRange: [range[0], range[1]] };
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

function checkItem(node: unknown, index: number, lineCounter: LineCounter): Result | undefined {
  const where = (n: unknown) => {
    const range = (n as { range?: [number, number, number] } | undefined)?.range;
    return range ? ` (${offsetLocation(lineCounter, range[0])})` : '';
  };
  if (!isMap(node)) return errorResult(`${describeItem(index, node)} is not a KRM object: expected a map${where(node)}`, { field: { path: `items[${index}]` } });
  const fields = [['apiVersion'], ['kind'], ['metadata', 'name']].map((path) => {
    const value = node.getIn(path);
    return { path: path.join('.'), present: typeof value === 'string' && value !== '' };
  });
  // kpt forwards YAML files that are not KRM objects at all (a kustomization.yaml without a kind);
  // they pass through untouched. An object that names some of its identity but not all is broken.
  if (fields.every((f) => f.present) || fields.every((f) => !f.present)) return undefined;
  const missing = fields.filter((f) => !f.present).map((f) => f.path);
  const file = new KrmResource(node, newDocument(), 'input').fileRef();
  return errorResult(`${describeItem(index, node)} is not a KRM object: it has no ${missing.join(', ')}${where(node)}`, {
    field: { path: `items[${index}].${missing[0]}` },
    ...(file ? { file } : {}),
  });
}

/** Parses a ResourceList; throws FunctionError with results a user can act on. */
export function parseResourceList(text: string): ResourceList {
  if (text.trim() === '') {
    throw new FunctionError(errorResult('no input: expected a ResourceList (config.kubernetes.io/v1) on stdin'));
  }
  const lineCounter = new LineCounter();
  let parsed: ReturnType<typeof parseYaml>;
  try {
    parsed = parseYaml(text, lineCounter);
  } catch (error) {
    if (error instanceof RangeError) {
      throw new FunctionError(errorResult('the input is nested too deeply to read as YAML'));
    }
    throw error;
  }
  const { doc, hasAliases } = parsed;
  if (doc.errors.some((e) => e.message.includes('Maximum call stack size exceeded'))) {
    throw new FunctionError(errorResult('the input is nested too deeply to read as YAML'));
  }
  if (doc.errors.length > 0) {
    throw new FunctionError(
      doc.errors.slice(0, 5).map((e) => errorResult(`input is not valid YAML: ${e.message.split('\n')[0]} (${offsetLocation(lineCounter, e.pos[0])})`)),
    );
  }
  if (hasAliases) {
    try {
      doc.toJS({ maxAliasCount: 100 });
    } catch (error) {
      throw new FunctionError(errorResult(`the input's YAML aliases expand too far to be read safely: ${(error as Error).message}`));
    }
  }
  const root = doc.contents;
  if (!isMap(root)) {
    throw new FunctionError(errorResult('input is not a ResourceList: expected a YAML map with kind ResourceList'));
  }
  const apiVersion: unknown = root.get('apiVersion');
  const kind: unknown = root.get('kind');
  if (kind !== 'ResourceList' || !RESOURCE_LIST_VERSIONS.includes(apiVersion as (typeof RESOURCE_LIST_VERSIONS)[number])) {
    throw new FunctionError(
      errorResult(
        `input is not a ResourceList: got apiVersion ${JSON.stringify(apiVersion ?? null)} kind ${JSON.stringify(kind ?? null)}, expected kind ResourceList with apiVersion ${RESOURCE_LIST_VERSIONS.join(' or ')}`,
      ),
    );
  }
  const itemsNode = root.get('items', true) as Node | undefined;
  if (!isSeq(itemsNode)) {
    throw new FunctionError(errorResult('the ResourceList has no items list: `items` must be a list of KRM objects', { field: { path: 'items' } }));
  }
  const problems: Result[] = [];
  itemsNode.items.forEach((node, index) => {
    const problem = checkItem(node, index, lineCounter);
    if (problem) problems.push(problem);
  });
  if (problems.length > 0) throw new FunctionError(problems);

  const resources = itemsNode.items.map((node) => new KrmResource(node as YAMLMap, doc, 'input'));
  const itemsKey = root.items.find((pair) => (pair.key as { value?: unknown }).value === 'items')?.key as Node;
  const layout = readItemsLayout(text, itemsNode, itemsKey.range![1], resources);
  releaseSourceTokens(doc);
  const configNode = root.get('functionConfig', true) as Node | null | undefined;
  let functionConfig: KrmResource | undefined;
  if (isMap(configNode)) {
    functionConfig = new KrmResource(configNode, doc, 'input');
  } else if (configNode !== undefined && configNode !== null && !isNullScalar(configNode)) {
    throw new FunctionError(errorResult('functionConfig must be a KRM object (a YAML map)', { field: { path: 'functionConfig' } }));
  }
  return new ResourceList(apiVersion as string, resources, functionConfig, { text, doc, layout, lineCounter });
}

function isNullScalar(node: Node): boolean {
  return (node as { value?: unknown }).value === null;
}

function indentLines(text: string, indent: string): string {
  return text.replace(/\n(?!\n)/g, `\n${indent}`);
}

/** `- ` + the item, every following line indented to the sequence's column. */
function renderItem(resource: KrmResource, indent: number): string {
  const seq = new YAMLSeq();
  seq.items.push(resource.node);
  return indentLines(renderNode(seq), ' '.repeat(indent));
}

function renderResults(results: readonly Result[]): string {
  const doc = newDocument();
  doc.contents = doc.createNode({ results: results.map(resultToPlain) });
  return renderNode(doc.contents as Node);
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

function applyEdits(text: string, edits: Edit[]): string {
  edits.sort((a, b) => a.start - b.start || a.end - b.end);
  let out = '';
  let at = 0;
  for (const edit of edits) {
    out += text.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + text.slice(at);
}

function itemEdits(list: ResourceList, source: ResourceListSource): Edit[] {
  const { layout } = source;
  const present = new Set(list.items);
  const edits: Edit[] = [];
  if (layout.appendAt === undefined) {
    if (list.items.some((r) => r.isChanged) || list.items.length !== layout.spans.size) {
      const rendered = list.items.map((r) => renderItem(r, 0)).join('\n');
      edits.push({ start: layout.valueRange[0], end: layout.valueRange[1], text: list.items.length ? `\n${rendered}` : '[]' });
    }
    return edits;
  }
  const text = source.text;
  if (list.items.length === 0) {
    // A block sequence cannot be empty: every item went, so the list becomes `[]`.
    return layout.spans.size === 0 ? [] : [{ start: layout.keyEnd, end: layout.appendAt, text: `: []${text[layout.appendAt - 1] === '\n' ? '\n' : ''}` }];
  }
  for (const [resource, span] of layout.spans) {
    if (!present.has(resource)) {
      // Take the indentation before the `- ` too, so the next item keeps its column.
      const lineStart = text.lastIndexOf('\n', span.dash - 1) + 1;
      const start = text.slice(lineStart, span.dash).trim() === '' ? lineStart : span.dash;
      edits.push({ start, end: span.end, text: '' });
    } else if (resource.isChanged) {
      const newline = text[span.end - 1] === '\n' ? '\n' : '';
      edits.push({ start: span.dash, end: span.end, text: `${renderItem(resource, layout.indent)}${newline}` });
    }
  }
  const added = list.items.filter((r) => !layout.spans.has(r));
  if (added.length > 0) {
    const indent = ' '.repeat(layout.indent);
    const needsNewline = text[layout.appendAt - 1] !== '\n';
    const rendered = (needsNewline ? '\n' : '') + added.map((r) => `${indent}${renderItem(r, layout.indent)}\n`).join('');
    edits.push({ start: layout.appendAt, end: layout.appendAt, text: rendered });
  }
  return edits;
}

function resultsEdit(list: ResourceList, source: ResourceListSource): Edit | undefined {
  if (list.results.length === 0) return undefined;
  const root = source.doc.contents as YAMLMap;
  const existing = root.items.find((pair) => (pair.key as { value?: unknown }).value === 'results');
  const earlier = existing ? ((existing.value as Node | null)?.toJSON?.() as Record<string, unknown>[] | undefined) ?? [] : [];
  const all = [...(Array.isArray(earlier) ? (earlier as unknown as Result[]) : []), ...list.results];
  const text = source.text;
  const block = `${renderResults(all)}\n`;
  if (existing) {
    const keyRange = (existing.key as Node).range!;
    const valueRange = (existing.value as Node | null)?.range ?? keyRange;
    const end = text.indexOf('\n', valueRange[2] - 1);
    return { start: keyRange[0], end: end === -1 ? text.length : end + 1, text: block };
  }
  return { start: text.length, end: text.length, text: (text.endsWith('\n') ? '' : '\n') + block };
}

/** Writes the list; `keepItems` writes the input's items untouched (after an error, nothing half-applied). */
export function serializeResourceList(list: ResourceList, { keepItems = false } = {}): string {
  const { source } = list;
  if (!source) throw new Error('a ResourceList built in memory has no text to write back');
  const edits = keepItems ? [] : itemEdits(list, source);
  const results = resultsEdit(list, source);
  if (results) edits.push(results);
  return edits.length === 0 ? source.text : applyEdits(source.text, edits);
}

/** The output when the input could not be read at all: a valid, empty ResourceList with the results. */
export function failureResourceList(results: readonly Result[], apiVersion: string = RESOURCE_LIST_VERSIONS[0]): string {
  return `apiVersion: ${apiVersion}\nkind: ResourceList\nitems: []\n${renderResults(results)}\n`;
}
