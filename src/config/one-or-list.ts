/**
 * Lists that the design document writes as their one item (`labelExprs`, `injectors`), read the same
 * way as Porch's list form, with the field path each item was written at.
 */
export type OneOrList<T> = T | T[];

export interface ListEntry<T> {
  readonly value: T;
  /** `base[j]` for an item of a list, `base` itself for an item written alone. */
  readonly path: string;
}

/** Each item of a one-or-list field, in order, with its field path. */
export function listEntries<T extends object>(base: string, written: OneOrList<T> | undefined): ListEntry<T>[] {
  if (written === undefined) return [];
  if (Array.isArray(written)) return written.map((value, j) => ({ value, path: `${base}[${j}]` }));
  return [{ value: written, path: base }];
}

/** The items of a one-or-list field as a list. */
export function asList<T extends object>(written: OneOrList<T> | undefined): T[] {
  if (written === undefined) return [];
  return Array.isArray(written) ? written : [written];
}
