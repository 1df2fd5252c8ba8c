import type { AtomicElement, Element, KeyedListElement, KeylessListElement, MapElement, RetainedElement, ScalarElement, SetElement } from '../elements/element';

/** One method per element kind: a new kind fails to compile until every visitor handles it. */
export interface ElementVisitor<R> {
  scalar(element: ScalarElement): R;
  atomic(element: AtomicElement): R;
  retained(element: RetainedElement): R;
  map(element: MapElement): R;
  keyedList(element: KeyedListElement): R;
  keylessList(element: KeylessListElement): R;
  set(element: SetElement): R;
}

export function visit<R>(element: Element, visitor: ElementVisitor<R>): R {
  switch (element.kind) {
    case 'scalar':
      return visitor.scalar(element);
    case 'atomic':
      return visitor.atomic(element);
    case 'retained':
      return visitor.retained(element);
    case 'map':
      return visitor.map(element);
    case 'keyed-list':
      return visitor.keyedList(element);
    case 'keyless-list':
      return visitor.keylessList(element);
    case 'set':
      return visitor.set(element);
    default: {
      const unknown: never = element;
      throw new Error(`unhandled element ${(unknown as Element).kind}`);
    }
  }
}
