/** What a merge visitor decides for one element; apply/ carries it out on local's YAML. */
import type { KeyedListElement, MapElement, SetElement } from '../elements/element';

export type Decision =
  | { readonly op: 'keep' }
  /** Upstream's node replaces (or becomes) local's. */
  | { readonly op: 'take' }
  | { readonly op: 'remove' }
  | { readonly op: 'map'; readonly element: MapElement; readonly children: ReadonlyMap<string, Decision> }
  | { readonly op: 'list'; readonly element: KeyedListElement; readonly children: ReadonlyMap<string, Decision> }
  | { readonly op: 'set'; readonly element: SetElement; readonly included: ReadonlySet<string> };

export const KEEP: Decision = { op: 'keep' };
export const TAKE: Decision = { op: 'take' };
export const REMOVE: Decision = { op: 'remove' };
