/**
 * The collated tree: every position of a resource with its origin, upstream and local node side by
 * side. Built only by collate/; read by visitors; never edited.
 */
import type { Node, Pair } from 'yaml';
import type { FieldPath } from '../path';
import type { SchemaNode } from '../schema/types';
import type { NodeShape } from '../yaml-values';

export type Side = 'origin' | 'upstream' | 'local';

/** A missing side is undefined; an explicit null is a node holding null. */
export interface Slots {
  readonly origin?: Node;
  readonly upstream?: Node;
  readonly local?: Node;
}

interface ElementBase {
  readonly path: FieldPath;
  readonly slots: Slots;
  /** What is known about this position; comparisons skip what it says is retained. */
  readonly schema: SchemaNode | undefined;
}

export interface ScalarElement extends ElementBase {
  readonly kind: 'scalar';
}

/** Compared and replaced whole: atomic lists and maps, lists nobody can key. */
export interface AtomicElement extends ElementBase {
  readonly kind: 'atomic';
  /** Set when the versions hold different kinds of value (a map in one, a scalar in another). */
  readonly kindMismatch?: Partial<Record<Side, NodeShape>>;
}

/** Always local's value. */
export interface RetainedElement extends ElementBase {
  readonly kind: 'retained';
}

export interface MapField {
  readonly key: string;
  readonly pairs: { readonly [side in Side]?: Pair<Node, Node | null> };
  readonly element: Element;
}

export interface MapElement extends ElementBase {
  readonly kind: 'map';
  /** In output order: local's keys, then new ones after their upstream predecessor. Built on first use. */
  readonly fields: readonly MapField[];
}

export interface ListEntry {
  readonly id: string;
  readonly element: Element;
}

export interface KeyedListElement extends ElementBase {
  readonly kind: 'keyed-list';
  readonly entries: readonly ListEntry[];
}

/**
 * A list the schema keys, but whose elements cannot all be matched: one lacks a key field. Taken
 * whole where only one side changed it; where both did, matching is needed and `problem` says why it
 * cannot be done.
 */
export interface KeylessListElement extends ElementBase {
  readonly kind: 'keyless-list';
  readonly problem: string;
  /** Every element of every side that lacks a key field. */
  readonly lacking: readonly KeylessEntry[];
}

/** An element of one side's list that lacks key fields (without a schema default). */
export interface KeylessEntry {
  readonly side: Side;
  readonly index: number;
  readonly fields: readonly string[];
}

export interface SetMember {
  readonly value: string;
  readonly slots: Slots;
}

export interface SetElement extends ElementBase {
  readonly kind: 'set';
  readonly members: readonly SetMember[];
}

export type Element = ScalarElement | AtomicElement | RetainedElement | MapElement | KeyedListElement | KeylessListElement | SetElement;
