/** force-delete-replace: upstream's value everywhere, except what always stays local's. */
import type { Element, KeyedListElement, MapElement } from '../elements/element';
import { same } from '../elements/same';
import { hasValue } from '../yaml-values';
import { KEEP, REMOVE, TAKE, type Decision } from './decision';
import { visit, type ElementVisitor } from './visitor';

export class TakeUpstreamVisitor implements ElementVisitor<Decision> {
  scalar(element: Element): Decision {
    if (same(element, 'local', 'upstream')) return KEEP;
    return hasValue(element.slots.upstream) ? TAKE : REMOVE;
  }

  atomic(element: Element): Decision {
    return this.scalar(element);
  }

  set(element: Element): Decision {
    return this.scalar(element);
  }

  keylessList(element: Element): Decision {
    return this.scalar(element);
  }

  retained(): Decision {
    return KEEP;
  }

  map(element: MapElement): Decision {
    if (!hasValue(element.slots.local) || !hasValue(element.slots.upstream)) return this.scalar(element);
    return { op: 'map', element, children: new Map(element.fields.map((f) => [f.key, visit(f.element, this)])) };
  }

  keyedList(element: KeyedListElement): Decision {
    if (!hasValue(element.slots.local) || !hasValue(element.slots.upstream)) return this.scalar(element);
    return { op: 'list', element, children: new Map(element.entries.map((e) => [e.id, visit(e.element, this)])) };
  }
}
