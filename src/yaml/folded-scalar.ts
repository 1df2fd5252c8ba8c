/**
 * Flow scalars written over several lines (YAML 1.2 §6.5 and §7.3), as controller-gen writes the
 * descriptions of CRDs: a line break between two lines of text reads as a space, each empty line
 * between them as a line break, and the spaces around a break are not content.
 */
import { outsideSubset, unescapeDoubleQuoted, unquoteSingleQuoted } from './scalars';

export type FoldedStyle = 'PLAIN' | 'QUOTE_SINGLE' | 'QUOTE_DOUBLE';

const TRAILING_SPACES = / +$/;

/**
 * The value of a scalar's lines: the first from where its text starts (after an opening quote),
 * the others without their indentation, the last up to where its text ends (a closing quote).
 */
export function foldedValue(lines: readonly string[], style: FoldedStyle): string {
  const last = lines.length - 1;
  let text = lines[0]!.replace(TRAILING_SPACES, '');
  let separator = ' ';
  for (let i = 1; i < last; i += 1) {
    const line = lines[i]!.replace(TRAILING_SPACES, '');
    if (line !== '') {
      text += separator + line;
      separator = ' ';
    } else if (separator === '\n') {
      text += '\n';
    } else {
      separator = '\n';
    }
  }
  text += separator + lines[last];
  if (style === 'QUOTE_SINGLE') return unquoteSingleQuoted(text);
  if (style === 'PLAIN') return text;
  // A backslash at the end of a line escapes the line break (or the spaces before it); not read here.
  for (let i = 0; i < last; i += 1) if (lines[i]!.replace(TRAILING_SPACES, '').endsWith('\\')) outsideSubset();
  return unescapeDoubleQuoted(text);
}
