/**
 * The fast reader and writer of simple block YAML must agree with `yaml` on everything they accept,
 * and must accept what KRM packages are usually made of (else the fast path is never taken).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Document, parseDocument, visit, type ToStringOptions } from 'yaml';
import { splitItems } from '../../src/krm/item-chunks';
import { BEYOND_LINE_SCAN } from '../../src/yaml/line-scan';
import { MAX_MAP_KEYS, readSimpleBlockMap, readSimpleBlockRange, readSimpleBlockWithout } from '../../src/yaml/simple-block-read';
import { writeSimpleBlockMap } from '../../src/yaml/simple-block-write';
import { newDocument, PARSE_OPTIONS, renderNode } from '../../src/yaml/yaml-format';
import { corpusFiles, REPO_ROOT, SHARED } from '../helpers';
import { damagedDocument } from './damaged-documents';

const SEED = 20261122;

/** What `yaml` reads: the data, or 'error' when the text is not valid YAML to it. */
function yamlRead(text: string): unknown {
  const doc = parseDocument(text, PARSE_OPTIONS);
  return doc.errors.length > 0 ? 'error' : doc.toJS();
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry) || entry === 'Kptfile' ? [path] : [];
  });
}

/** Every document of the real packages, and every item of the recorded ResourceLists. */
const corpusDocuments: string[] = [
  ...yamlFiles(join(SHARED, 'conformance', 'real-packages')).flatMap((file) => readFileSync(file, 'utf8').split(/^---[^\n]*\n/m)),
  ...corpusFiles(join(REPO_ROOT, 'test/corpus/resource-lists')).flatMap(({ text }) => splitItems(text)?.chunks.map((chunk) => chunk.text) ?? []),
].filter((text) => text.trim() !== '');

describe('reading simple block YAML', () => {
  it('gives what yaml gives for every corpus document it accepts, and accepts most of them', () => {
    let accepted = 0;
    for (const text of corpusDocuments) {
      const data = readSimpleBlockMap(text);
      if (data === undefined) continue;
      accepted += 1;
      expect({ text, data }).toEqual({ text, data: yamlRead(text) });
    }
    expect(corpusDocuments.length).toBeGreaterThan(300);
    expect(accepted / corpusDocuments.length).toBeGreaterThan(0.85);
  });

  it.each([
    ['maps, compact and indented lists, nulls', 'a:\n  b: 1\n  c:\n  - x\n  -\n  - y: 2\n    z: []\nd:\n  - e\nf:\ng: {} # c\n', { a: { b: 1, c: ['x', null, { y: 2, z: [] }] }, d: ['e'], f: null, g: {} }],
    ['scalars as the core schema resolves them', "a: 0x1f\nb: 1.0\nc: ~\nd: 'it''s'\ne: \"q\"\nf: a, b # c\ng: a#b\nh: -5\ni: yes\n", { a: 31, b: 1, c: null, d: "it's", e: 'q', f: 'a, b', g: 'a#b', h: -5, i: 'yes' }],
    ['a comment at any column, blank lines, a map under a bare dash', '# top\na:\n# left\n\n  -\n      b: 1\n', { a: [{ b: 1 }] }],
    ['quoted keys', "'a b': 1\n\"c\": 2\n", { 'a b': 1, c: 2 }],
    ['flow collections on one line', "a: {b: 1, c: [x, 'y z', \"w\"], d: {}, e: []} # c\nf: [http://x, a:b, {g: h}]\n", { a: { b: 1, c: ['x', 'y z', 'w'], d: {}, e: [] }, f: ['http://x', 'a:b', { g: 'h' }] }],
    [
      'literal block scalars, clipped and stripped, with blank lines and comment-like lines',
      'a: |\n  x\n\n    # y\n   \n\nb: |- # c\n  z\n\nc:\n- |\n  w\nd: |\ne: |',
      { a: 'x\n\n  # y\n \n', b: 'z', c: ['w\n'], d: '', e: '' },
    ],
  ])('reads %s', (_name, text, expected) => {
    expect(readSimpleBlockMap(text)).toEqual(expected);
    expect(yamlRead(text)).toEqual(expected);
  });

  it.each([
    ['a folded block scalar', 'a: >\n  x\n'],
    ['a kept block scalar', 'a: |+\n  x\n\n'],
    ['an explicitly indented block scalar', 'a: |2\n   x\n'],
    ['a block scalar with a long blank line before its text', 'a: |\n     \n  x\n'],
    ['a multi-line plain scalar', 'a: x\n  y\n'],
    ['a multi-line quoted scalar', "a: 'x\n  y'\n"],
    ['a flow collection over several lines', 'a: [x,\n  y]\n'],
    ['a pair in a flow list', 'a: [b: c]\n'],
    ['a flow pair without a value', 'a: {b}\n'],
    ['a trailing comma', 'a: [x, ]\n'],
    ['a comment inside a flow collection', 'a: [x #c\n  ]\n'],
    ['an anchor', 'a: &x 1\n'],
    ['a tag', 'a: !!str 1\n'],
    ['escapes', 'a: "\\u00e9"\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a key the schema reads as a boolean', 'true: 1\n'],
    ['a number as a key', '8080: x\n'],
    ['a key with a space before the colon', 'a : 1\n'],
    ['a mapping in a plain scalar', 'a: b: c\n'],
    ['a top-level list', '- a\n'],
    ['a nested list on one line', 'a:\n- - b\n'],
    ['a bad indentation', 'a:\n    b: 1\n  c: 2\n'],
    ['a tab', 'a:\n\tb: 1\n'],
    ['a non-breaking space', 'a:\u00a0b\n'],
    ['a document marker', '---\na: 1\n'],
    ['__proto__', '__proto__: 1\n'],
  ])('leaves %s to the parser', (_name, text) => {
    expect(readSimpleBlockMap(text)).toBeUndefined();
  });

  /** Keys and strings, ordinary and tricky. */
  const key = fc.oneof(
    fc.constantFrom('a', 'name', 'app.kubernetes.io/name', 'config.kubernetes.io/index', 'x_y', 'y', 'true', 'null', '8080', 'a b', 'a:b', 'é', '-a', '$ref', ''),
    fc.stringMatching(/^[a-z][a-z0-9.-]{0,6}$/),
  );
  const text = fc.oneof(
    fc.constantFrom('', ' lead', 'trail ', 'a: b', 'a #b', 'a#b', '- x', "it's", 'q"x', 'back\\slash', 'multi\nline', '#x', '{}', '[a]', 'x,y', 'ü', 'nbsp\u00a0', 'null', '~', '.inf', '0x1F', '1e3', '1_000', '12:30', '2024-01-01', 'yes', 'on', '007', '-1', ':x', '?x', '*x', '&x', '!x', '%x', '@x', '`x', 'a\tb'),
    fc.stringMatching(/^[a-z][a-z0-9 ./:-]{0,10}$/),
    fc.string({ maxLength: 6 }),
  );
  const scalar = fc.oneof(text, fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null));
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('map'), tie('seq')),
    map: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
    seq: fc.array(tie('value'), { maxLength: 3 }),
  }));
  const document = fc.dictionary(key, value, { minKeys: 1, maxKeys: 5 });
  const styles: ToStringOptions[] = [
    { indentSeq: false, lineWidth: 0 },
    { indentSeq: true, indent: 4 },
    { singleQuote: true, lineWidth: 0 },
    { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', lineWidth: 20 },
    { collectionStyle: 'flow' },
    { flowCollectionPadding: false, lineWidth: 0 },
  ];

  /** The data rendered in `style`, collections below the top written as flow where `flowAt` says. */
  function render(data: Record<string, unknown>, style: ToStringOptions, flowAt: readonly boolean[]): string {
    const doc = new Document(data);
    let seen = 0;
    visit(doc, {
      Collection(_key, node, path) {
        if (path.length > 1 && flowAt[seen++ % flowAt.length]) node.flow = true;
      },
    });
    return doc.toString(style);
  }

  it('gives what yaml gives for every accepted rendering of generated data', () => {
    let accepted = 0;
    let acceptedFlow = 0;
    fc.assert(
      fc.property(document, fc.constantFrom(...styles), fc.array(fc.boolean(), { minLength: 1, maxLength: 4 }), (data, style, flowAt) => {
        const rendered = render(data, style, flowAt);
        const read = readSimpleBlockMap(rendered);
        if (read === undefined) return;
        accepted += 1;
        if (/: [[{][^\]}]/.test(rendered)) acceptedFlow += 1;
        expect(read).toEqual(yamlRead(rendered));
      }),
      { seed: SEED, numRuns: 2000 },
    );
    expect(accepted).toBeGreaterThan(400);
    expect(acceptedFlow).toBeGreaterThan(100);
  });

  it('accepts only valid YAML, read as yaml reads it, when corpus documents are damaged', () => {
    const sample = corpusDocuments.filter((d) => readSimpleBlockMap(d) !== undefined).slice(0, 200);
    let accepted = 0;
    fc.assert(
      fc.property(damagedDocument(sample), (damaged) => {
        const read = readSimpleBlockMap(damaged);
        if (read === undefined) return;
        accepted += 1;
        expect({ damaged, read }).toEqual({ damaged, read: yamlRead(damaged) });
      }),
      { seed: SEED, numRuns: 5000 },
    );
    expect(accepted).toBeGreaterThan(1500);
  });
});

describe('reading an item in place, from its range of the list', () => {
  /** A ResourceList whose items are these documents, at column `indent` (0: compact, 2: wide). */
  function listOf(documents: readonly string[], indent: number): string {
    const pad = ' '.repeat(indent);
    const items = documents.map((document) =>
      document
        .replace(/\n$/, '')
        .split('\n')
        .map((line, i) => (i === 0 ? `${pad}- ${line}` : line === '' ? '' : `${pad}  ${line}`))
        .join('\n'),
    );
    return `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${items.join('\n')}\n`;
  }

  const readInPlace = (text: string) => splitItems(text)?.chunks.map((chunk) => ({ text: chunk.text, data: readSimpleBlockRange(text, chunk.bodyStart, chunk.end, chunk.dedent) }));

  it('gives each corpus item what reading its text alone gives', () => {
    let read = 0;
    for (const { text } of corpusFiles(join(REPO_ROOT, 'test/corpus/resource-lists'))) {
      for (const chunk of readInPlace(text) ?? []) {
        expect(chunk.data).toEqual(readSimpleBlockMap(chunk.text));
        if (chunk.data !== undefined) read += 1;
      }
    }
    expect(read).toBeGreaterThan(10);
  });

  // Documents a line scan can split into items: no anchors, tags, tabs or document markers.
  const sample = corpusDocuments.filter((d) => !/^\s*(#|$)/.test(d) && !BEYOND_LINE_SCAN.test(d)).slice(0, 300);

  it.each([0, 2])('reads each document of the corpus, written as an item at column %i, as yaml reads the document', (indent) => {
    const chunks = readInPlace(listOf(sample, indent))!;
    expect(chunks).toHaveLength(sample.length);
    const read = chunks.filter((chunk, i) => chunk.data !== undefined && expect(chunk.data).toEqual(yamlRead(sample[i]!)) === undefined);
    expect(read.length).toBeGreaterThan(sample.length * 0.8);
  });

  it('gives what yaml gives for the item, compact or indented, for documents and damaged documents', () => {
    const damage = fc.record({ at: fc.nat(), edit: fc.constantFrom(' ', '\n', '- ', ': ', '#', "'", '{', '|', '  ', '\u00a0', '---', '%'), cut: fc.nat({ max: 2 }) });
    let accepted = 0;
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...sample), { minLength: 1, maxLength: 3 }), damage, fc.constantFrom(0, 2), (documents, { at, edit, cut }, indent) => {
        const first = documents[0]!;
        const position = at % first.length;
        const damaged = [first.slice(0, position) + edit + first.slice(position + cut), ...documents.slice(1)];
        const chunks = readInPlace(listOf(damaged, indent));
        if (!chunks) return;
        for (const chunk of chunks) {
          expect(chunk.data).toEqual(readSimpleBlockMap(chunk.text));
          if (chunk.data === undefined) continue;
          accepted += 1;
          expect(chunk.data).toEqual(yamlRead(chunk.text));
        }
      }),
      { seed: SEED, numRuns: 1500 },
    );
    expect(accepted).toBeGreaterThan(1000);
  });
});

describe('reading a document without some of its lines (a list without its items), in place', () => {
  it('gives what reading the text left over gives, for any run of whole lines cut from corpus documents', () => {
    const lineStarts = (text: string) => [0, ...[...text.matchAll(/\n/g)].map((m) => m.index! + 1)];
    let read = 0;
    fc.assert(
      fc.property(fc.constantFrom(...corpusDocuments.slice(0, 300)), fc.nat(), fc.nat(), (text, a, b) => {
        const starts = lineStarts(text);
        const [from, to] = [starts[a % starts.length]!, starts[b % starts.length]!].sort((x, y) => x - y) as [number, number];
        const left = text.slice(0, from) + text.slice(to);
        const data = readSimpleBlockWithout(text, from, to);
        expect(data).toEqual(readSimpleBlockMap(left));
        if (data !== undefined) read += 1;
      }),
      { seed: SEED, numRuns: 2000 },
    );
    expect(read).toBeGreaterThan(500);
  });
});

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
  ])('writes %s as yaml does', (_name, value, expected) => {
    expect(writeSimpleBlockMap(value)).toBe(expected);
    expect(render(value)).toBe(expected);
  });

  it.each([
    ['a string to quote with both kinds of quote in it', { a: 'it\'s "q": x' }],
    ['a string to quote with a backslash and no double quote', { a: 'a: \\x' }],
    ['a string over two lines', { a: 'x\ny' }],
    ['a string beyond ASCII', { a: 'é' }],
    ['a float', { a: 1.5 }],
    ['a list in a list', { a: [['b']] }],
    ['a date', { a: new Date(0) }],
    ['a key that needs quotes', { 'a b': 1 }],
  ])('leaves %s to yaml', (_name, value) => {
    expect(writeSimpleBlockMap(value)).toBeUndefined();
  });
});

describe('the bound on keys', () => {
  it('leaves a map of more keys than a KRM object has to the parser, block or flow', () => {
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `k${i}`);
    expect(readSimpleBlockMap(`data:\n${keys(MAX_MAP_KEYS).map((k) => `  ${k}: v\n`).join('')}`)).toBeDefined();
    expect(readSimpleBlockMap(`data:\n${keys(MAX_MAP_KEYS + 1).map((k) => `  ${k}: v\n`).join('')}`)).toBeUndefined();
    expect(readSimpleBlockMap(`data: {${keys(MAX_MAP_KEYS).map((k) => `${k}: v`).join(', ')}}\n`)).toBeDefined();
    expect(readSimpleBlockMap(`data: {${keys(MAX_MAP_KEYS + 1).map((k) => `${k}: v`).join(', ')}}\n`)).toBeUndefined();
  });
});
