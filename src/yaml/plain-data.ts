/** Reading and copying plain data (maps, lists, scalars), as the fast reader and `toJS` produce it. */

/** The value at `path`: own properties and list indexes only, as `yaml`'s getIn finds them. */
export function valueAt(data: unknown, path: readonly (string | number)[]): unknown {
  let at = data;
  for (const key of path) {
    if (Array.isArray(at)) at = typeof key === 'number' ? at[key] : undefined;
    else if (at !== null && typeof at === 'object' && Object.hasOwn(at, key)) at = (at as Record<string | number, unknown>)[key];
    else return undefined;
  }
  return at;
}

/** A deep copy, made in this realm. */
export function copyPlain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyPlain);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, copyPlain(child)]));
}
