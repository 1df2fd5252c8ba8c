/**
 * The writer of changed items' trees (src/yaml/tree-render.ts) must write what `yaml` writes
 * (renderNode of a one-item sequence) whenever it writes, for trees as the function has them: built
 * by the fast reader or parsed, then edited, or made from data; and it must write the trees a
 * PackageVariant's edits leave.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { isMap, isScalar, isSeq, YAMLSeq, type Node, type YAMLMap } from 'yaml';
import { splitItems } from '../../src/krm/item-chunks';
import { BEYOND_LINE_SCAN } from '../../src/yaml/line-scan';
import { readSimpleBlockTree, treeDocument } from '../../src/yaml/simple-block-tree';
import { renderTreeItem } from '../../src/yaml/tree-render';
import { newDocument, parseYaml, renderNode } from '../../src/yaml/yaml-format';
import { corpusFiles, REPO_ROOT } from '../helpers';

const SEED = 20261124;

function yamlRendered(node: Node): string {
  const seq = new YAMLSeq();
  seq.items.push(node);
  return renderNode(seq, { version: '1.2' });
}

/** Checks one tree; answers whether the writer took it. */
function agrees(node: Node): boolean {
  const written = renderTreeItem(node);
  if (written === undefined) return false;
  expect(written).toBe(yamlRendered(node));
  return true;
}

const items = corpusFiles(join(REPO_ROOT, 'test/corpus/resource-lists'))
  .filter(({ text }) => !BEYOND_LINE_SCAN.test(text))
  .flatMap(({ text }) => splitItems(text)?.chunks.map((chunk) => chunk.text) ?? []);

const tree = (text: string) => readSimpleBlockTree(text, 0, text.length, 0);
const parsedTree = (text: string) => {
  const { doc } = parseYaml(text, { releaseTokens: true });
  return doc.errors.length === 0 && isMap(doc.contents) ? doc.contents : undefined;
};

const safeWord = fc.stringMatching(/^[a-z][a-z0-9./-]{0,8}$/);
const tricky = fc.constantFrom('y', 'on', 'true', '7', '0o7', '0x1F', '1e3', 'a: b', 'a #b', ' x', 'x ', '', "it's", 'q"x', 'say "hi": x', "'q' \"r\"", 'back\\slash', '{}', '[a]', 'a,b', '- x', '-', '?', 'x:', '~', 'null', '%x', '@x', '---x', 'é', 'multi\nline', '12:30');
const scalar = fc.oneof(safeWord, tricky, fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom(1.5, -0, 2 ** 60));
const { value: data } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('map'), tie('seq')),
  map: fc.dictionary(fc.oneof(safeWord, tricky), tie('value'), { maxKeys: 4 }),
  seq: fc.array(tie('value'), { maxLength: 3 }),
}));

/** An edit as the function makes them: a value set (a new node), a key removed, a comment set. */
const edit = fc.record({ at: fc.nat(), kind: fc.constantFrom('set', 'delete', 'comment', 'flow'), value: data, comment: fc.constantFrom(' note', ' ', 'x', '') });

function applyEdit(root: YAMLMap, { at, kind, value, comment }: { at: number; kind: string; value: unknown; comment: string }): void {
  const maps: YAMLMap[] = [];
  const walk = (node: unknown) => {
    if (isMap(node)) {
      maps.push(node);
      node.items.forEach((pair) => walk(pair.value));
    } else if (isSeq(node)) node.items.forEach(walk);
  };
  walk(root);
  const map = maps[at % maps.length]!;
  const pair = map.items[at % Math.max(1, map.items.length)];
  // A new key is set as a string, as setIn sets it.
  if (kind === 'set') map.set(pair && isScalar(pair.key) && at % 2 === 0 ? pair.key.value : `k${at}`, treeDocument().createNode(value));
  else if (kind === 'delete' && pair && map !== root) map.delete(pair.key);
  else if (kind === 'comment' && pair && isScalar(pair.value)) pair.value.comment = comment;
  else if (kind === 'flow' && pair && (isMap(pair.value) || isSeq(pair.value))) pair.value.flow = !pair.value.flow;
}

describe('writing changed items', () => {
  it('writes what yaml writes for every corpus item, built by the fast reader or parsed', () => {
    let written = 0;
    for (const text of items) {
      for (const node of [tree(text), parsedTree(text)]) if (node && agrees(node)) written += 1;
    }
    // Real packages are full of comment lines, which only yaml writes back.
    expect(written).toBeGreaterThan(5);
  });

  it('writes what yaml writes for corpus items edited as the function edits them', () => {
    const texts = items.filter((text) => tree(text) || parsedTree(text));
    let written = 0;
    fc.assert(
      fc.property(fc.constantFrom(...texts), fc.boolean(), fc.array(edit, { minLength: 1, maxLength: 4 }), (text, fast, edits) => {
        const node = (fast && tree(text)) || parsedTree(text);
        if (!node) return;
        for (const change of edits) applyEdit(node, change);
        if (agrees(node)) written += 1;
      }),
      { seed: SEED, numRuns: 3000 },
    );
    expect(written).toBeGreaterThan(800);
  });

  it('writes what yaml writes for new items made from data', () => {
    let written = 0;
    fc.assert(
      fc.property(fc.dictionary(fc.oneof(safeWord, tricky), data, { minKeys: 1, maxKeys: 5 }), (value) => {
        if (agrees(newDocument().createNode(value) as Node)) written += 1;
      }),
      { seed: SEED, numRuns: 3000 },
    );
    expect(written).toBeGreaterThan(800);
  });

  it('leaves to yaml what it does not write: comment lines, block scalars, aliases, floats, non-ASCII', () => {
    for (const text of ['a: 1\n# c\nb: 2\n', 'a: |\n  x\n', 'a: &x 1\nb: *x\n', 'a: 1.5\n', 'a: é\n']) {
      expect(renderTreeItem(parsedTree(text)!)).toBeUndefined();
    }
  });
});

