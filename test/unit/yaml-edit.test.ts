/** Comparing a node with data in place (src/variant/yaml-edit.ts) answers what comparing its data answers. */
import fc from 'fast-check';
import { isMap, type Node } from 'yaml';
import { buildItemTree, treeDocument } from '../../src/yaml/tree-builder';
import { parseYaml, renderNode } from '../../src/yaml/yaml-format';
import { sameData, sameNodeData, toData } from '../../src/variant/yaml-edit';

const word = fc.constantFrom('a', 'b', 'c', 'on', '1', '');
const leaf = fc.oneof(word, fc.integer({ min: -2, max: 2 }), fc.boolean(), fc.constant(null));
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('map'), tie('list')),
  map: fc.dictionary(word, tie('value'), { maxKeys: 3 }),
  list: fc.array(tie('value'), { maxLength: 3 }),
}));

/** The data as a tree the way the function has it: made from data, or read back from its text. */
function treeOf(data: unknown, read: boolean): Node {
  const made = treeDocument().createNode(data) as Node;
  if (!read || !isMap(made) || made.items.length === 0) return made;
  const text = `${renderNode(made)}\n`;
  const parsed = parseYaml(text, { releaseTokens: true }).doc.contents as Node;
  return buildItemTree(text, 0, text.length, 0)?.root ?? parsed;
}

describe('a node compared with data in place', () => {
  it('is equal exactly when its data is', () => {
    fc.assert(
      fc.property(value, value, fc.boolean(), (a, b, read) => {
        const node = treeOf(a, read);
        const doc = treeDocument();
        expect(sameNodeData(node, b, doc)).toBe(sameData(toData(node, doc), b));
        expect(sameNodeData(node, toData(node, doc), doc)).toBe(true);
      }),
      { seed: 20261124, numRuns: 3000 },
    );
  });
});
