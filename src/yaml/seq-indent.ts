/**
 * A document's sequence indentation, decided as kpt decides it (kyaml's reader with
 * `PreserveSeqIndent`, which records it as `internal.config.kubernetes.io/seqindent`): the first
 * block sequence whose parent key sits on the line above, comments aside, decides. `- ` at the key's
 * column is compact, two columns deeper is wide; a document without such a sequence is compact.
 *
 * The rule is kpt's, quirks included, so that a file we rewrite keeps the style kpt would keep: the
 * key line is cut at its first `#` (even inside quotes) and must then end in its only `:`, and a
 * blank line between key and `- ` hides the sequence.
 */
export type SeqIndent = 'wide' | 'compact';

const SEQ_ENTRY = /^( *)- /;

/** The line above `at` that is not a comment, without its comment; undefined above the first line. */
function keyLineAbove(lines: readonly string[], at: number): string | undefined {
  for (let i = at - 1; i >= 0; i -= 1) {
    const line = lines[i]!;
    if (line.replace(/^ +/, '').startsWith('#')) continue;
    const hash = line.indexOf('#');
    return hash === -1 ? line : line.slice(0, hash);
  }
  return undefined;
}

function leadingSpaces(line: string): number {
  return line.length - line.replace(/^ +/, '').length;
}

export function deriveSeqIndent(text: string): SeqIndent {
  return findSeqIndent(text) ?? 'compact';
}

/** The indentation the text's sequences decide, or undefined where it has none that decides. */
export function findSeqIndent(text: string): SeqIndent | undefined {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i += 1) {
    const entry = SEQ_ENTRY.exec(lines[i]!);
    if (!entry) continue;
    const keyLine = keyLineAbove(lines, i);
    if (!keyLine) continue;
    const key = keyLine.replace(/^ +| +$/g, '');
    if (!key.endsWith(':') || key.indexOf(':') !== key.length - 1) continue;
    const offset = entry[1]!.length - leadingSpaces(keyLine);
    if (offset === 0) return 'compact';
    if (offset === 2) return 'wide';
  }
  return undefined;
}
