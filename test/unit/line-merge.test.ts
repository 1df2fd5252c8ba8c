import fc from 'fast-check';
import { mergeLines } from '../../src/yaml/line-merge';

const lines = (text: string) => text.split('\n');

describe('three-way line merge of a rendering, its original layout and its change', () => {
  it.each([
    [
      'a change next to a line the original spells otherwise keeps both',
      'data:\n  color: blue\n  size: large # note\n',
      'data:\n  color: blue\n  size:   large    # note\n',
      'data:\n  color: green\n  size: large # note\n',
      'data:\n  color: green\n  size:   large    # note\n',
    ],
    [
      'lines changed inside a sequence the original indents otherwise move with it',
      'args:\n  - a\n  - b\nnext: 1\n',
      'args:\n- a\n- b\nnext: 1\n',
      'args:\n  - a\n  - c\n  - d\nnext: 1\n',
      'args:\n- a\n- c\n- d\nnext: 1\n',
    ],
    [
      'a key added after a nested sequence takes the indentation of its siblings, not of the sequence',
      'c:\n  - name: w\n    args:\n      - a\n    ports: []\n',
      'c:\n- name: w\n  args:\n  - a\n  ports: []\n',
      'c:\n  - name: w\n    args:\n      - a\n    env: []\n    ports: []\n',
      'c:\n- name: w\n  args:\n  - a\n  env: []\n  ports: []\n',
    ],
    ['a blank line the original has after the last line survives a change of that line', 'a: 1\nb: 2\n', 'a: 1\nb: 2\n\n', 'a: 1\nb: 3\n', 'a: 1\nb: 3\n\n'],
    ['where both change the same line, theirs wins', 'a: [1]\n', 'a: [ 1 ]\n', 'a: [2]\n', 'a: [2]\n'],
  ])('%s', (_, base, ours, theirs, merged) => {
    expect(mergeLines(lines(base), lines(ours), lines(theirs))).toEqual(lines(merged));
  });

  it('more edits than allowed is no answer', () => {
    const base = Array.from({ length: 50 }, (_, i) => `k${i}: v`);
    expect(mergeLines(base, base, base.map((l) => `${l}x`), 10)).toBeUndefined();
  });

  const lineArb = fc.constantFrom('a: 1', '  b: 2', '- c', '  - d', '', '# e', 'f:', '    g: 3');
  const doc = fc.array(lineArb, { maxLength: 20 });

  it('with one side unchanged, the result is the other side', () => {
    fc.assert(
      fc.property(doc, doc, (base, other) => {
        expect(mergeLines(base, base, other)).toEqual(other);
        expect(mergeLines(base, other, base)).toEqual(other);
      }),
      { numRuns: 2000 },
    );
  });

  it('changes to different lines of a document of distinct lines are both made', () => {
    fc.assert(
      fc.property(fc.integer({ min: 3, max: 30 }), fc.nat(), fc.nat(), (length, x, y) => {
        const base = Array.from({ length }, (_, i) => `key${i}: value${i}`);
        const i = x % length;
        const j = y % length;
        fc.pre(Math.abs(i - j) > 0);
        const ours = base.map((line, k) => (k === i ? `${line}   # ours` : line));
        const theirs = base.map((line, k) => (k === j ? `${line}-theirs` : line));
        expect(mergeLines(base, ours, theirs)).toEqual(base.map((line, k) => (k === i ? ours[k] : k === j ? theirs[k] : line)));
      }),
      { numRuns: 1000 },
    );
  });
});
