/**
 * Read-only: where local differs from origin, as far as a resource counts as changed locally (kept
 * though deleted upstream; fast-forward refuses to run over it). An attribution is no such change.
 */
import type { Element, KeyedListElement, MapElement } from '../elements/element';
import type { FieldPath } from '../path';
import { same } from '../elements/same';
import { hasValue } from '../yaml-values';
import { visit, type ElementVisitor } from './visitor';

export class LocalChangesVisitor implements ElementVisitor<FieldPath[]> {
  scalar(element: Element): FieldPath[] {
    if (element.schema?.kind === 'scalar' && element.schema.attribution) return [];
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
