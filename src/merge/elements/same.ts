/** Equality of two sides of an element, blind to what the schema says always stays local's. */
import type { Node } from 'yaml';
import type { SchemaNode } from '../schema/types';
import { sameContent, type FieldFilter } from '../yaml-values';
import type { Element, Side } from './element';

function filterFor(schema: SchemaNode | undefined): FieldFilter | undefined {
  if (schema?.kind !== 'object') return undefined;
  return (key) => {
    const child = schema.field(key);
    return child?.kind === 'retained' ? false : filterFor(child);
  };
}

export function sameNodes(schema: SchemaNode | undefined, a: Node | undefined, b: Node | undefined): boolean {
  return sameContent(a, b, filterFor(schema));
}

export function same(element: Element, a: Side, b: Side): boolean {
  return sameNodes(element.schema, element.slots[a], element.slots[b]);
}
