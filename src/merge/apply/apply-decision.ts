/**
 * Carries out a decision tree on local's YAML, in place: local nodes keep their position, comments
 * and style; what comes from upstream is a copy of upstream's node with its comments.
 */
import { isMap, isSeq, Pair, Scalar, YAMLMap, YAMLSeq, type Node } from 'yaml';
import type { Slots } from '../elements/element';
import type { Decision } from '../visitors/decision';
import { copyOwnComments, shapeOf } from '../yaml-values';
import { takenFromUpstream } from '../../yaml/yaml-format';

export interface Applied {
  /** The resulting node; undefined when the field is removed. */
  readonly node: Node | undefined;
  readonly changed: boolean;
}

const REMOVED: Applied = { node: undefined, changed: true };

function copy<T extends Node>(node: T): T {
  return takenFromUpstream(node);
}

/** Drops null fields, and maps left empty by that; says whether `node` itself was emptied. */
function stripNulls(node: Node): boolean {
  if (isSeq(node)) {
    for (const item of node.items) stripNulls(item as Node);
    return false;
  }
  if (!isMap(node)) return false;
  const before = node.items.length;
  node.items = node.items.filter((pair) => {
    const value = pair.value as Node | null;
    return shapeOf(value) !== 'null' && !(value && stripNulls(value));
  });
  return before > 0 && node.items.length === 0;
}

/** Upstream's value as it lands locally: an upstream null means "no such field", even inside. */
function withoutNulls<T extends Node>(node: T): T {
  const copied = copy(node);
  stripNulls(copied);
  return copied;
}

function isEmptyCollection(node: Node | undefined): boolean {
  return (isMap(node) || isSeq(node)) && node.items.length === 0;
}

/**
 * A map or list the merge left empty goes, unless a side has it empty itself (`emptyDir: {}`).
 * `localWasEmpty` is read before the merge edits local's node in place.
 */
function emptyDropped(count: number, slots: Slots, localWasEmpty: boolean, applied: Applied): Applied {
  if (count === 0 && !isEmptyCollection(slots.upstream) && !localWasEmpty) return { node: undefined, changed: slots.local !== undefined };
  return applied;
}

function container<T extends YAMLMap | YAMLSeq>(local: Node | undefined, upstream: Node | undefined, make: () => T, is: (n: unknown) => boolean): { target: T; created: boolean } {
  if (local && is(local)) return { target: local as T, created: false };
  const target = make();
  if (upstream && is(upstream)) target.flow = (upstream as T).flow;
  return { target, created: true };
}

function applyMap(decision: Extract<Decision, { op: 'map' }>, slots: Slots): Applied {
  const localWasEmpty = isEmptyCollection(slots.local);
  const { target, created } = container(slots.local, slots.upstream, () => new YAMLMap(), isMap);
  const pairs: Pair[] = [];
  let changed = created;
  for (const field of decision.element.fields) {
    const child = decision.children.get(field.key) ?? { op: 'keep' };
    const localPair = field.pairs.local;
    const result = applyDecision(child, field.element.slots);
    changed ||= result.changed;
    if (result.node === undefined) {
      if (localPair) changed = true;
      continue;
    }
    if (localPair) {
      if (result.node !== localPair.value) {
        localPair.value = result.node;
        changed = true;
      }
      if (decision.keyComments?.has(field.key)) changed = copyOwnComments(field.pairs.upstream?.key as Node | undefined, localPair.key as Node) || changed;
      pairs.push(localPair);
    } else {
      const upstreamKey = field.pairs.upstream?.key;
      pairs.push(new Pair(upstreamKey ? copy(upstreamKey) : new Scalar(field.key), result.node));
      changed = true;
    }
  }
  if (changed) target.items = pairs;
  if (decision.upstreamComments) changed = copyOwnComments(slots.upstream, target) || changed;
  return emptyDropped(pairs.length, slots, localWasEmpty, { node: target, changed });
}

/** A merged sequence into local's (or a new) node; `merge` gives its items and whether one was edited in place. */
function applySequence(slots: Slots, merge: () => { items: Node[]; itemChanged: boolean }): Applied {
  const localWasEmpty = isEmptyCollection(slots.local);
  const { target, created } = container(slots.local, slots.upstream, () => new YAMLSeq(), isSeq);
  const before = target.items;
  const { items, itemChanged } = merge();
  const changed = created || itemChanged || items.length !== before.length || items.some((item, i) => item !== before[i]);
  if (changed) target.items = items;
  return emptyDropped(items.length, slots, localWasEmpty, { node: target, changed });
}

function applyList(decision: Extract<Decision, { op: 'list' }>, slots: Slots): Applied {
  const applied = applySequence(slots, () => {
    const items: Node[] = [];
    let itemChanged = false;
    for (const entry of decision.element.entries) {
      const result = applyDecision(decision.children.get(entry.id) ?? { op: 'keep' }, entry.element.slots);
      itemChanged ||= result.changed;
      if (result.node !== undefined) items.push(result.node);
    }
    return { items, itemChanged };
  });
  if (!decision.upstreamComments || !applied.node) return applied;
  return { node: applied.node, changed: copyOwnComments(slots.upstream, applied.node) || applied.changed };
}

function applySet(decision: Extract<Decision, { op: 'set' }>, slots: Slots): Applied {
  return applySequence(slots, () => {
    const items: Node[] = [];
    for (const member of decision.element.members) {
      if (!decision.included.has(member.value)) continue;
      const existing = member.slots.local ?? member.slots.upstream ?? member.slots.origin;
      if (existing) items.push(member.slots.local ?? copy(existing));
    }
    return { items, itemChanged: false };
  });
}

export function applyDecision(decision: Decision, slots: Slots): Applied {
  switch (decision.op) {
    case 'keep':
      return { node: slots.local, changed: false };
    case 'remove':
      return slots.local === undefined ? { node: undefined, changed: false } : REMOVED;
    case 'take': {
      const node = withoutNulls(slots.upstream as Node);
      return emptyDropped(isEmptyCollection(node) ? 0 : 1, slots, isEmptyCollection(slots.local), { node, changed: true });
    }
    case 'map':
      return applyMap(decision, slots);
    case 'list':
      return applyList(decision, slots);
    case 'set':
      return applySet(decision, slots);
  }
}
