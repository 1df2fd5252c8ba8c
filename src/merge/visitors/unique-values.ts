/**
 * Lists keyed by some fields whose elements must differ in others too: ports are keyed by port and
 * protocol, and Kubernetes rejects two with one name. Where the merge would give two elements one
 * value of such a field, that is a conflict, resolved like every other: local's element gives way
 * to upstream's version of it, or goes where upstream has none.
 */
import type { ConflictSink } from '../conflicts/conflict';
import type { KeyedListElement, ListEntry, Slots } from '../elements/element';
import { displayValue, getField, hasValue, sameContent, scalarValue, shapeOf } from '../yaml-values';
import { REMOVE, TAKE, type Decision } from './decision';

interface FieldOutcome {
  readonly value: string;
  /** The value is local's change (or local's addition), not upstream's or origin's. */
  readonly fromLocal: boolean;
}

/** The value `field` of a list element ends with under its decision. */
function outcomeOf(decision: Decision, slots: Slots, field: string): FieldOutcome | undefined {
  if (decision.op === 'remove') return undefined;
  const child = decision.op === 'map' ? decision.children.get(field) : undefined;
  if (child?.op === 'remove') return undefined;
  const side = decision.op === 'take' || child?.op === 'take' ? 'upstream' : 'local';
  const node = getField(slots[side], field);
  if (shapeOf(node) !== 'scalar') return undefined;
  return { value: String(scalarValue(node)), fromLocal: side === 'local' && !sameContent(node, getField(slots.origin, field)) };
}

/** The first pair of elements that would share a value of `field`, local's first; undefined when none does. */
function findClash(entries: readonly ListEntry[], children: ReadonlyMap<string, Decision>, field: string): { value: string; mine: ListEntry; theirs: ListEntry } | undefined {
  const seen = new Map<string, { entry: ListEntry; outcome: FieldOutcome }>();
  for (const entry of entries) {
    const outcome = outcomeOf(children.get(entry.id) ?? { op: 'keep' }, entry.element.slots, field);
    if (!outcome) continue;
    const other = seen.get(outcome.value);
    if (!other) {
      seen.set(outcome.value, { entry, outcome });
      continue;
    }
    // Where neither value is local's change, a version itself holds the value twice: nothing to decide.
    if (outcome.fromLocal !== other.outcome.fromLocal) {
      const [mine, theirs] = outcome.fromLocal ? [entry, other.entry] : [other.entry, entry];
      return { value: outcome.value, mine, theirs };
    }
  }
  return undefined;
}

/** Edits `children` so that no two elements share a value of the fields in `unique`; each edit is a conflict. */
export function resolveValueClashes(list: KeyedListElement, children: Map<string, Decision>, unique: readonly string[], sink: ConflictSink): void {
  for (const field of unique) {
    // Each resolution turns one element of local's into upstream's, so this ends.
    for (let clash = findClash(list.entries, children, field); clash; clash = findClash(list.entries, children, field)) {
      const { value, mine, theirs } = clash;
      const theirSlots = theirs.element.slots;
      sink.add({
        kind: 'same-value',
        path: list.path,
        local: displayValue(mine.element.slots.local),
        upstream: displayValue(theirSlots.upstream ?? theirSlots.local),
        clash: { field, value, localKey: mine.id, upstreamKey: theirs.id },
      });
      children.set(mine.id, hasValue(mine.element.slots.upstream) ? TAKE : REMOVE);
    }
  }
}
