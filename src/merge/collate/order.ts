/**
 * Output order of merged keys: local's order stands; a key local lacks goes right after the nearest
 * key that precedes it upstream (then in origin) and is already placed, else first.
 */
export function mergeOrder(local: readonly string[], upstream: readonly string[], origin: readonly string[]): string[] {
  const out = [...local];
  const placed = new Set(out);
  for (const order of [upstream, origin]) {
    order.forEach((key, index) => {
      if (placed.has(key)) return;
      let at = 0;
      for (let i = index - 1; i >= 0; i -= 1) {
        const position = out.indexOf(order[i] as string);
        if (position !== -1) {
          at = position + 1;
          break;
        }
      }
      out.splice(at, 0, key);
      placed.add(key);
    });
  }
  return out;
}
