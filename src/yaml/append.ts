/**
 * Appends every element of `items` to `target`. `target.push(...items)` passes each element as an
 * argument, and beyond about a hundred thousand of them (a fleet's items, a result per item) the
 * call overflows the stack.
 */
export function appendAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}
