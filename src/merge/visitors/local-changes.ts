/** Read-only: where local differs from origin (fast-forward refuses to run over local changes). */
import type { Element, KeyedListElement, MapElement } from '../elements/element';
import type { FieldPath } from '../path';
import { same } from '../elements/same';
import { hasValue } from '../yaml-values';
import { visit, type ElementVisitor } from './visitor';

export class LocalChangesVisitor implements ElementVisitor<FieldPath[]> {
  scalar(element: Element): FieldPath[] {
    return same(element, 'local', 'origin') ? [] : [element.path];
  }

  atomic(element: Element): FieldPath[] {
    return this.scalar(element);
  }

  set(element: Element): FieldPath[] {
    return this.scalar(element);
  }

  keylessList(element: Element): FieldPath[] {
    return this.scalar(element);
  }

  retained(): FieldPath[] {
    return [];
  }

  private nested(element: MapElement | KeyedListElement, children: () => Element[]): FieldPath[] {
    const { local, origin } = element.slots;
    if (same(element, 'local', 'origin')) return [];
    if (!hasValue(local) || !hasValue(origin)) return [element.path];
    return children().flatMap((child) => visit(child, this));
  }

  map(element: MapElement): FieldPath[] {
    return this.nested(element, () => element.fields.map((f) => f.element));
  }

  keyedList(element: KeyedListElement): FieldPath[] {
    return this.nested(element, () => element.entries.map((e) => e.element));
  }
}
