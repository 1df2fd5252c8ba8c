/**
 * The trees the fast reader builds (src/yaml/simple-block-tree.ts) must be the trees `yaml` composes
 * for the same text, node for node, in every property but their source ranges; and they must be
 * built for the items a run usually edits.
 */
import fc from 'fast-check';
import { isMap, isPair, Scalar, YAMLMap } from 'yaml';
import { splitItems } from '../../src/krm/item-chunks';
import { BEYOND_LINE_SCAN } from '../../src/yaml/line-scan';
import { readSimpleBlockRange } from '../../src/yaml/simple-block-read';
import { readSimpleBlockTree, treeDocument } from '../../src/yaml/simple-block-tree';
import { parseYaml } from '../../src/yaml/yaml-format';
import { corpusFiles, REPO_ROOT } from '../helpers';
import { join } from 'node:path';

const SEED = 20261124;

/** Every own property of every node, the class of each, without source ranges. */
function dump(node: unknown): unknown {
  if (node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map(dump);
  const out: Record<string, unknown> = { class: isPair(node) ? 'Pair' : (node as object).constructor.name };
  for (const key of Object.keys(node).sort()) if (key !== 'range') out[key] = dump((node as Record<string, unknown>)[key]);
  return out;
}

/** What `yaml` composes for a document, as the function parses an item (tokens released). */
function parsed(text: string): unknown {
  const { doc } = parseYaml(text, { releaseTokens: true });
  if (doc.errors.length > 0 || doc.comment || doc.commentBefore) return 'not a plain tree';
  return dump(doc.contents);
}

const tree = (text: string) => readSimpleBlockTree(text, 0, text.length, 0);

describe('trees built by the fast reader', () => {
  it.each([
    ['scalars of every kind, quoted keys, flow collections', "a: 1\nb: 0x1F\nc: 1e3\n'd': \"x\"\ne: 'it''s'\nf: ~\ng: on\nh: [x, 'y', {i: 2}]\nj: {}\nk:\n- l\n- m: n\n  o: true\n"],
    ['trailing comments on scalars and flow collections', 'a: 1 # one\nb: "q" #\nc: [x] # list\nd:\n- e # item\n'],
    ['values with nothing after them', 'a:\nb:\n  c:\nd:\n-\n- x\n'],
  ])('equal the parser\'s: %s', (_name, text) => {
    const built = tree(text);
    expect(built).toBeDefined();
    expect(dump(built)).toEqual(parsed(text));
  });

  it.each([
    ['a blank line', 'a: 1\n\nb: 2\n'],
    ['a comment line', 'a: 1\n# c\nb: 2\n'],
    ['a comment after a key', 'a: # c\n  b: 1\n'],
    ['a trailing space', 'a: 1 \n'],
    ['a block scalar', 'a: |\n  x\n'],
  ])('are not built for %s (the parser places it)', (_name, text) => {
    expect(readSimpleBlockRange(text, 0, text.length, 0)).toBeDefined();
    expect(tree(text)).toBeUndefined();
  });

  const items = corpusFiles(join(REPO_ROOT, 'test/corpus/resource-lists'))
    .filter(({ text }) => !BEYOND_LINE_SCAN.test(text))
    .flatMap(({ text }) => splitItems(text)?.chunks.map((chunk) => ({ text, chunk })) ?? []);

  it('equal the parser\'s for every corpus item they are built for, read in place', () => {
    let built = 0;
    for (const { text, chunk } of items) {
      const node = readSimpleBlockTree(text, chunk.bodyStart, chunk.end, chunk.dedent);
      if (!node) continue;
      built += 1;
      expect(dump(node)).toEqual(parsed(chunk.text));
    }
    // Real packages are full of comment lines, which the parser places: few corpus items qualify.
    expect(built).toBeGreaterThan(3);
  });

  it('equal the parser\'s for damaged corpus items, whenever they are built', () => {
    const texts = items.map(({ chunk }) => chunk.text).filter((text) => tree(text) !== undefined);
    const damage = fc.record({
      text: fc.constantFrom(...texts),
      at: fc.nat(),
      edit: fc.constantFrom(' ', '\n', '- ', ': ', ' #', ' # c', '#', "'", '"', '{', '[', '}', ']', ',', '|', '&', '*', '!', ':', '-', 'x', '', '~', '0x1', '1e3', 'on', 'null', '  '),
      cut: fc.nat({ max: 3 }),
    });
    let built = 0;
    fc.assert(
      fc.property(damage, ({ text, at, edit, cut }) => {
        const position = at % text.length;
        const damaged = text.slice(0, position) + edit + text.slice(position + cut);
        const node = tree(damaged);
        if (!node) return;
        built += 1;
        expect({ damaged, tree: dump(node) }).toEqual({ damaged, tree: parsed(damaged) });
      }),
      { seed: SEED, numRuns: 4000 },
    );
    expect(built).toBeGreaterThan(1000);
  });

  it('hold the reader\'s plain data', () => {
    for (const { text, chunk } of items) {
      const node = readSimpleBlockTree(text, chunk.bodyStart, chunk.end, chunk.dedent);
      if (node) expect(node.toJS(treeDocument())).toEqual(readSimpleBlockRange(text, chunk.bodyStart, chunk.end, chunk.dedent));
    }
    expect(isMap(tree('a: 1\n'))).toBe(true);
    expect((tree('a: 1\n') as YAMLMap<Scalar, Scalar>).items[0]!.value!.type).toBe(Scalar.PLAIN);
  });
});
