/**
 * Read-only: whether one side, against origin, only removed things (fields, elements, set members,
 * the value itself) and added or changed nothing. Deletions never conflict with deletions.
 */
import type { Element, KeyedListElement, MapElement, SetElement } from '../elements/element';
import { same } from '../elements/same';
import { hasValue } from '../yaml-values';
import { visit, type ElementVisitor } from './visitor';

export class RemovalsOnlyVisitor implements ElementVisitor<boolean> {
  constructor(private readonly side: 'upstream' | 'local') {}

  /** Removed whole, or unchanged; undefined when the side holds a changed value. */
  private whole(element: Element): boolean | undefined {
    if (!hasValue(element.slots[this.side]) || same(element, this.side, 'origin')) return true;
    return hasValue(element.slots.origin) ? undefined : false;
  }

  scalar(element: Element): boolean {
    return this.whole(element) ?? false;
  }

  atomic(element: Element): boolean {
    return this.scalar(element);
  }

  keylessList(element: Element): boolean {
    return this.scalar(element);
  }

  retained(): boolean {
    return true;
  }

  map(element: MapElement): boolean {
    return this.whole(element) ?? element.fields.every((field) => visit(field.element, this));
  }

  keyedList(element: KeyedListElement): boolean {
    return this.whole(element) ?? element.entries.every((entry) => visit(entry.element, this));
  }

  set(element: SetElement): boolean {
    return this.whole(element) ?? element.members.every((member) => member.slots[this.side] === undefined || member.slots.origin !== undefined);
  }
}
