/** The expression quoted under a message, with a caret, as cel-js quotes it. */
const EXCERPT_LENGTH = 120;
const EXCERPT_LINE = /^> +\d+ \| /;

/**
 * cel-js quotes the whole line of the expression above its caret; an expression can be a long line,
 * so a line longer than EXCERPT_LENGTH is cut to the part around the caret.
 */
export function cutExcerpt(message: string): string {
  const lines = message.split('\n');
  const at = lines.findIndex((line, i) => EXCERPT_LINE.test(line) && /^ *\^$/.test(lines[i + 1] ?? ''));
  if (at === -1) return message;
  const prefix = EXCERPT_LINE.exec(lines[at]!)![0];
  const code = lines[at]!.slice(prefix.length);
  if (code.length <= EXCERPT_LENGTH) return message;
  const caret = lines[at + 1]!.indexOf('^') - prefix.length;
  const start = Math.max(0, Math.min(caret - EXCERPT_LENGTH / 2, code.length - EXCERPT_LENGTH));
  const before = start > 0 ? '…' : '';
  lines[at] = `${prefix}${before}${code.slice(start, start + EXCERPT_LENGTH)}${start + EXCERPT_LENGTH < code.length ? '…' : ''}`;
  lines[at + 1] = `${' '.repeat(prefix.length + before.length + caret - start)}^`;
  return lines.join('\n');
}

/** An excerpt in cel-js's own style, for problems it does not report itself. */
export function withExcerpt(message: string, source: string): string {
  return cutExcerpt(`${message}\n\n>    1 | ${source.split('\n')[0]}\n         ^`);
}
