/**
 * A package path as a line of text shows it. A name may hold a newline, a carriage return or a
 * terminal escape (git and file systems allow them), and printed raw it would forge lines of its
 * own (`removed Kptfile`) or drive the terminal. Such a name is written as git writes it: in double
 * quotes, with C escapes (`\n`, `\t`, `\033`); `git apply` and `patch` read it back. Other names,
 * UTF-8 included, are written as they are.
 */

const ESCAPES: Readonly<Record<string, string>> = { '\x07': '\\a', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\v': '\\v', '\f': '\\f', '\r': '\\r', '"': '\\"', '\\': '\\\\' };

// Control characters (C0, DEL, C1), and the two characters quoting itself uses.
const NEEDS_QUOTES = /[\u0000-\u001f\u007f-\u009f"\\]/;
const QUOTED = /[\u0000-\u001f\u007f-\u009f"\\]/g;

const octal = (char: string) => [...Buffer.from(char, 'utf8')].map((byte) => `\\${byte.toString(8).padStart(3, '0')}`).join('');

/** `path` as git's quoting writes it: as it is, or quoted where it holds a control character, `"` or `\`. */
export function quotePath(path: string): string {
  if (!NEEDS_QUOTES.test(path)) return path;
  return `"${path.replace(QUOTED, (char) => ESCAPES[char] ?? octal(char))}"`;
}

/** A name that is not UTF-8, shown by its bytes as git shows them: quoted, each byte outside printable ASCII in octal. */
export function quoteBytes(name: Uint8Array): string {
  let out = '';
  for (const byte of name) {
    const char = String.fromCharCode(byte);
    out += ESCAPES[char] ?? (byte < 0x20 || byte >= 0x7f ? `\\${byte.toString(8).padStart(3, '0')}` : char);
  }
  return `"${out}"`;
}

// Control characters other than the newline that ends a line.
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g;

/** A line of text (a message that may quote a name) with every control character written as an escape: it stays one line, and inert. */
export function inertLine(text: string): string {
  return text.replace(CONTROL, (char) => ESCAPES[char] ?? octal(char)).replace(/\n/g, '\\n');
}
