/** The only merge module that inspects `yaml` nodes: kinds, nulls, equality and display. */
import { isMap, isScalar, isSeq, stringify, type Node, type Pair, type YAMLMap, type YAMLSeq } from 'yaml';

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

/** Whether a map field is compared at all; kpt's bookkeeping annotations, for one, are not. */
export type FieldFilter = (key: string) => FieldFilter | undefined | false;

/**
 * Structural equality: same data, whatever the quoting, flow style or comments. Absent and explicit
 * null differ (one is no field, the other a field set to null). `fields` says, per map key, whether
 * to compare it (false: skip) and how to compare below it.
 */
export function sameContent(a: Node | null | undefined, b: Node | null | undefined, fields?: FieldFilter): boolean {
  if (a === b) return true;
  // The visitors compare a subtree at each level on the way down; remember unfiltered answers.
  if (!fields && a && b) {
    const known = SAME.get(a)?.get(b);
    if (known !== undefined) return known;
    const answer = compare(a, b, undefined);
    let row = SAME.get(a);
    if (!row) SAME.set(a, (row = new WeakMap()));
    row.set(b, answer);
    return answer;
  }
  return compare(a, b, fields);
}

let SAME = new WeakMap<Node, WeakMap<Node, boolean>>();

/** Starts a fresh memory of comparisons: answers hold only while the nodes are not edited. */
export function forgetComparisons(): void {
  SAME = new WeakMap();
}

function compare(a: Node | null | undefined, b: Node | null | undefined, fields: FieldFilter | undefined): boolean {
  const shape = shapeOf(a);
  if (shape !== shapeOf(b)) return false;
  switch (shape) {
    case 'absent':
    case 'null':
      return true;
    case 'scalar':
      return sameScalar(scalarValue(a), scalarValue(b));
    case 'seq': {
      const left = seqItems(a as Node);
      const right = seqItems(b as Node);
      return left.length === right.length && left.every((item, i) => sameContent(item, right[i]));
    }
    case 'map': {
      const compared = (pairs: Pair<Node, Node | null>[]) => {
        const byKey = new Map<string, { node: Node | null; below: FieldFilter | undefined }>();
        for (const pair of pairs) {
          const key = keyText(pair.key);
          const below = fields ? fields(key) : undefined;
          if (below !== false) byKey.set(key, { node: pair.value as Node | null, below });
        }
        return byKey;
      };
      const left = compared(mapPairs(a as Node));
      const right = compared(mapPairs(b as Node));
      if (left.size !== right.size) return false;
      for (const [key, { node, below }] of left) {
        const other = right.get(key);
        if (!other || !sameContent(node, other.node, below)) return false;
      }
      return true;
    }
  }
}

/** A short, one-line rendering of a value for messages. */
export function displayValue(node: Node | null | undefined): string {
  const shape = shapeOf(node);
  if (shape === 'absent') return '(absent)';
  if (shape === 'null') return 'null';
  const text = stringify(node, { collectionStyle: 'flow', lineWidth: 0 }).trim();
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
