/**
 * The documented `kpt pkg update` resource-merge rules, per element kind.
 *
 * A side "changed" a value when it differs from origin (structurally: quoting, flow style and
 * comments do not count). Upstream's change is taken where local did not change the value; where
 * both changed it differently, upstream wins and the conflict is recorded. Deleted on one side and
 * unchanged on the other stays deleted; nothing is resurrected as a stub.
 */
import { MergeTypeError } from '../collate/collate';
import type { AtomicElement, Element, KeyedListElement, MapElement, SetElement, Slots } from '../elements/element';
import { ConflictSink, type ConflictKind } from '../conflicts/conflict';
import { same } from '../elements/same';
import { displayValue, hasValue } from '../yaml-values';
import { KEEP, REMOVE, TAKE, type Decision } from './decision';
import { visit, type ElementVisitor } from './visitor';

/** Upstream's value as a decision: take it, or remove the field when upstream has none. */
function upstreamValue(slots: Slots): Decision {
  return hasValue(slots.upstream) ? TAKE : REMOVE;
}

function conflictKind(slots: Slots): ConflictKind {
  if (!hasValue(slots.upstream)) return 'changed-vs-deleted';
  if (!hasValue(slots.local) && hasValue(slots.origin)) return 'deleted-vs-changed';
  return 'both-changed';
}

export class ResourceMergeVisitor implements ElementVisitor<Decision> {
  constructor(private readonly sink: ConflictSink) {}

  /**
   * The decision every element kind shares; `undefined` means both sides hold a value that
   * changed on both: the caller merges inside it.
   */
  private wholeValue(element: Element): Decision | undefined {
    const { upstream, local } = element.slots;
    if (same(element, 'upstream', 'origin')) return KEEP;
    if (same(element, 'local', 'origin')) return upstreamValue(element.slots);
    if (same(element, 'local', 'upstream')) return KEEP;
    if (hasValue(local) && hasValue(upstream)) return undefined;
    return this.conflict(element);
  }

  private conflict(element: Element): Decision {
    this.sink.add({
      path: element.path,
      kind: conflictKind(element.slots),
      local: displayValue(element.slots.local),
      upstream: displayValue(element.slots.upstream),
    });
    return upstreamValue(element.slots);
  }

  scalar(element: Element): Decision {
    return this.wholeValue(element) ?? this.conflict(element);
  }

  atomic(element: AtomicElement): Decision {
    const whole = this.wholeValue(element);
    if (whole) return whole;
    if (element.kindMismatch) throw new MergeTypeError(element.path, element.kindMismatch);
    return this.conflict(element);
  }

  retained(): Decision {
    return KEEP;
  }

  /**
   * Upstream's whole value for a map or list that local has is taken by descending into it, so
   * local's comments and layout survive and retained fields (kpt bookkeeping) stay local's.
   */
  private nestedWhole(element: MapElement | KeyedListElement): Decision | undefined {
    const whole = this.wholeValue(element);
    return whole === TAKE && hasValue(element.slots.local) ? undefined : whole;
  }

  map(element: MapElement): Decision {
    const { origin, upstream, local } = element.slots;
    // A map upstream deleted and local changed: its keys are fields of their own, so local's
    // additions stay and origin's keys go (a list element, by contrast, goes whole: keyedList).
    const deletedUpstream = upstream === undefined && hasValue(origin) && hasValue(local) && !same(element, 'local', 'origin');
    const whole = deletedUpstream ? undefined : this.nestedWhole(element);
    if (whole) return whole;
    const children = new Map<string, Decision>();
    for (const field of element.fields) children.set(field.key, visit(field.element, this));
    return { op: 'map', element, children };
  }

  keyedList(element: KeyedListElement): Decision {
    const whole = this.nestedWhole(element);
    if (whole) return whole;
    const children = new Map<string, Decision>();
    for (const entry of element.entries) children.set(entry.id, this.listEntry(entry.element));
    return { op: 'list', element, children };
  }

  /** A list element is one thing: deleted upstream but changed locally, it goes whole (no stub). */
  private listEntry(element: Element): Decision {
    const { origin, upstream, local } = element.slots;
    if (upstream === undefined && hasValue(origin) && hasValue(local) && !same(element, 'local', 'origin')) return this.conflict(element);
    return visit(element, this);
  }

  set(element: SetElement): Decision {
    const whole = this.wholeValue(element);
    if (whole) return whole;
    const included = new Set<string>();
    for (const { value, slots } of element.members) {
      const inOrigin = slots.origin !== undefined;
      const inUpstream = slots.upstream !== undefined;
      if (inUpstream === inOrigin ? slots.local !== undefined : inUpstream) included.add(value);
    }
    return { op: 'set', element, included };
  }
}
