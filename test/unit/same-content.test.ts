/**
 * The merge's structural equality (src/merge/yaml-values.ts) remembers its answers per comparison
 * and compares maps with keys in the same order pair by pair. Whatever path it takes, its answer
 * must be the data's: equal values in any key order, whatever the spelling, quoting or comments,
 * with the fields a comparison leaves out ignored, the same on every call.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { Document, type Node } from 'yaml';
import { forgetComparisons, sameComments, sameContent, type Comparison } from '../../src/merge/yaml-values';
import { parseYaml } from '../../src/yaml/yaml-format';

const SEED = 20261124;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const key = fc.constantFrom('a', 'b', 'c', 'name', 'skip');
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constantFrom<Json>('x', 'y', 1, 2, true, null, ''), tie('map'), tie('list')),
  map: fc.dictionary(key, tie('value'), { maxKeys: 4, noNullPrototype: true }),
  list: fc.array(tie('value'), { maxLength: 3 }),
})) as { value: fc.Arbitrary<Json> };

/** The data with every map's keys in another order (the one `order` picks, reversed or not). */
function reordered(data: Json, reverse: boolean): Json {
  if (Array.isArray(data)) return data.map((item) => reordered(item, reverse));
  if (data === null || typeof data !== 'object') return data;
  const entries = Object.entries(data).map(([k, v]) => [k, reordered(v, reverse)] as const);
  return Object.fromEntries(reverse ? entries.reverse() : entries);
}

/** The data as nodes, written in a style of its own (flow or block, quoted or not, plain keys commented or not), read back. */
function written(data: Json, style: number): string {
  const text = new Document({ root: data }).toString({ lineWidth: 0, collectionStyle: style % 3 === 0 ? 'flow' : 'any', defaultStringType: style % 2 ? 'QUOTE_DOUBLE' : 'PLAIN' });
  return style % 5 === 0 ? text.replace(/^( +)(\w+):/gm, '$1# about $2\n$1$2:') : text;
}

const nodes = (data: Json, style: number): Node => parseYaml(written(data, style), { releaseTokens: true }).doc.get('root', true) as Node;

/** Leaves out `skip` in maps at the top: what a schema's retained field is to the comparison. */
const WITHOUT_SKIP: Comparison = { field: (name) => (name === 'skip' ? false : undefined) };

function withoutSkip(data: Json): Json {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return data;
  return Object.fromEntries(Object.entries(data).filter(([k]) => k !== 'skip'));
}

describe('structural equality of nodes', () => {
  it('is the equality of their data, in any key order and spelling, asked any number of times', () => {
    fc.assert(
      fc.property(value, value, fc.boolean(), fc.nat({ max: 29 }), fc.nat({ max: 29 }), (a, b, reverse, styleA, styleB) => {
        forgetComparisons();
        const left = nodes(a, styleA);
        const sameData = nodes(reordered(a, reverse), styleB);
        const other = nodes(b, styleB);
        expect(sameContent(left, sameData)).toBe(true);
        expect(sameContent(sameData, left)).toBe(true);
        const expected = isDeepStrictEqual(a, b);
        for (let i = 0; i < 2; i += 1) {
          expect(sameContent(left, other)).toBe(expected);
          expect(sameContent(other, left)).toBe(expected);
        }
        expect(sameContent(left, other, WITHOUT_SKIP)).toBe(isDeepStrictEqual(withoutSkip(a), withoutSkip(b)));
        expect(sameContent(left, other)).toBe(expected);
      }),
      { seed: SEED, numRuns: 1500 },
    );
  });

  it('tells comments apart wherever they are, in any key order', () => {
    fc.assert(
      fc.property(value, fc.boolean(), (data, reverse) => {
        forgetComparisons();
        const plain = nodes(data, 4);
        const again = nodes(reordered(data, reverse), 4);
        const commented = nodes(data, 10);
        expect(sameComments(plain, again)).toBe(true);
        const commentAdded = written(data, 10) !== written(data, 4);
        expect(sameComments(plain, commented)).toBe(!commentAdded);
      }),
      { seed: SEED, numRuns: 800 },
    );
  });
});
