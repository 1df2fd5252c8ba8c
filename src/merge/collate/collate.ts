/**
 * Phase 1: collate origin, upstream and local into one element tree. Decides which schema applies,
 * which nodes correspond and in what order they come out; never which value wins.
 */
import type { Node, Pair } from 'yaml';
import type { Element, KeylessEntry, ListEntry, MapField, SetMember, Side, Slots } from '../elements/element';
import { childField, childKey, formatPath, type FieldPath } from '../path';
import { inferListSchema } from '../schema/fallback';
import type { KeyedListSchema, SchemaNode } from '../schema/types';
import { getField, hasValue, keyText, mapPairs, scalarValue, seqItems, shapeOf, type NodeShape } from '../yaml-values';
import { mergeOrder } from './order';

const SIDES: readonly Side[] = ['local', 'origin', 'upstream'];

/** Both sides changed a field to different kinds of value (a map in one, a scalar in another). */
export class MergeTypeError extends Error {
  constructor(
    readonly path: FieldPath,
    readonly shapes: Partial<Record<Side, NodeShape>>,
  ) {
    const found = SIDES.filter((s) => shapes[s]).map((s) => `${s} has a ${shapes[s] === 'seq' ? 'list' : shapes[s]}`);
    super(`${formatPath(path) || '(root)'}: the versions disagree on the kind of value: ${found.join(', ')}`);
  }
}

/** The kind of value the sides hold, or the mismatch when they disagree. */
function valueShape(slots: Slots): { shape?: NodeShape; mismatch?: Partial<Record<Side, NodeShape>> } {
  const shapes: Partial<Record<Side, NodeShape>> = {};
  let shape: NodeShape | undefined;
  let mismatch = false;
  for (const side of SIDES) {
    const node = slots[side];
    if (!hasValue(node)) continue;
    const current = shapeOf(node);
    shapes[side] = current;
    if (shape === undefined) shape = current;
    else if (shape !== current) mismatch = true;
  }
  return mismatch ? { mismatch: shapes } : { shape };
}

function lazy<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}

function mapFields(slots: Slots, path: FieldPath, schema: SchemaNode | undefined): MapField[] {
  const pairsBySide = {} as Record<Side, Map<string, Pair<Node, Node | null>>>;
  for (const side of SIDES) pairsBySide[side] = new Map(mapPairs(slots[side]).map((pair) => [keyText(pair.key), pair]));
  const keys = mergeOrder([...pairsBySide.local.keys()], [...pairsBySide.upstream.keys()], [...pairsBySide.origin.keys()]);
  return keys.map((key) => {
    const pairs: MapField['pairs'] = {};
    const childSlots: { -readonly [side in Side]?: Node } = {};
    for (const side of SIDES) {
      const pair = pairsBySide[side].get(key);
      if (!pair) continue;
      (pairs as Record<Side, Pair<Node, Node | null>>)[side] = pair;
      // A pair built without a value node has no value; parsed `key:` holds a null scalar.
      const value = pair.value as Node | null;
      if (value) childSlots[side] = value;
    }
    const childSchema = schema?.kind === 'object' ? schema.field(key) : undefined;
    return { key, pairs, element: collate(childSlots, childField(path, key), childSchema) };
  });
}

/** The element's identity, or the key fields it lacks (a missing key with a default takes the default). */
function keyOf(element: Node, schema: KeyedListSchema): { id: string; label: string } | { missing: string[] } {
  if (schema.identify) {
    const id = schema.identify(element);
    return id === undefined ? { missing: [] } : { id, label: id };
  }
  const parts: string[] = [];
  const missing: string[] = [];
  for (const key of schema.keys) {
    const node = getField(element, key);
    let value: unknown = hasValue(node) && shapeOf(node) === 'scalar' ? scalarValue(node) : undefined;
    if (value === undefined || value === '') value = schema.keyDefaults[key];
    if (value === undefined) missing.push(key);
    else parts.push(`${key}=${String(value)}`);
  }
  if (missing.length || !parts.length) return { missing };
  return { id: parts.join(','), label: parts.join(',') };
}

/** A list the schema keys holds two elements with the same key. */
export class MergeInputError extends Error {
  constructor(
    readonly path: FieldPath,
    message: string,
  ) {
    super(`${formatPath(path)}: ${message}`);
  }
}

/**
 * Items by identity for each side; or, where an element lacks its key, what stops matching. A list
 * keyed by a custom rule (Kptfile functions) whose items cannot all be told apart is merged whole
 * (undefined); two elements with one key are invalid input.
 */
function keyedEntries(slots: Slots, path: FieldPath, schema: KeyedListSchema): ListEntry[] | { problem: string; lacking: KeylessEntry[] } | undefined {
  const bySide = {} as Record<Side, Map<string, Node>>;
  const labels = new Map<string, string>();
  const keyNames = schema.keys.join(', ');
  let problem: string | undefined;
  const lacking: KeylessEntry[] = [];
  for (const side of SIDES) {
    bySide[side] = new Map();
    const items = seqItems(slots[side]);
    for (let index = 0; index < items.length; index += 1) {
      const item = items[index] as Node;
      const key = shapeOf(item) === 'map' ? keyOf(item, schema) : { missing: [...schema.keys] };
      if ('missing' in key) {
        if (schema.identify || key.missing.length === 0) return undefined;
        problem ??= `element ${index} has no ${key.missing.join(', ')} in ${side}'s list, which is keyed by ${keyNames}`;
        lacking.push({ side, index, fields: key.missing });
        continue;
      }
      if (bySide[side].has(key.id)) {
        if (schema.identify) return undefined;
        throw new MergeInputError(path, `two elements have ${key.label} in ${side}'s list, which is keyed by ${keyNames}`);
      }
      bySide[side].set(key.id, item);
      labels.set(key.id, key.label);
    }
  }
  if (problem) return { problem, lacking };
  const ids = mergeOrder([...bySide.local.keys()], [...bySide.upstream.keys()], [...bySide.origin.keys()]);
  return ids.map((id) => {
    const itemSlots: { -readonly [side in Side]?: Node } = {};
    for (const side of SIDES) {
      const item = bySide[side].get(id);
      if (item) itemSlots[side] = item;
    }
    return { id, element: collate(itemSlots, childKey(path, labels.get(id) ?? id), schema.item) };
  });
}

function setMembers(slots: Slots): SetMember[] | undefined {
  const bySide = {} as Record<Side, Map<string, Node>>;
  for (const side of SIDES) {
    bySide[side] = new Map();
    for (const item of seqItems(slots[side])) {
      if (shapeOf(item) !== 'scalar') return undefined;
      const value = String(scalarValue(item));
      if (!bySide[side].has(value)) bySide[side].set(value, item);
    }
  }
  const values = mergeOrder([...bySide.local.keys()], [...bySide.upstream.keys()], [...bySide.origin.keys()]);
  return values.map((value) => {
    const memberSlots: { -readonly [side in Side]?: Node } = {};
    for (const side of SIDES) {
      const node = bySide[side].get(value);
      if (node) memberSlots[side] = node;
    }
    return { value, slots: memberSlots };
  });
}

function collateList(slots: Slots, path: FieldPath, schema: SchemaNode | undefined): Element {
  const listSchema = schema && schema.kind !== 'object' && schema.kind !== 'scalar' ? schema : inferListSchema([slots.origin, slots.upstream, slots.local]);
  if (listSchema.kind === 'keyed-list') {
    const entries = keyedEntries(slots, path, listSchema);
    if (Array.isArray(entries)) return { kind: 'keyed-list', path, slots, schema, entries };
    if (entries) return { kind: 'keyless-list', path, slots, schema, problem: entries.problem, lacking: entries.lacking };
  } else if (listSchema.kind === 'set') {
    const members = setMembers(slots);
    if (members) return { kind: 'set', path, slots, schema, members };
  }
  return { kind: 'atomic', path, slots, schema };
}

export function collate(slots: Slots, path: FieldPath, schema: SchemaNode | undefined): Element {
  if (schema?.kind === 'retained') return { kind: 'retained', path, slots, schema };
  const { shape, mismatch } = valueShape(slots);
  if (mismatch) return { kind: 'atomic', path, slots, schema, kindMismatch: mismatch };
  if (shape === 'map') {
    if ((schema?.kind === 'object' && schema.atomic) || schema?.kind === 'atomic') return { kind: 'atomic', path, slots, schema };
    const fields = lazy(() => mapFields(slots, path, schema));
    return {
      kind: 'map',
      path,
      slots,
      schema,
      get fields() {
        return fields();
      },
    };
  }
  if (shape === 'seq') return collateList(slots, path, schema);
  return { kind: 'scalar', path, slots, schema };
}
