/** The only merge module that inspects `yaml` nodes: kinds, nulls, equality and display. */
import { isCollection, isMap, isNode, isScalar, isSeq, stringify, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';

export type NodeShape = 'absent' | 'null' | 'scalar' | 'map' | 'seq';

export function shapeOf(node: Node | null | undefined): NodeShape {
  if (node === undefined || node === null) return 'absent';
  if (isMap(node)) return 'map';
  if (isSeq(node)) return 'seq';
  if (isScalar(node)) return node.value === null ? 'null' : 'scalar';
  return 'scalar';
}

/** Present with a value: not absent and not an explicit null. */
export function hasValue(node: Node | null | undefined): node is Node {
  const shape = shapeOf(node);
  return shape !== 'absent' && shape !== 'null';
}

export function mapPairs(node: Node | undefined): Pair<Node, Node | null>[] {
  return isMap(node) ? ((node as YAMLMap<Node, Node | null>).items as Pair<Node, Node | null>[]) : [];
}

export function seqItems(node: Node | undefined): Node[] {
  return isSeq(node) ? ((node as YAMLSeq<Node>).items as Node[]) : [];
}

export function keyText(key: unknown): string {
  if (isScalar(key)) return String(key.value);
  return String(key);
}

export function scalarValue(node: Node | null | undefined): unknown {
  return isScalar(node) ? node.value : undefined;
}

/** Whether a field inside is set to an explicit null (in this map, or in maps below it). */
export function holdsNull(node: Node | null | undefined): boolean {
  if (isSeq(node)) return node.items.some((item) => holdsNull(item as Node));
  return mapPairs(node ?? undefined).some((pair) => shapeOf(pair.value as Node | null) === 'null' || holdsNull(pair.value as Node | null));
}

/** The same scalar but for its spelling: one value of one type and tag, with the same comments. */
function sameButSpelling(a: Node | null | undefined, b: Node | null | undefined): boolean {
  return isScalar(a) && isScalar(b) && sameScalarNode(a, b) && typeof a.value === typeof b.value && a.tag === b.tag && sameOwnComments(a, b);
}

/** Blank lines are layout: where both have a node, `from`'s blank line before it stays. */
function keepBlankLine(into: unknown, from: unknown): void {
  if (isNode(into) && isNode(from)) into.spaceBefore = from.spaceBefore;
}

/**
 * Puts `from`'s scalars into `into` wherever they hold what `into` has there, so that they keep their
 * spelling, and `from`'s flow or block style and blank lines where both have a collection, field or element.
 */
function keepLayout(into: Node | null | undefined, from: Node | null | undefined): void {
  if ((isMap(into) && isMap(from)) || (isSeq(into) && isSeq(from))) into.flow = from.flow;
  if (isMap(into) && isMap(from)) {
    const pairs = new Map(mapPairs(from).map((pair) => [keyText(pair.key), pair]));
    for (const pair of mapPairs(into)) {
      const other = pairs.get(keyText(pair.key));
      if (!other) continue;
      keepBlankLine(pair.key, other.key);
      if (sameButSpelling(pair.value, other.value)) pair.value = other.value;
      else keepLayout(pair.value, other.value);
    }
  } else if (isSeq(into) && isSeq(from)) {
    const others = seqItems(from);
    into.items.forEach((item, i) => {
      const other = others[i];
      if (other === undefined) return;
      keepBlankLine(item, other);
      if (sameButSpelling(item as Node, other)) into.items[i] = other;
      else keepLayout(item as Node, other);
    });
  }
}

/**
 * Replaces a map's content (its pairs and own comments) by `from`'s. A scalar that holds what `from`
 * has at its place stays as written, blank lines where both have a field or element stay; the comment on the line of `keepKey`'s key stays where `from`
 * has none there (kpt's `# kpt-merge` on `metadata`).
 */
export function replaceContent(map: YAMLMap, from: YAMLMap, keepKey: string): void {
  const kept = mapPairs(map).find((pair) => keyText(pair.key) === keepKey)?.key;
  const comment = isScalar(kept) ? kept.comment : undefined;
  keepLayout(from, map);
  map.items = from.items;
  map.commentBefore = from.commentBefore;
  map.comment = from.comment;
  const key = mapPairs(map).find((pair) => keyText(pair.key) === keepKey)?.key;
  if (comment && isScalar(key) && !key.comment) key.comment = comment;
}

/** Field lookup by key text, without building JS values. */
export function getField(node: Node | undefined, key: string): Node | undefined {
  for (const pair of mapPairs(node)) if (keyText(pair.key) === key) return (pair.value as Node | null) ?? undefined;
  return undefined;
}

function sameScalar(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (typeof a === 'bigint' || typeof b === 'bigint') return String(a) === String(b) && typeof a !== 'string' && typeof b !== 'string';
  return Object.is(a, b) || (typeof a === 'number' && typeof b === 'number' && a === b);
}

/**
 * An integer past 2^53 as written: such integers read as one float (`12345678901234567890` and
 * `…891`), but int64 fields hold them, so their digits tell them apart. Undefined for every other value.
 */
function exactInteger(node: Node | null | undefined): bigint | undefined {
  const value = scalarValue(node);
  if (typeof value !== 'number' || !Number.isInteger(value) || Number.isSafeInteger(value)) return undefined;
  const source = (node as { source?: unknown }).source;
  if (typeof source !== 'string') return undefined;
  try {
    return BigInt(source.replace(/^\+/, ''));
  } catch {
    return undefined;
  }
}

/** Two scalars' values, big integers by their digits. */
const sameScalarNode = (a: Node | null | undefined, b: Node | null | undefined): boolean => sameScalar(scalarValue(a), scalarValue(b)) && exactInteger(a) === exactInteger(b);

/**
 * How two values compare where the schema knows more than their data. Every part is optional; an
 * absent part compares plainly.
 */
export interface Comparison {
  /** A map field's comparison; false: the field is not compared at all (it always stays local's). */
  readonly field?: (key: string) => Comparison | false | undefined;
  /** The comparison of list items. */
  readonly items?: Comparison;
  /** A scalar as compared; `undefined` means the same as no field (a key field's schema default). */
  readonly canonical?: (value: unknown) => unknown;
}

/**
 * Structural equality: same data, whatever the quoting, flow style or comments. Absent and explicit
 * null differ (one is no field, the other a field set to null). `comparison` says what the schema
 * adds: fields not compared, values that mean the same.
 */
export function sameContent(a: Node | null | undefined, b: Node | null | undefined, comparison?: Comparison): boolean {
  if (a === b) return true;
  // Leaves compare directly: remembering costs more than the comparison.
  if (!isCollection(a) || !isCollection(b)) return compare(a, b, comparison);
  // Most subtrees the visitors ask about are unchanged: one walk answers for every comparison.
  if (identical(a, b)) return true;
  // The visitors compare a subtree at each level on the way down; remember the answers, per
  // comparison (one object per schema position, see elements/same.ts).
  let byA = SAME.get(comparison ?? PLAIN);
  if (!byA) SAME.set(comparison ?? PLAIN, (byA = new WeakMap()));
  let row = byA.get(a);
  const known = row?.get(b);
  if (known !== undefined) return known;
  const answer = compare(a, b, comparison);
  if (!row) byA.set(a, (row = new WeakMap()));
  row.set(b, answer);
  return answer;
}

/** The key of comparisons without a schema. */
const PLAIN: Comparison = {};

let SAME = new WeakMap<Comparison, WeakMap<Node, WeakMap<Node, boolean>>>();

/** Starts a fresh memory of comparisons: answers hold only while the nodes are not edited. */
export function forgetComparisons(): void {
  SAME = new WeakMap();
  SAME_COMMENTS = new WeakMap();
  IDENTICAL = new WeakMap();
}

let IDENTICAL = new WeakMap<Node, WeakMap<Node, boolean>>();

/**
 * The same data, with no schema to overlook anything, and the same comments everywhere, keys in the
 * same order: what makes every comparison here true. Remembered for collections.
 */
function identical(a: Node | null | undefined, b: Node | null | undefined): boolean {
  if (a === b) return true;
  if (!a || !b || !sameOwnComments(a, b)) return false;
  if (isScalar(a)) return isScalar(b) && sameScalarNode(a, b);
  if (!isCollection(a) || !isCollection(b)) return false;
  let row = IDENTICAL.get(a);
  const known = row?.get(b);
  if (known !== undefined) return known;
  const answer = identicalItems(a, b);
  if (!row) IDENTICAL.set(a, (row = new WeakMap()));
  row.set(b, answer);
  return answer;
}

function identicalItems(a: Node, b: Node): boolean {
  if (isSeq(a)) {
    const [left, right] = [seqItems(a), seqItems(b)];
    return isSeq(b) && left.length === right.length && left.every((item, i) => identical(item, right[i]));
  }
  const [left, right] = [mapPairs(a), mapPairs(b)];
  if (!isMap(a) || !isMap(b) || left.length !== right.length) return false;
  return left.every((pair, i) => {
    const other = right[i]!;
    return keyText(pair.key) === keyText(other.key) && sameOwnComments(pair.key, other.key) && identical(pair.value, other.value);
  });
}

const isScalarOrAbsent = (node: Node | null | undefined): boolean => shapeOf(node) === 'scalar' || shapeOf(node) === 'absent';

/** A node that means "no field" to this comparison: a scalar its canonical form makes undefined. */
function absentTo(comparison: Comparison | undefined, node: Node | null | undefined): boolean {
  return comparison?.canonical !== undefined && shapeOf(node) === 'scalar' && comparison.canonical(scalarValue(node)) === undefined;
}

function compare(a: Node | null | undefined, b: Node | null | undefined, comparison: Comparison | undefined): boolean {
  const canonical = comparison?.canonical;
  if (canonical && isScalarOrAbsent(a) && isScalarOrAbsent(b)) {
    const valueOf = (node: Node | null | undefined) => (node ? canonical(scalarValue(node)) : undefined);
    return sameScalar(valueOf(a), valueOf(b));
  }
  const shape = shapeOf(a);
  if (shape !== shapeOf(b)) return false;
  switch (shape) {
    case 'absent':
    case 'null':
      return true;
    case 'scalar':
      return sameScalarNode(a, b);
    case 'seq': {
      const left = seqItems(a as Node);
      const right = seqItems(b as Node);
      return left.length === right.length && left.every((item, i) => sameContent(item, right[i], comparison?.items));
    }
    case 'map': {
      const aligned = sameKeysInOrder(mapPairs(a as Node), mapPairs(b as Node), comparison);
      if (aligned !== undefined) return aligned;
      const compared = (pairs: Pair<Node, Node | null>[]) => {
        const byKey = new Map<string, { node: Node | null; below: Comparison | undefined }>();
        for (const pair of pairs) {
          const key = keyText(pair.key);
          const below = comparison?.field ? comparison.field(key) : undefined;
          if (below !== false) byKey.set(key, { node: pair.value as Node | null, below });
        }
        return byKey;
      };
      const left = compared(mapPairs(a as Node));
      const right = compared(mapPairs(b as Node));
      for (const [key, { node, below }] of left) {
        const other = right.get(key);
        if (other ? !sameContent(node, other.node, below) : !absentTo(below, node)) return false;
      }
      for (const [key, { node, below }] of right) if (!left.has(key) && !absentTo(below, node)) return false;
      return true;
    }
  }
}

/**
 * Two maps with the same keys in the same order (the common case) compare pair by pair, without
 * indexing; undefined when the keys differ. A map's keys are unique: the parser refuses duplicates.
 */
function sameKeysInOrder(left: Pair<Node, Node | null>[], right: Pair<Node, Node | null>[], comparison: Comparison | undefined): boolean | undefined {
  if (left.length !== right.length) return undefined;
  for (let i = 0; i < left.length; i += 1) if (keyText(left[i]!.key) !== keyText(right[i]!.key)) return undefined;
  for (let i = 0; i < left.length; i += 1) {
    const below = comparison?.field ? comparison.field(keyText(left[i]!.key)) : undefined;
    if (below !== false && !sameContent(left[i]!.value, right[i]!.value, below)) return false;
  }
  return true;
}

// -- comments ----------------------------------------------------------------------------------

/** What `yaml` attaches to a node: the comment lines before it and the comment after it. */
interface Commented {
  commentBefore?: string | null;
  comment?: string | null;
}

/**
 * A node's own comments: for a scalar its line comment (and lines above it), for a map key the lines
 * above the key and the comment after `key:`, for a collection the lines above its first entry and
 * after its last. Absent and empty are the same.
 */
function ownComments(node: Node | null | undefined): [string, string] {
  const commented = (node ?? {}) as Commented;
  return [commented.commentBefore ?? '', commented.comment ?? ''];
}

export function sameOwnComments(a: Node | null | undefined, b: Node | null | undefined): boolean {
  const [beforeA, afterA] = ownComments(a);
  const [beforeB, afterB] = ownComments(b);
  return beforeA === beforeB && afterA === afterB;
}

/** Gives `to` the own comments of `from` (none where `from` has none); says whether that changed them. */
export function copyOwnComments(from: Node | null | undefined, to: Node): boolean {
  if (sameOwnComments(from, to)) return false;
  const [before, after] = ownComments(from);
  const target = to as Commented;
  target.commentBefore = before || undefined;
  target.comment = after || undefined;
  return true;
}

let SAME_COMMENTS = new WeakMap<Node, WeakMap<Node, boolean>>();

/** The same comments everywhere in two values of the same data: own, on map keys, on items, below. */
export function sameComments(a: Node | null | undefined, b: Node | null | undefined): boolean {
  if (a === b) return true;
  if (!a || !b) return !hasComments(a ?? b);
  if (!isCollection(a) || !isCollection(b)) return sameOwnComments(a, b) && sameCommentsBelow(a, b);
  if (identical(a, b)) return true;
  const known = SAME_COMMENTS.get(a)?.get(b);
  if (known !== undefined) return known;
  const answer = sameOwnComments(a, b) && sameCommentsBelow(a, b);
  let row = SAME_COMMENTS.get(a);
  if (!row) SAME_COMMENTS.set(a, (row = new WeakMap()));
  row.set(b, answer);
  return answer;
}

function hasComments(node: Node | null | undefined): boolean {
  if (!sameOwnComments(node, undefined)) return true;
  return seqItems(node ?? undefined).some(hasComments) || mapPairs(node ?? undefined).some((pair) => !sameOwnComments(pair.key as Node, undefined) || hasComments(pair.value));
}

function sameCommentsBelow(a: Node, b: Node): boolean {
  if (isSeq(a) || isSeq(b)) {
    const [left, right] = [seqItems(a), seqItems(b)];
    return Array.from({ length: Math.max(left.length, right.length) }, (_, i) => i).every((i) => sameComments(left[i], right[i]));
  }
  const [leftPairs, rightPairs] = [mapPairs(a), mapPairs(b)];
  if (leftPairs.length === rightPairs.length && leftPairs.every((pair, i) => keyText(pair.key) === keyText(rightPairs[i]!.key))) {
    return leftPairs.every((l, i) => sameOwnComments(l.key, rightPairs[i]!.key) && sameComments(l.value, rightPairs[i]!.value));
  }
  const right = new Map(rightPairs.map((pair) => [keyText(pair.key), pair]));
  const left = new Map(leftPairs.map((pair) => [keyText(pair.key), pair]));
  for (const key of new Set([...left.keys(), ...right.keys()])) {
    const [l, r] = [left.get(key), right.get(key)];
    if (!sameOwnComments(l?.key as Node | undefined, r?.key as Node | undefined) || !sameComments(l?.value as Node | null | undefined, r?.value as Node | null | undefined)) return false;
  }
  return true;
}

/** A value on one line, whole: messages shorten it (conflicts/to-results.ts), a result's field keeps it. */
export function displayValue(node: Node | null | undefined): string {
  const shape = shapeOf(node);
  if (shape === 'absent') return '(absent)';
  if (shape === 'null') return 'null';
  return stringify(node, { collectionStyle: 'flow', lineWidth: 0 }).trim();
}
