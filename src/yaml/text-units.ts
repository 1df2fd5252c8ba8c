/**
 * What a text costs to read, counted before it is read: its lines, and in flow collections (JSON,
 * `{a: 1}`, `[a, b]`) each `{`, `[` and `,`, since a list of a million entries on one line is a million
 * values however few its lines. Counted in quoted text too: a bound on it errs on the safe side.
 */

export function countLines(text: string): number {
  let lines = text.length > 0 && !text.endsWith('\n') ? 1 : 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines += 1;
  return lines;
}

function occurrences(text: string, char: string): number {
  let count = 0;
  for (let at = text.indexOf(char); at !== -1; at = text.indexOf(char, at + 1)) count += 1;
  return count;
}

/** Lines and flow entries. */
export function countUnits(text: string): number {
  return countLines(text) + occurrences(text, ',') + occurrences(text, '{') + occurrences(text, '[');
}
