/** What a merge visitor decides for one element; apply/ carries it out on local's YAML. */
import type { KeyedListElement, MapElement, SetElement } from '../elements/element';

export type Decision =
  | { readonly op: 'keep' }
  /** Upstream's node replaces (or becomes) local's. */
  | { readonly op: 'take' }
  | { readonly op: 'remove' }
  /** Merged field by field; `keyComments` names the fields whose key takes upstream's comments. */
  | { readonly op: 'map'; readonly element: MapElement; readonly children: ReadonlyMap<string, Decision>; readonly keyComments?: ReadonlySet<string>; readonly upstreamComments?: boolean }
  /** Merged element by element; `upstreamComments`: the list's own comments become upstream's (so for a map). */
  | { readonly op: 'list'; readonly element: KeyedListElement; readonly children: ReadonlyMap<string, Decision>; readonly upstreamComments?: boolean }
  | { readonly op: 'set'; readonly element: SetElement; readonly included: ReadonlySet<string> };

export const KEEP: Decision = { op: 'keep' };
export const TAKE: Decision = { op: 'take' };
export const REMOVE: Decision = { op: 'remove' };
