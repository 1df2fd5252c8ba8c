/**
 * Equality of two sides of an element, as its schema sees it: blind to what always stays local's,
 * and, unless asked for the value as written, to spellings that mean the same (a key field's default
 * written out or left out, kpt's entry in the blueprint attribution).
 */
import type { SchemaNode } from '../schema/types';
import { sameContent, type Comparison } from '../yaml-values';
import type { Element, Side } from './element';

/** One comparison per schema position and flavour: what sameContent remembers answers by. */
const comparisons = [new WeakMap<SchemaNode, Comparison | undefined>(), new WeakMap<SchemaNode, Comparison | undefined>()];

function comparisonFor(schema: SchemaNode | undefined, asWritten: boolean): Comparison | undefined {
  if (!schema) return undefined;
  const known = comparisons[Number(asWritten)]!;
  if (known.has(schema)) return known.get(schema);
  const comparison = buildComparison(schema, asWritten);
  known.set(schema, comparison);
  return comparison;
}

function buildComparison(schema: SchemaNode, asWritten: boolean): Comparison | undefined {
  switch (schema.kind) {
    case 'object': {
      const fields = new Map<string, Comparison | false | undefined>();
      return {
        field: (key) => {
          if (fields.has(key)) return fields.get(key);
          const child = schema.field(key);
          const comparison = child?.kind === 'retained' ? false : comparisonFor(child, asWritten);
          fields.set(key, comparison);
          return comparison;
        },
      };
    }
    case 'keyed-list': {
      const items = comparisonFor(schema.item, asWritten);
      return items && { items };
    }
    case 'scalar':
      return schema.canonical && !asWritten ? { canonical: schema.canonical } : undefined;
    default:
      return undefined;
  }
}

export function same(element: Element, a: Side, b: Side): boolean {
  return sameContent(element.slots[a], element.slots[b], comparisonFor(element.schema, false));
}

/** The same data as written: `protocol: TCP` and no protocol differ here, though they mean the same. */
export function sameAsWritten(element: Element, a: Side, b: Side): boolean {
  return sameContent(element.slots[a], element.slots[b], comparisonFor(element.schema, true));
}
