/**
 * In-place edits of `yaml` nodes that keep what they can: an unchanged value keeps its node (and so
 * its comments, quoting and flow style), a changed map keeps its surviving keys where they were.
 */
import { isMap, isScalar, isSeq, type Document, type Node, type YAMLMap, type YAMLSeq } from 'yaml';

/** Equality of plain data; map key order does not count. */
export function sameData(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((value, i) => sameData(value, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const aKeys = Object.keys(a);
  const bRecord = b as Record<string, unknown>;
  return aKeys.length === Object.keys(b).length && aKeys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && sameData((a as Record<string, unknown>)[key], bRecord[key]));
}

export function toData(node: unknown, doc: Document): unknown {
  return node && typeof node === 'object' && 'toJS' in node ? (node as Node).toJS(doc) : node;
}

/** The key a map entry has as plain data, when it is a string (the only keys compared in place). */
function stringKey(key: unknown): string | undefined {
  if (typeof key === 'string') return key;
  return isScalar(key) && typeof key.value === 'string' && !key.tag ? key.value : undefined;
}

/**
 * Whether a node holds `value`, as sameData(toData(node), value) says, without making its data:
 * maps with string keys, lists and scalars are compared in place; anything else goes through toData.
 */
export function sameNodeData(node: unknown, value: unknown, doc: Document): boolean {
  if (isScalar(node) && !node.tag) return sameData(node.value, value);
  if (isSeq(node) && !node.tag) return Array.isArray(value) && value.length === node.items.length && node.items.every((item, i) => sameNodeData(item, value[i], doc));
  if (isMap(node) && !node.tag && node.items.every((pair) => stringKey(pair.key) !== undefined && pair.key !== '<<' && stringKey(pair.key) !== '<<')) {
    if (!isPlainObject(value) || Object.keys(value).length !== node.items.length) return false;
    return node.items.every((pair) => {
      const key = stringKey(pair.key)!;
      return Object.prototype.hasOwnProperty.call(value, key) && sameNodeData(pair.value, value[key], doc);
    });
  }
  return sameData(toData(node, doc), value);
}

function keyOf(pair: { key: unknown }): string {
  return isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Makes `map[key]` hold `value`, touching only what differs. Returns whether anything changed.
 * Keys that survive keep their place and comments; new keys follow in `value`'s order.
 */
export function syncValue(doc: Document, map: YAMLMap, key: string, value: unknown): boolean {
  const existing = map.get(key, true) as Node | undefined;
  if (existing !== undefined && sameNodeData(existing, value, doc)) return false;
  if (isMap(existing) && !existing.flow && isPlainObject(value)) {
    for (const pair of [...existing.items]) {
      const name = keyOf(pair);
      if (!Object.prototype.hasOwnProperty.call(value, name)) existing.delete(pair.key);
    }
    for (const [name, child] of Object.entries(value)) syncValue(doc, existing, name, child);
    return true;
  }
  const scalarType = typeof value;
  if (isScalar(existing) && (scalarType === 'string' || scalarType === 'number' || scalarType === 'boolean') && typeof existing.value === scalarType) {
    // Same type: keep the node, so its quoting and comments stay.
    existing.value = value;
    return true;
  }
  replaceValue(doc, map, key, existing, value);
  return true;
}

/** A new node for `value` at `key`, with the comments of the node it replaces. */
function replaceValue(doc: Document, map: YAMLMap, key: string, existing: Node | undefined, value: unknown): void {
  const replacement = doc.createNode(value) as Node;
  if (existing) {
    replacement.comment = existing.comment;
    replacement.commentBefore = existing.commentBefore;
  }
  map.set(key, replacement);
}

/** Sets a scalar field of a map; returns whether it changed. */
export function setScalar(doc: Document, map: YAMLMap, key: string, value: string): boolean {
  const existing = map.get(key, true) as Node | undefined;
  if (isScalar(existing) && typeof existing.value === 'string') {
    if (existing.value === value) return false;
    existing.value = value;
    return true;
  }
  // Not a string (`status: True` reads as a boolean): a new node, so the string is written as one.
  replaceValue(doc, map, key, existing, value);
  return true;
}

/** A map's value at `key` when it is a map, null or absent; `false` when it is something else. */
export function mapOrAbsent(map: YAMLMap, key: string): YAMLMap | undefined | false {
  const value = map.get(key, true);
  if (value === undefined || (isScalar(value) && value.value === null)) return undefined;
  return isMap(value) ? value : false;
}

/** Like mapOrAbsent for a list; `false` also when an element is not a map. */
export function mapListOrAbsent(map: YAMLMap, key: string): YAMLSeq<YAMLMap> | undefined | false {
  const value = map.get(key, true);
  if (value === undefined || (isScalar(value) && value.value === null)) return undefined;
  return isSeq(value) && value.items.every((item) => isMap(item)) ? (value as YAMLSeq<YAMLMap>) : false;
}

/** The map at `key`, created (appended, as Porch does) when absent or null. */
export function ensureMap(doc: Document, map: YAMLMap, key: string): YAMLMap {
  const existing = mapOrAbsent(map, key);
  if (existing) {
    // A flow `{}` would force what goes into it into flow style too.
    if (existing.items.length === 0) existing.flow = false;
    return existing;
  }
  // Replacing a null keeps the key where it is; a new key goes last.
  const created = doc.createNode({}) as YAMLMap;
  map.set(key, created);
  return created;
}

/** The list at `key`, created when absent or null. */
export function ensureList(doc: Document, map: YAMLMap, key: string): YAMLSeq<YAMLMap> {
  const existing = mapListOrAbsent(map, key);
  if (existing) return existing;
  const created = doc.createNode([]) as YAMLSeq<YAMLMap>;
  created.flow = false;
  map.set(key, created);
  return created;
}

/** Replaces a list's elements; returns whether they differ from what it held. A flow `[]` that gains elements turns block. */
export function setListItems(seq: YAMLSeq, items: readonly unknown[]): boolean {
  if (seq.items.length === items.length && seq.items.every((item, i) => item === items[i])) return false;
  // `yaml` gives a comment above the first element to the list, though it reads as the element's:
  // it follows the element, or goes with it.
  const first = seq.items[0] as Node | undefined;
  if (seq.commentBefore && first && items[0] !== first) {
    if (items.includes(first)) first.commentBefore = first.commentBefore ? `${seq.commentBefore}\n${first.commentBefore}` : seq.commentBefore;
    seq.commentBefore = undefined;
  }
  seq.items = [...items];
  if (items.length > 0) seq.flow = false;
  return true;
}

/** The string value of a map element's field, or undefined. */
export function stringField(map: YAMLMap, key: string): string | undefined {
  const value = map.get(key, true);
  return isScalar(value) && typeof value.value === 'string' ? value.value : undefined;
}
