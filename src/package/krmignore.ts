/**
 * A package's `.krmignore`, read as kpt reads it: kyaml's ignoreFilesMatcher hands the file to
 * monochromegane/go-gitignore, whose rules are a subset of git's and differ from them in places:
 * - a line is trimmed of spaces; empty lines and lines starting with `#` are skipped; `\#` starts a
 *   pattern with `#`;
 * - `!pattern` accepts: a path any accept pattern matches is not ignored, wherever the line stands;
 * - a pattern starting with `/` is anchored: it matches a path with as many parts, whole;
 * - any other pattern matches the last parts of a path (`a/b` matches `x/a/b` too: not anchored,
 *   unlike git);
 * - a trailing `/` matches directories only;
 * - `*`, `?` and `[...]` are Go's filepath.Match (`*` stays within one part, `**` is two `*`);
 *   a malformed pattern matches nothing.
 */

interface Pattern {
  readonly anchored: boolean;
  readonly dirOnly: boolean;
  /** How many path parts it spans. */
  readonly parts: number;
  readonly test: (text: string) => boolean;
}

/** Go's filepath.Match pattern as a RegExp, or undefined when Go reports it malformed. */
function goGlob(pattern: string): RegExp | undefined {
  const codePoint = (c: string) => `\\u{${c.codePointAt(0)!.toString(16)}}`;
  const chars = [...pattern];
  let source = '';
  for (let i = 0; i < chars.length; i += 1) {
    const c = chars[i]!;
    if (c === '*') source += '[^/]*';
    else if (c === '?') source += '[^/]';
    else if (c === '\\') {
      i += 1;
      if (i >= chars.length) return undefined;
      source += codePoint(chars[i]!);
    } else if (c === '[') {
      i += 1;
      const negated = chars[i] === '^';
      if (negated) i += 1;
      const ranges: string[] = [];
      let count = 0;
      for (;;) {
        if (i >= chars.length) return undefined;
        if (chars[i] === ']' && count > 0) break;
        const lo = classChar(chars, i);
        if (!lo) return undefined;
        i = lo.next;
        let hi = lo;
        if (chars[i] === '-') {
          const end = classChar(chars, i + 1);
          if (!end) return undefined;
          hi = end;
          i = end.next;
        }
        // Go accepts a range whose ends are reversed; it matches nothing.
        if (lo.char.codePointAt(0)! <= hi.char.codePointAt(0)!) ranges.push(`${codePoint(lo.char)}-${codePoint(hi.char)}`);
        count += 1;
      }
      source += `[${negated ? '^' : ''}${ranges.join('')}]`;
    } else source += codePoint(c);
  }
  return new RegExp(`^${source}$`, 'u');
}

/** One member of a `[...]` class at `i` (Go's getEsc): `-` and `]` must be escaped, and the class must go on. */
function classChar(chars: readonly string[], i: number): { char: string; next: number } | undefined {
  let at = i;
  if (chars[at] === '-' || chars[at] === ']') return undefined;
  if (chars[at] === '\\') at += 1;
  if (at >= chars.length - 1) return undefined;
  return { char: chars[at]!, next: at + 1 };
}

function compile(line: string): Pattern | undefined {
  const body = line.replace(/^\/+|\/+$/g, '');
  if (body === '') return undefined;
  let test = (text: string) => text === body;
  if (/[*?[]/.test(line)) {
    const glob = goGlob(body);
    test = glob ? (text) => glob.test(text) : () => false;
  }
  return { anchored: line.startsWith('/'), dirOnly: line.endsWith('/'), parts: body.split('/').length, test };
}

function matches(pattern: Pattern, parts: readonly string[], isDir: boolean): boolean {
  if (pattern.dirOnly && !isDir) return false;
  if (pattern.anchored) return pattern.parts === parts.length && pattern.test(parts.join('/'));
  return pattern.parts <= parts.length && pattern.test(parts.slice(parts.length - pattern.parts).join('/'));
}

export class KrmIgnore {
  private constructor(
    private readonly ignore: readonly Pattern[],
    private readonly accept: readonly Pattern[],
  ) {}

  static parse(text: string): KrmIgnore {
    const ignore: Pattern[] = [];
    const accept: Pattern[] = [];
    for (const raw of text.split('\n')) {
      // Go's line scanner drops one `\r` before the newline; the pattern is then trimmed of spaces only.
      let line = raw.replace(/\r$/, '').replace(/^ +| +$/g, '');
      if (line === '' || line.startsWith('#')) continue;
      if (line.startsWith('\\#')) line = line.slice(1);
      const isAccept = line.startsWith('!');
      const pattern = compile(isAccept ? line.slice(1) : line);
      if (pattern) (isAccept ? accept : ignore).push(pattern);
    }
    return new KrmIgnore(ignore, accept);
  }

  /** Whether `path`, relative to the package directory that holds this file, is ignored. */
  matches(path: string, isDir: boolean): boolean {
    const parts = path.split('/');
    if (this.accept.some((p) => matches(p, parts, isDir))) return false;
    return this.ignore.some((p) => matches(p, parts, isDir));
  }
}
