/**
 * The data reader of simple block YAML (src/yaml/data-reader.ts) must agree with `yaml` on everything
 * it accepts, whole documents and items read in place, and must accept what KRM packages are usually
 * made of (else the fast path is never taken).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { Document, parseDocument, visit, type ToStringOptions } from 'yaml';
import { splitItems } from '../../src/krm/item-chunks';
import { BEYOND_LINE_SCAN } from '../../src/yaml/line-scan';
import { readSimpleBlockMap, readSimpleBlockRange, readSimpleBlockWithout } from '../../src/yaml/data-reader';
import { chompAtEnd, PARSE_OPTIONS } from '../../src/yaml/yaml-format';
import { corpusFiles, REPO_ROOT, SHARED } from '../helpers';
import { damagedDocument } from './damaged-documents';
import { listOf } from './yaml-uses';

const SEED = 20261122;

/**
 * What `yaml` reads, held to the spec where it departs from it: a block scalar that ends the text
 * without a line break has none (`chompAtEnd`; `yaml` 2.9.1 adds one, pinned below). The data, or
 * 'error' when the text is not valid YAML to it.
 */
function yamlRead(text: string): unknown {
  const doc = parseDocument(text, PARSE_OPTIONS);
  chompAtEnd(doc.contents, text);
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
    ['escapes in double quotes, no-break spaces as content', 'a: "\\u00e9\\t\\"q\\""\nb: x\u00a0y\n', { a: 'é\t"q"', b: 'x\u00a0y' }],
    ['flow collections on one line', "a: {b: 1, c: [x, 'y z', \"w\"], d: {}, e: []} # c\nf: [http://x, a:b, {g: h}]\n", { a: { b: 1, c: ['x', 'y z', 'w'], d: {}, e: [] }, f: ['http://x', 'a:b', { g: 'h' }] }],
    [
      'literal block scalars, clipped and stripped, with blank lines and comment-like lines',
      'a: |\n  x\n\n    # y\n   \n\nb: |- # c\n  z\n\nc:\n- |\n  w\nd: |\ne: |',
      { a: 'x\n\n  # y\n \n', b: 'z', c: ['w\n'], d: '', e: '' },
    ],
    [
      'scalars folded over several lines, quoted and plain, with empty lines inside',
      "a: 'x\n  y''s\n\n   z '\nb: \"\\u00e9\n  \\\"q\\\" \"\nc: plain\n  text\n\n\n  more\nd: 1\n  2\ne: x # c\n",
      { a: "x y's\nz ", b: 'é "q" ', c: 'plain text\n\nmore', d: '1 2', e: 'x' },
    ],
  ])('reads %s', (_name, text, expected) => {
    expect(readSimpleBlockMap(text)).toEqual(expected);
    expect(yamlRead(text)).toEqual(expected);
  });

  // YAML 1.2 §8.1.1.2: clip and keep chomping keep the last line break, where there is one. As
  // go-yaml (so kpt) and PyYAML read them; `yaml` 2.9.1 adds a line break at the end of the text.
  it.each([
    ['a literal that ends the text', 'data:\n  license: |\n    LICENSE', { data: { license: 'LICENSE' } }, { data: { license: 'LICENSE\n' } }],
    ['the same with a final line break', 'data:\n  license: |\n    LICENSE\n', { data: { license: 'LICENSE\n' } }, undefined],
    ['lines and a blank line, kept chomping', 'a: |+\n  x\n\n  y', { a: 'x\n\ny' }, { a: 'x\n\ny\n' }],
    ['a folded scalar', 'a: >\n  x\n  y', { a: 'x y' }, { a: 'x y\n' }],
    ['a literal in a list', 'a:\n- |\n  x', { a: ['x'] }, { a: ['x\n'] }],
    ['only spaces on the last line, after a line break', 'a: |+\n  x\n  ', { a: 'x\n' }, undefined],
    ['a comment after it', 'a: |\n  x\n# c', { a: 'x\n' }, undefined],
  ])('reads a block scalar at the end of the text as YAML 1.2 does: %s', (_name, text, expected, yaml291) => {
    expect(yamlRead(text)).toEqual(expected);
    if (readSimpleBlockMap(text) !== undefined) expect(readSimpleBlockMap(text)).toEqual(expected);
    expect(parseDocument(text, PARSE_OPTIONS).toJS()).toEqual(yaml291 ?? expected);
  });

  it('reads every accepted corpus document without its final line break as yaml, held to the spec, reads it', () => {
    // Those where yaml 2.9.1 reads otherwise: the documents that end with a literal.
    let departures = 0;
    for (const text of corpusDocuments) {
      const cut = text.replace(/\n+$/, '');
      const data = readSimpleBlockMap(cut);
      if (data === undefined) continue;
      expect({ cut, data }).toEqual({ cut, data: yamlRead(cut) });
      if (!isDeepStrictEqual(data, parseDocument(cut, PARSE_OPTIONS).toJS())) departures += 1;
    }
    expect(departures).toBeGreaterThan(0);
  });

  // What every use of the reader leaves to the parser is in block-reader.test.ts.
  it.each([
    ['__proto__', '__proto__: 1\n'],
    ['a key an object would reorder', "'8080': x\n"],
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
