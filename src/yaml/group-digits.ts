/** `16,777,216`: counts in messages, the same on every machine (no locale). */
export function groupDigits(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ',');
}
