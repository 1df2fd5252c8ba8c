/**
 * What the merge needs to know about a position, whatever the source (built-in table, CRD, Kptfile
 * rules). `undefined` means nothing is known: the fallback rules apply.
 */
import type { Node } from 'yaml';

export type ScalarKey = string | number | boolean;

export interface ObjectSchema {
  readonly kind: 'object';
  /** Replaced whole (`x-kubernetes-map-type: atomic`). */
  readonly atomic: boolean;
  field(name: string): SchemaNode | undefined;
}

export interface KeyedListSchema {
  readonly kind: 'keyed-list';
  readonly keys: readonly string[];
  /** Values assumed for key fields an element omits (container port `protocol: TCP`). */
  readonly keyDefaults: Readonly<Record<string, ScalarKey>>;
  readonly item: SchemaNode | undefined;
  /** Custom identity for lists that are not keyed by fields (Kptfile functions); undefined means not identifiable. */
  readonly identify?: (element: Node) => string | undefined;
}

export interface SetSchema {
  readonly kind: 'set';
}

export interface AtomicSchema {
  readonly kind: 'atomic';
}

export interface ScalarSchema {
  readonly kind: 'scalar';
}

/** A position whose local value always stands (Kptfile `upstream`, `metadata.name`). */
export interface RetainedSchema {
  readonly kind: 'retained';
}

export type SchemaNode = ObjectSchema | KeyedListSchema | SetSchema | AtomicSchema | ScalarSchema | RetainedSchema;

export const SCALAR: ScalarSchema = { kind: 'scalar' };
export const ATOMIC: AtomicSchema = { kind: 'atomic' };
export const SET: SetSchema = { kind: 'set' };
export const RETAINED: RetainedSchema = { kind: 'retained' };

/** An object whose every field has the same schema (a string-keyed map such as `labels`). */
export function mapOf(value: SchemaNode | undefined, atomic = false): ObjectSchema {
  return { kind: 'object', atomic, field: () => value };
}
