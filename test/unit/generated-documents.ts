/** Simple block YAML documents for the fast readers and writers to be held to `yaml` on. */

/**
 * Documents made from a tape of choices, so that fast-check shrinks a failure to a short one: maps,
 * compact and wide lists, flow collections, literals, scalars of every core type, scalars folded
 * over several lines, and comments and blank lines at any column wherever a line can go.
 */
export function generatedDocument(tape: readonly number[]): string {
  let at = 0;
  const choose = (n: number) => (tape.length === 0 ? 0 : tape[at++ % tape.length]! % n);
  const pick = <T>(options: readonly T[]) => options[choose(options.length)]!;
  const SCALARS = ['a', 'two words', '1', '-2', '3.14', '1.50', '1e3', '0x1F', '0o17', '0755', 'true', 'null', '~', 'on', 'y', '12:30', '.inf', 'a#b', '"q"', "'it''s'", '""', '"esc\\n\\"q\\" \\u00e9 \\x41"', 'nb\u00a0sp', 'tail\u00a0', '\u2003lead', '{}', '[]', '{a: b}', '{a: 1, b: [c, "d"]}', '[a, 1, true]'];
  const KEYS = ['a', 'b', 'name', 'on', 'x.y/z', '"quoted"', "'q k'"];
  const COMMENTS = ['# c', '#', '#x', '# spaced  ', '## deep', '# nb\u00a0sp'];
  const out: string[] = [];
  const gap = (maxIndent: number) => {
    for (let n = choose(6) - 3; n > 0; n -= 1) out.push(choose(3) === 0 ? pick(['', '  ']) : ' '.repeat(choose(maxIndent + 1)) + pick(COMMENTS));
  };
  const lineComment = () => (choose(5) === 0 ? ` ${pick(COMMENTS)}` : '');
  // Words of a scalar over several lines: text, escapes, what reads as a key, a comment or an
  // indicator elsewhere, trailing spaces and backslashes; quoted or plain, at any column.
  const FOLDED_WORDS = ['a', 'two words', "it''s", '\\"q\\"', '\\u00e9 \\x41', '\\', '# not', 'x: y', 'z:', '- y', 'tail  ', '', 'nb\u00a0sp', '1', 'true', '{a}', "'", '"'];
  const folded = (indent: number, head: string): void => {
    const quote = pick(["'", '"', '']);
    out.push(`${head} ${quote}${pick(FOLDED_WORDS)}`);
    for (let n = 1 + choose(3); n > 0; n -= 1) out.push(choose(4) === 0 ? pick(['', '  ']) : ' '.repeat(choose(6) === 0 ? choose(indent + 1) : indent + 1 + choose(4)) + pick(FOLDED_WORDS));
    out[out.length - 1] += `${quote}${lineComment()}`;
  };
  const map = (indent: number, depth: number): void => {
    const used = new Set<string>();
    for (let n = 1 + choose(3); n > 0; n -= 1) {
      const key = pick(KEYS);
      if (used.has(key)) continue;
      if (used.size > 0) gap(indent + 4);
      used.add(key);
      value(indent, `${' '.repeat(indent)}${key}:`, depth);
    }
  };
  const seq = (indent: number, depth: number): void => {
    for (let n = 1 + choose(3); n > 0; n -= 1) {
      gap(indent + 4);
      const kind = depth < 3 ? choose(4) : 3;
      if (kind === 0) {
        const start = out.length;
        map(indent + 2, depth + 1);
        const first = out.findIndex((line, i) => i >= start && line.trim() !== '' && !line.trim().startsWith('#'));
        out[first] = `${' '.repeat(indent)}- ${out[first]!.slice(indent + 2)}`;
      } else if (kind === 1) {
        out.push(`${' '.repeat(indent)}- ${pick(COMMENTS)}`);
        gap(indent + 4);
        map(indent + 2, depth + 1);
      } else if (choose(6) === 0) folded(indent, `${' '.repeat(indent)}-`);
      else out.push(`${' '.repeat(indent)}- ${pick(SCALARS)}${lineComment()}`);
    }
  };
  const value = (indent: number, head: string, depth: number): void => {
    const kind = depth < 3 ? choose(7) : 4 + choose(3);
    if (kind <= 1) {
      out.push(head + lineComment());
      gap(indent + 4);
      if (kind === 0) map(indent + pick([2, 4]), depth + 1);
      else seq(choose(2) === 0 ? indent : indent + 2, depth + 1);
    } else if (kind === 2) {
      out.push(`${head} ${pick(['|', '|-'])}`);
      for (let n = 1 + choose(3); n > 0; n -= 1) out.push(choose(5) === 0 ? '' : ' '.repeat(indent + 2 + 2 * choose(2)) + pick(['text', '# not a comment', 'a: b']));
    } else if (kind === 3) out.push(head + lineComment());
    else if (kind === 6) folded(indent, head);
    else out.push(`${head} ${pick(SCALARS)}${lineComment()}`);
  };
  gap(4);
  map(0, 0);
  gap(6);
  return `${out.join('\n')}${choose(4) === 0 ? '' : '\n'}`;
}
