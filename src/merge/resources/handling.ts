/** The resource-level outcomes of a three-way merge, in one table. */
import type { ResourceTuple } from './identity';

export type Handling =
  /** Only local has it. */
  | 'keep-local'
  /** New upstream. */
  | 'add-upstream'
  /** Gone upstream and locally, or deleted locally (a local deletion wins). */
  | 'skip'
  /** Deleted upstream, unchanged locally. */
  | 'delete-local'
  /** Deleted upstream but changed locally: kept, with a warning. */
  | 'keep-modified'
  | 'merge';

export function handlingFor(tuple: ResourceTuple, localUnchanged: () => boolean): Handling {
  const { origin, upstream, local } = tuple;
  if (upstream && local) return 'merge';
  if (upstream) return origin ? 'skip' : 'add-upstream';
  if (!local) return 'skip';
  if (!origin) return 'keep-local';
  return localUnchanged() ? 'delete-local' : 'keep-modified';
}
