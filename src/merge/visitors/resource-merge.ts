/**
 * The documented `kpt pkg update` resource-merge rules, per element kind.
 *
 * A side "changed" a value when it differs from origin (structurally: quoting, flow style and
 * comments do not count; a key field's schema default and no field are the same). Upstream's change
 * is taken where local did not change the value; where both changed it differently, upstream wins
 * and the conflict is recorded. Deleted on one side and unchanged on the other stays deleted;
 * deletions never conflict with deletions; nothing is resurrected as a stub.
 */
import { MergeInputError, MergeTypeError } from '../collate/collate';
import type { AtomicElement, Element, KeyedListElement, KeylessListElement, MapElement, SetElement, Slots } from '../elements/element';
import { ConflictSink, type ConflictKind } from '../conflicts/conflict';
import { same } from '../elements/same';
import { displayValue, hasValue, holdsNull } from '../yaml-values';
import { KEEP, REMOVE, TAKE, type Decision } from './decision';
import { takesUpstreamKeyComments, takesUpstreamOwnComments, takesUpstreamRewrite, upstreamRewroteInside } from './rewrites';
import { RemovalsOnlyVisitor } from './removals-only';
import { resolveValueClashes } from './unique-values';
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

const UPSTREAM_REMOVES_ONLY = new RemovalsOnlyVisitor('upstream');
const LOCAL_REMOVES_ONLY = new RemovalsOnlyVisitor('local');

/**
 * Origin's value, deleted on one side (absent or null) while the other side deleted it too or only
 * removed things from it: nobody wants what is left, so it goes, without a conflict.
 */
function deletedOnBoth(element: Element): boolean {
  const { origin, upstream, local } = element.slots;
  if (!hasValue(origin)) return false;
  if (!hasValue(local)) return !hasValue(upstream) || visit(element, UPSTREAM_REMOVES_ONLY);
  return !hasValue(upstream) && visit(element, LOCAL_REMOVES_ONLY);
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
    if (deletedOnBoth(element)) return REMOVE;
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

  /** A value merged whole: local's where it stands, upstream's rewrite where local left it as it was. */
  private leaf(element: Element): Decision | undefined {
    const whole = this.wholeValue(element);
    if (whole !== KEEP || !takesUpstreamRewrite(element)) return whole;
    return element.slots.upstream === undefined ? REMOVE : TAKE;
  }

  scalar(element: Element): Decision {
    return this.leaf(element) ?? this.conflict(element);
  }

  atomic(element: AtomicElement): Decision {
    const whole = this.leaf(element);
    if (whole) return whole;
    if (element.kindMismatch) throw new MergeTypeError(element.path, element.kindMismatch);
    return this.conflict(element);
  }

  /**
   * Taken whole from the side that changed it; where both did, elements must be matched and cannot
   * be. Upstream's elements that lack a key field come with its list, and are reported.
   */
  keylessList(element: KeylessListElement): Decision {
    const whole = this.leaf(element);
    if (!whole) throw new MergeInputError(element.path, element.problem);
    if (whole === TAKE && element.schema?.kind === 'keyed-list') {
      for (const entry of element.lacking) if (entry.side === 'upstream') this.sink.keptKeyless({ path: element.path, index: entry.index, fields: entry.fields, keys: element.schema.keys });
    }
    return whole;
  }

  retained(): Decision {
    return KEEP;
  }

  /**
   * Upstream's whole value for a map or list that local has is taken by descending into it, so
   * local's comments and layout survive and retained fields (kpt bookkeeping) stay local's. The same
   * change on both sides is merged inside too where it sets a field to null: both removed that field.
   */
  private nestedWhole(element: MapElement | KeyedListElement): Decision | undefined {
    if (!same(element, 'upstream', 'origin') && same(element, 'local', 'upstream') && holdsNull(element.slots.local)) return undefined;
    const whole = this.wholeValue(element);
    if (whole === KEEP) return upstreamRewroteInside(element) ? undefined : KEEP;
    return whole === TAKE && hasValue(element.slots.local) ? undefined : whole;
  }

  /** Upstream deleted it; local changed it, beyond removing things from it. */
  private changedButDeletedUpstream(element: Element): boolean {
    const { origin, upstream, local } = element.slots;
    return upstream === undefined && hasValue(origin) && hasValue(local) && !same(element, 'local', 'origin') && !deletedOnBoth(element);
  }

  map(element: MapElement): Decision {
    // A map upstream deleted and local changed: its keys are fields of their own, so local's
    // additions stay and origin's keys go (a list element, by contrast, goes whole: keyedList).
    const whole = this.changedButDeletedUpstream(element) ? undefined : this.nestedWhole(element);
    if (whole) return whole;
    const children = new Map<string, Decision>();
    const keyComments = new Set<string>();
    for (const field of element.fields) {
      children.set(field.key, visit(field.element, this));
      if (takesUpstreamKeyComments(field)) keyComments.add(field.key);
    }
    return { op: 'map', element, children, keyComments, upstreamComments: takesUpstreamOwnComments(element) };
  }

  keyedList(element: KeyedListElement): Decision {
    const whole = this.nestedWhole(element);
    if (whole) return whole;
    const children = new Map<string, Decision>();
    for (const entry of element.entries) children.set(entry.id, this.listEntry(entry.element));
    if (element.schema?.kind === 'keyed-list' && element.schema.unique) resolveValueClashes(element, children, element.schema.unique, this.sink);
    return { op: 'list', element, children, upstreamComments: takesUpstreamOwnComments(element) };
  }

  /** A list element is one thing: deleted upstream but changed locally, it goes whole (no stub). */
  private listEntry(element: Element): Decision {
    return this.changedButDeletedUpstream(element) ? this.conflict(element) : visit(element, this);
  }

  set(element: SetElement): Decision {
    const whole = this.leaf(element);
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
