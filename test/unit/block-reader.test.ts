/**
 * The one reader of simple block YAML (src/yaml/block-reader.ts) leaves to `yaml`'s parser whatever
 * is outside its subset, in every use: plain data, a document's tree, an item's tree read in place.
 * (What each use reads, and that it reads it as `yaml` does, is in data-reader.test.ts and
 * tree-builder.test.ts.)
 */
import { MAX_MAP_KEYS } from '../../src/yaml/block-reader';
import { readSimpleBlockMap } from '../../src/yaml/data-reader';
import { buildItemTree, buildSimpleDocument } from '../../src/yaml/tree-builder';

const USES: readonly [string, (text: string) => unknown][] = [
  ['data', readSimpleBlockMap],
  ['a document', buildSimpleDocument],
  ['an item', (text) => buildItemTree(text, 0, text.length, 0)],
];

describe('the reader of simple block YAML', () => {
  it.each([
    ['a folded block scalar', 'a: >\n  x\n'],
    ['a kept block scalar', 'a: |+\n  x\n\n'],
    ['an explicitly indented block scalar', 'a: |2\n   x\n'],
    ['a block scalar with a long blank line before its text', 'a: |\n     \n  x\n'],
    ['a scalar over several lines in a list', 'a:\n- x\n  y\n'],
    ['a quoted scalar over several lines in a list', "a:\n- 'x\n  y'\n"],
    ['a double-quoted line that ends in a backslash', 'a: "x\\\n  y"\n'],
    ['a quoted scalar whose next line is not deeper than its key', "a:\n  b: 'x\n  y'\n"],
    ['a quoted scalar that never closes', "a: 'x\n  y\n"],
    ['a plain scalar going on below a comment', 'a: x # c\n  y\n'],
    ['a flow collection over several lines', 'a: [x,\n  y]\n'],
    ['a pair in a flow list', 'a: [b: c]\n'],
    ['a flow pair without a value', 'a: {b}\n'],
    ['a trailing comma', 'a: [x, ]\n'],
    ['a comment inside a flow collection', 'a: [x #c\n  ]\n'],
    ['an anchor', 'a: &x 1\n'],
    ['an anchor and an alias', 'a: &x 1\nb: *x\n'],
    ['a tag', 'a: !!str 1\n'],
    ['an escape YAML does not have', 'a: "\\q"\n'],
    ['a hex escape short of its digits', 'a: "\\x4"\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a duplicate key in a large map', `${Array.from({ length: 80 }, (_, i) => `k${i}: ${i}\n`).join('')}k3: again\n`],
    ['a key the schema reads as a boolean', 'true: 1\n'],
    ['a number as a key', '8080: x\n'],
    ['a key with a space before the colon', 'a : 1\n'],
    ['a mapping in a plain scalar', 'a: b: c\n'],
    ['a top-level list', '- a\n'],
    ['a list in a list', 'a:\n- - b\n'],
    ['a bad indentation', 'a:\n    b: 1\n  c: 2\n'],
    ['a tab', 'a:\n\tb: 1\n'],
    ['a non-breaking space after a key', 'a:\u00a0b\n'],
    ['a line of no-break spaces', 'a: 1\n\u00a0\nb: 2\n'],
    ['carriage returns', 'a: 1\r\nb: 2\r\n'],
    ['a document marker', '---\na: 1\n'],
    ['only comments', '# nothing\n'],
  ])('leaves %s to the parser, in every use', (_name, text) => {
    for (const [use, read] of USES) expect({ use, read: read(text) }).toEqual({ use, read: undefined });
  });

  it('leaves a map of more keys than a KRM object has to the parser, block or flow, in every use', () => {
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `k${i}`);
    const block = (n: number) => `data:\n${keys(n).map((k) => `  ${k}: v\n`).join('')}`;
    const flow = (n: number) => `data: {${keys(n).map((k) => `${k}: v`).join(', ')}}\n`;
    for (const [use, read] of USES) {
      for (const text of [block(MAX_MAP_KEYS), flow(MAX_MAP_KEYS)]) expect({ use, read: read(text) === undefined }).toEqual({ use, read: false });
      for (const text of [block(MAX_MAP_KEYS + 1), flow(MAX_MAP_KEYS + 1)]) expect({ use, read: read(text) }).toEqual({ use, read: undefined });
    }
  });
});
