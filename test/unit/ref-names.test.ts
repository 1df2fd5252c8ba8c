/**
 * git's ref-name rules, judged in memory (src/git/ref-names.ts), against git's own judge: a path
 * passes exactly when `git check-ref-format` takes the branch a draft of that package would be.
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { refPathProblem } from '../../src/git/ref-names';

/** Whether git takes `refs/heads/drafts/<path>/packagevariant-1` for a ref name. */
const gitTakes = (path: string): boolean => spawnSync('git', ['check-ref-format', `refs/heads/drafts/${path}/packagevariant-1`]).status === 0;

describe('a path that cannot be part of a ref', () => {
  it.each([
    ['team a', '"team a" holds " ", which git refuses in a ref name'],
    ['a:b', '"a:b" holds ":", which git refuses in a ref name'],
    ['x.lock', '"x.lock" ends with ".lock", which git refuses in a ref name'],
    ['a/.hidden/b', '".hidden" begins with ".", which git refuses in a ref name'],
    ['a..b', '"a..b" holds "..", which git refuses in a ref name'],
    ['at@{1}', '"at@{1}" holds "@{", which git refuses in a ref name'],
    ['tab\there', '"tab\\there" holds "\\t", which git refuses in a ref name'],
    ['a//b', 'it holds an empty name, which git refuses in a ref name'],
    ['n'.repeat(256), "a name of 256 bytes is longer than the 255 a ref's file may have"],
    ['é'.repeat(128), "a name of 256 bytes is longer than the 255 a ref's file may have"],
  ])('%j: %s', (path, why) => {
    expect(refPathProblem(path)).toBe(why);
    if (!path.startsWith('n') && !path.startsWith('é')) expect(gitTakes(path)).toBe(false);
  });

  it.each(['app', 'clusters/edge-1/app', 'a.b', 'x.locks', '@', 'v1.0.0', 'n'.repeat(255), 'UPPER/Case_and-digits.9'])('%j is a path refs can hold', (path) => {
    expect(refPathProblem(path)).toBeUndefined();
    expect(gitTakes(path)).toBe(true);
  });

  it('agrees with git check-ref-format on paths built of the characters that matter', () => {
    const piece = fc.constantFrom('a', 'b', '.', '..', '/', '.lock', '@', '{', '@{', '~', '^', ':', '?', '*', '[', '\\', ' ', '\t', '\x7f', '-', 'é');
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 6 }), (pieces) => {
        const path = pieces.join('');
        expect({ path, taken: refPathProblem(path) === undefined }).toEqual({ path, taken: gitTakes(path) });
      }),
      { seed: 20260126, numRuns: 150 },
    );
  });
});
