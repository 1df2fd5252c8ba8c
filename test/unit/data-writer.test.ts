/** The data writer (src/yaml/data-writer.ts) must write what `yaml` renders whenever it writes, and write the data a fan-out makes. */
import fc from 'fast-check';
import { readSimpleBlockMap } from '../../src/yaml/data-reader';
import { writeSimpleBlockMap } from '../../src/yaml/data-writer';
import { newDocument, renderNode } from '../../src/yaml/yaml-format';

const SEED = 20261122;

describe('writing simple block YAML', () => {
  const render = (data: Record<string, unknown>) => renderNode(newDocument().createNode(data));

  const safeWord = fc.stringMatching(/^[a-z][a-z0-9./-]{0,8}$/).filter((w) => !/^(y|n|yes|no|on|off|true|false|null)$/i.test(w));
  const tricky = fc.constantFrom('y', 'true', '7', '0o7', 'a: b', 'a #b', ' x', 'x ', '', "it's", 'q"x', 'back\\slash', 'multi\nline', '{}', '- x', '-', '?', '? x', '1.5', 'x:', 'a  b', 'é', '12:30', '---', '...x', '%x', 'a, b', '@x', '~');
  const printable = fc.string({ unit: fc.constantFrom(...' !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~aZ09'), maxLength: 8 });
  const key = fc.oneof(safeWord, fc.constantFrom('app.kubernetes.io/name', 'y', '8080', 'a b', 'a:b'));
  const scalar = (strings: fc.Arbitrary<string>) => fc.oneof(strings, fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom(1.5, -0, 2 ** 60));
  const data = (strings: fc.Arbitrary<string>, keys: fc.Arbitrary<string>) =>
    fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar(strings), tie('map'), tie('seq')),
      map: fc.dictionary(keys, tie('value'), { maxKeys: 4 }),
      seq: fc.array(tie('value'), { maxLength: 3 }),
      document: fc.dictionary(keys, tie('value'), { minKeys: 1, maxKeys: 5 }),
    })).document as fc.Arbitrary<Record<string, unknown>>;

  it('writes what yaml renders, whenever it writes', () => {
    fc.assert(
      fc.property(data(fc.oneof(safeWord, tricky, printable), key), (value) => {
        const written = writeSimpleBlockMap(value);
        if (written !== undefined) expect(written).toBe(render(value));
      }),
      { seed: SEED, numRuns: 3000 },
    );
  });

  it('writes data of safe words, integers and nested maps and lists, and reads it back', () => {
    const safe = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, safeWord, fc.integer(), fc.boolean(), tie('map'), tie('seq')),
      map: fc.dictionary(safeWord, tie('value'), { maxKeys: 4 }),
      seq: fc.array(fc.oneof(safeWord, tie('map')), { maxLength: 3 }),
      document: fc.dictionary(safeWord, tie('value'), { minKeys: 1, maxKeys: 5 }),
    })).document as fc.Arbitrary<Record<string, unknown>>;
    fc.assert(
      fc.property(safe, (value) => {
        const written = writeSimpleBlockMap(value);
        expect(written).toBe(render(value));
        expect(readSimpleBlockMap(`${written}\n`)).toEqual(value);
      }),
      { seed: SEED, numRuns: 1000 },
    );
  });

  it.each([
    ['strings YAML 1.1 or 1.2 read as other types', { a: 'y', b: '7', c: '' }, 'a: "y"\nb: "7"\nc: ""'],
    ['strings that cannot be plain', { a: 'x: y', b: '- x', c: "'x'", d: 'a #b' }, 'a: "x: y"\nb: "- x"\nc: "\'x\'"\nd: "a #b"'],
    ['strings that can be plain, odd as they look', { a: "it's", b: 'a, b', c: 'x:y', d: 'a#b' }, "a: it's\nb: a, b\nc: x:y\nd: a#b"],
    ['strings with double quotes, plain or in single quotes', { a: 'say "hi"', b: 'x: "y"', c: 'context: set a="1", b="2"' }, 'a: say "hi"\nb: \'x: "y"\'\nc: \'context: set a="1", b="2"\''],
    ['strings to quote with both kinds of quote or a backslash, in double quotes with their escapes', { a: 'it\'s "q": x', b: 'a: \\x' }, 'a: "it\'s \\"q\\": x"\nb: "a: \\\\x"'],
    ['strings beyond ASCII', { a: 'é', b: 'a: é' }, 'a: é\nb: "a: é"'],
  ])('writes %s as yaml does', (_name, value, expected) => {
    expect(writeSimpleBlockMap(value)).toBe(expected);
    expect(render(value)).toBe(expected);
  });

  it.each([
    ['a string over two lines', { a: 'x\ny' }],
    ['a float', { a: 1.5 }],
    ['a list in a list', { a: [['b']] }],
    ['a date', { a: new Date(0) }],
    ['a key that needs quotes', { 'a b': 1 }],
  ])('leaves %s to yaml', (_name, value) => {
    expect(writeSimpleBlockMap(value)).toBeUndefined();
  });
});

