/** Helpers for reading block YAML line by line, for the scans that spare a full parse. */
export interface Line {
  readonly indent: number;
  readonly text: string;
}

/** YAML features a line scan cannot follow: tabs, CR, directives and document markers, anchors, aliases, tags. */
export const BEYOND_LINE_SCAN = /\t|\r|^(---|\.\.\.|%)|(^|[\s:,[{-])[&*!]/m;

export function meaningfulLines(text: string): Line[] {
  const lines: Line[] = [];
  for (const raw of text.split('\n')) {
    const trimmed = raw.trimStart();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    lines.push({ indent: raw.length - trimmed.length, text: raw });
  }
  return lines;
}

export function keyOf(line: string): string | undefined {
  return /^\s*(?:- )?([A-Za-z][\w./-]*):(?:\s|$)/.exec(line)?.[1];
}

/** The raw value after `key:`, without a trailing comment. */
export function valueOf(line: string): string {
  return line.slice(line.indexOf(':') + 1).replace(/\s+#.*$/, '').trim();
}

/** A plain or simply quoted scalar's string, or undefined when escapes or flow syntax would need a parser. */
export function simpleScalar(raw: string): string | undefined {
  if (/^'[^']*'$/.test(raw) || /^"[^"\\]*"$/.test(raw)) return raw.slice(1, -1);
  if (raw === '' || /^['"[{|>]/.test(raw)) return undefined;
  return raw;
}

/** Columns of leading white space in `text` from `from` to `to`, as `trimStart` counts them. */
export function leadingWhiteSpace(text: string, from: number, to: number): number {
  let at = from;
  while (at < to && text.charCodeAt(at) === 32) at += 1;
  const next = text.charCodeAt(at);
  if (at < to && (next > 127 || next < 32)) {
    const line = text.slice(from, to);
    return line.length - line.trimStart().length;
  }
  return at - from;
}
