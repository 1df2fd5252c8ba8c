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
  /** Fields that must also be unique across the list, besides the key (Kubernetes rejects two ports with one name). */
  readonly unique?: readonly string[];
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
  /**
   * The value as compared, where spellings mean the same (a key field's default and no field, what
   * kpt appends to an attribution); `undefined` means the same as no field at all.
   */
  readonly canonical?: (value: unknown) => unknown;
  /** Merged like any field, but a local difference here does not make the resource changed locally. */
  readonly attribution?: true;
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

/**
 * A keyed list's item, whose key fields with a schema default hold it when absent: everywhere in the
 * merge, `protocol: TCP` and no protocol are the same value.
 */
export function withKeyDefaults(item: SchemaNode | undefined, defaults: Readonly<Record<string, ScalarKey>>): SchemaNode | undefined {
  const defaulted = new Map<string, ScalarSchema>(Object.entries(defaults).map(([key, value]) => [key, { kind: 'scalar', canonical: (v) => (v === value ? undefined : v) }]));
  if (defaulted.size === 0) return item;
  const inner = item?.kind === 'object' ? item : undefined;
  return { kind: 'object', atomic: inner?.atomic ?? false, field: (name) => defaulted.get(name) ?? inner?.field(name) };
}

/**
 * A field lookup that answers each name once: a schema position is then always the same object, so
 * comparisons made for it can be remembered (yaml-values.ts).
 */
export function memoField(field: (name: string) => SchemaNode | undefined): (name: string) => SchemaNode | undefined {
  const known = new Map<string, SchemaNode | undefined>();
  return (name) => {
    if (known.has(name)) return known.get(name);
    const schema = field(name);
    known.set(name, schema);
    return schema;
  };
}

/** An object whose every field has the same schema (a string-keyed map such as `labels`). */
export function mapOf(value: SchemaNode | undefined, atomic = false): ObjectSchema {
  return { kind: 'object', atomic, field: () => value };
}
