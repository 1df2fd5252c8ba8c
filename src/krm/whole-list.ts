/**
 * Writing a list whose text cannot take block YAML spliced into it: a JSON list is written as JSON,
 * a flow-style YAML list as block YAML. Only lists the run changes come here; an unchanged list is
 * its input, byte for byte.
 *
 * JSON keeps each unchanged item's text as it was (numbers such as 1.0 or 12345678901234567890
 * included); changed and new items are written from their nodes, numbers with their input spelling
 * where it still holds their value.
 */
import { appendAll } from '../yaml/append';
import { isMap, isScalar, isSeq, Pair, YAMLMap, YAMLSeq, type Node } from 'yaml';
import type { KrmResource } from './resource';
import type { ResourceList, ResourceListSource } from './list-model';
import { resultToPlain, type Result } from './results';
import { newDocument, parseYaml, renderNode, sourceSpelling, yamlVersionOf } from '../yaml/yaml-format';

interface WholeOptions {
  /** Write the input's items as they were (after an error). */
  readonly keepItems: boolean;
  readonly results: readonly Result[];
}

export function writeWholeList(list: ResourceList, source: ResourceListSource, options: WholeOptions): string {
  return source.shape === 'json' ? writeJson(list, source, options) : writeBlock(list, source, options);
}

const keyOf = (pair: Pair): string => String(isScalar(pair.key) ? pair.key.value : pair.key);

function rangeText(text: string, node: unknown): string | undefined {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  return range ? text.slice(range[0], range[1]) : undefined;
}

interface JsonLayout {
  /** One level of indentation; empty for a list written on one line. */
  readonly unit: string;
  readonly eol: string;
}

function jsonLayout(text: string, eol: string): JsonLayout {
  const unit = /\n([ \t]+)\S/.exec(text.trim())?.[1] ?? '';
  return { unit, eol };
}

function jsonContainer(open: string, close: string, entries: readonly string[], layout: JsonLayout, depth: number): string {
  if (entries.length === 0) return `${open}${close}`;
  if (!layout.unit) return `${open}${entries.join(',')}${close}`;
  const inner = layout.eol + layout.unit.repeat(depth + 1);
  return `${open}${inner}${entries.join(`,${inner}`)}${layout.eol}${layout.unit.repeat(depth)}${close}`;
}

function jsonMember(key: string, value: string, layout: JsonLayout): string {
  return `${JSON.stringify(key)}:${layout.unit ? ' ' : ''}${value}`;
}

/** Plain data as JSON at `depth`. */
function dataJson(value: unknown, layout: JsonLayout, depth: number): string {
  const text = JSON.stringify(value, null, layout.unit) ?? 'null';
  return layout.unit ? text.replace(/\n/g, `${layout.eol}${layout.unit.repeat(depth)}`) : text;
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?$/;

function scalarJson(value: unknown, spelling: string | undefined): string {
  if ((typeof value === 'number' || typeof value === 'bigint') && spelling !== undefined && JSON_NUMBER.test(spelling) && Number(spelling) === Number(value)) return spelling;
  if (typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? 'null';
}

function nodeJson(node: unknown, layout: JsonLayout, depth: number): string {
  if (isMap(node)) {
    const members = (node.items as Pair[]).map((pair) => jsonMember(keyOf(pair), nodeJson(pair.value, layout, depth + 1), layout));
    return jsonContainer('{', '}', members, layout, depth);
  }
  if (isSeq(node)) return jsonContainer('[', ']', node.items.map((item) => nodeJson(item, layout, depth + 1)), layout, depth);
  if (isScalar(node)) return scalarJson(node.value, sourceSpelling(node));
  return node === null || node === undefined ? 'null' : dataJson((node as Node).toJSON(), layout, depth);
}

function itemJson(resource: KrmResource, text: string, layout: JsonLayout): string {
  const data = resource.generatedData;
  if (data) return dataJson(data, layout, 2);
  if (!resource.isChanged) {
    const original = rangeText(text, resource.node);
    if (original !== undefined) return original;
  }
  return nodeJson(resource.node, layout, 2);
}

function writeJson(list: ResourceList, source: ResourceListSource, options: WholeOptions): string {
  const { text } = source;
  const layout = jsonLayout(text, source.eol);
  const root = source.doc().contents as YAMLMap;
  const itemsNode = root.get('items', true);
  const items = options.keepItems
    ? (isSeq(itemsNode) ? itemsNode.items : []).map((node) => rangeText(text, node) ?? nodeJson(node, layout, 2))
    : list.items.map((resource) => itemJson(resource, text, layout));
  const members: string[] = [];
  for (const pair of root.items as Pair[]) {
    const key = keyOf(pair);
    if (key === 'results') continue;
    const value = key === 'items' ? jsonContainer('[', ']', items, layout, 1) : (rangeText(text, pair.value) ?? nodeJson(pair.value, layout, 1));
    members.push(jsonMember(key, value, layout));
  }
  if (options.results.length > 0) members.push(jsonMember('results', dataJson(options.results.map(resultToPlain), layout, 1), layout));
  const trailing = /\n\s*$/.test(text) ? source.eol : '';
  return `${jsonContainer('{', '}', members, layout, 0)}${trailing}`;
}

/** Every collection below `node` in block style. */
function unflow(node: unknown): void {
  if (isMap(node)) {
    node.flow = false;
    for (const pair of node.items as Pair[]) {
      unflow(pair.key);
      unflow(pair.value);
    }
  } else if (isSeq(node)) {
    node.flow = false;
    for (const item of node.items) unflow(item);
  }
}

function writeBlock(list: ResourceList, source: ResourceListSource, options: WholeOptions): string {
  // After an error the items go back as they came in: read again, since the run may have edited their nodes.
  const doc = options.keepItems ? parseYaml(source.text).doc : source.doc();
  const root = doc.contents as YAMLMap;
  const out = new YAMLMap();
  out.commentBefore = root.commentBefore;
  out.comment = root.comment;
  for (const pair of root.items as Pair[]) {
    if (keyOf(pair) === 'results') continue;
    if (keyOf(pair) === 'items' && !options.keepItems) {
      const items = new YAMLSeq();
      appendAll(items.items, list.items.map((resource) => resource.node));
      out.items.push(new Pair(pair.key, items));
    } else {
      out.items.push(pair);
    }
  }
  if (options.results.length > 0) out.set('results', newDocument().createNode(options.results.map(resultToPlain)));
  unflow(out);
  const text = `${renderNode(out, { version: yamlVersionOf(doc) })}\n`;
  return source.eol === '\r\n' ? text.replace(/\n/g, '\r\n') : text;
}
