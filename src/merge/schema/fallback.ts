/**
 * What to do with a list nobody describes: the documented kpt fallback keys, the first that every
 * element of every version has, with unique values. Otherwise the list is atomic.
 */
import type { Node } from 'yaml';
import { getField, hasValue, scalarValue, seqItems, shapeOf } from '../yaml-values';
import { ATOMIC, type KeyedListSchema, type SchemaNode } from './types';

export const FALLBACK_KEYS = ['mountPath', 'devicePath', 'ip', 'type', 'topologyKey', 'name', 'containerPort'] as const;

function keyIsUsable(key: string, lists: readonly Node[]): boolean {
  for (const list of lists) {
    const seen = new Set<string>();
    for (const element of seqItems(list)) {
      const value = getField(element, key);
      if (shapeOf(value) !== 'scalar') return false;
      const text = String(scalarValue(value));
      if (seen.has(text)) return false;
      seen.add(text);
    }
  }
  return true;
}

export function inferListSchema(versions: readonly (Node | undefined)[]): SchemaNode {
  const lists = versions.filter((v): v is Node => hasValue(v) && shapeOf(v) === 'seq');
  const elements = lists.flatMap(seqItems);
  if (elements.length === 0 || elements.some((e) => shapeOf(e) !== 'map')) return ATOMIC;
  const key = FALLBACK_KEYS.find((candidate) => keyIsUsable(candidate, lists));
  if (!key) return ATOMIC;
  const keyed: KeyedListSchema = { kind: 'keyed-list', keys: [key], keyDefaults: {}, item: undefined };
  return keyed;
}
