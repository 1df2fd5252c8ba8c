/**
 * The tree built from simple block YAML (src/yaml/tree-builder.ts) must be the tree `yaml` composes
 * (comments, blank lines, scalar types and spellings, flow styles) for everything the builder
 * accepts, in both its uses: a whole document, and an item read in place from its range of a
 * ResourceList, which must be what `yaml` composes for the item's own text. And it must accept what
 * real packages are usually made of, or the fast paths are never taken.
 */
import fc from 'fast-check';
import { parseDocument, visit, type Document } from 'yaml';
import { readSimpleBlockMap, readSimpleBlockRange } from '../../src/yaml/data-reader';
import { buildItemTree, buildSimpleDocument, isSimpleDocument, readDocument, treeDocument } from '../../src/yaml/tree-builder';
import { parseYaml } from '../../src/yaml/yaml-format';
import { damagedDocument } from './damaged-documents';
import { generatedDocument } from './generated-documents';
import { splitItems } from '../../src/krm/item-chunks';
import { asItem, corpusItems, listOf, realPackageDocuments, type ListItem } from './yaml-uses';

const SEED = 20261124;

/** A node tree as plain data: each object's class and own properties, source ranges and tokens left out. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = { class: value.constructor.name };
  for (const [key, inner] of Object.entries(value)) {
    if (key !== 'range' && key !== 'srcToken' && inner !== undefined) out[key] = shape(inner);
  }
  return out;
}

/** What a document is to the update: its contents, its own comments and how it renders. */
function documentShape(doc: Document): unknown {
  return { contents: shape(doc.contents), commentBefore: doc.commentBefore, comment: doc.comment, errors: doc.errors.length, warnings: doc.warnings.length, text: doc.toString() };
}

const parsed = (text: string) => documentShape(parseYaml(text, { releaseTokens: true }).doc);

/** What an item is to a run: its tree and its own document's comments, whose place kpt decides (krm/resource-list.ts). */
function itemShape(contents: unknown, commentBefore: string | null | undefined, comment: string | null | undefined): unknown {
  return { contents: shape(contents), commentBefore: commentBefore || undefined, comment: comment || undefined };
}

/** The item's tree built in place, or undefined. */
function builtItem({ list, chunk }: ListItem): unknown {
  const built = buildItemTree(list, chunk.bodyStart, chunk.end, chunk.dedent);
  return built && itemShape(built.root, built.commentBefore, built.comment);
}

/** What `yaml` composes for the item's own text, as a run parses an item (tokens released). */
function parsedItem({ chunk }: ListItem): unknown {
  const { doc } = parseYaml(chunk.text, { releaseTokens: true });
  return doc.errors.length > 0 ? 'not valid YAML' : itemShape(doc.contents, doc.commentBefore, doc.comment);
}

/** Both uses of `text`: the whole document, and the one item of a list at each sequence style. Counts what was built. */
function checkUses(text: string): { document: boolean; items: number } {
  const doc = buildSimpleDocument(text);
  if (doc !== undefined) expect({ text, tree: documentShape(doc) }).toEqual({ text, tree: parsed(text) });
  let items = 0;
  for (const indent of [0, 2]) {
    const item = asItem(text, indent);
    const built = item && builtItem(item);
    if (!built) continue;
    items += 1;
    expect({ text, indent, tree: built }).toEqual({ text, indent, tree: parsedItem(item) });
  }
  return { document: doc !== undefined, items };
}

const corpusDocuments = realPackageDocuments.map((doc) => doc.text);

/** Whether `text` has a plain or quoted scalar written over several lines, as `yaml`'s tokens show. */
function hasFoldedScalar(text: string): boolean {
  let folded = false;
  visit(parseDocument(text, { keepSourceTokens: true }), {
    Scalar(_key, node) {
      const token = node.srcToken;
      if (token && token.type !== 'block-scalar' && 'source' in token && token.source.includes('\n')) folded = true;
    },
  });
  return folded;
}

describe('building the tree of simple block YAML', () => {
  it('gives the tree yaml gives for every real package document it accepts, whole or as an item, and accepts most of them', () => {
    let accepted = 0;
    let items = 0;
    for (const text of corpusDocuments) {
      const uses = checkUses(text);
      if (uses.document) accepted += 1;
      items += uses.items;
    }
    expect(corpusDocuments.length).toBeGreaterThan(300);
    expect(accepted / corpusDocuments.length).toBeGreaterThan(0.85);
    expect(items / (2 * corpusDocuments.length)).toBeGreaterThan(0.8);
  });

  it('gives the tree yaml gives for every recorded ResourceList item, read in place or as a document, and builds most of them', () => {
    let built = 0;
    for (const item of corpusItems) {
      const tree = builtItem(item);
      if (tree) {
        built += 1;
        expect({ text: item.chunk.text, tree }).toEqual({ text: item.chunk.text, tree: parsedItem(item) });
      }
      const doc = buildSimpleDocument(item.chunk.text);
      if (doc) expect(documentShape(doc)).toEqual(parsed(item.chunk.text));
    }
    expect(built / corpusItems.length).toBeGreaterThan(0.8);
  });

  it('gives the tree yaml gives for generated documents with comments and blank lines anywhere, whole or as an item', () => {
    let accepted = 0;
    let commented = 0;
    let folded = 0;
    let items = 0;
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 60 }), (tape) => {
        const text = generatedDocument(tape);
        const uses = checkUses(text);
        items += uses.items;
        if (!uses.document) return;
        accepted += 1;
        if (/^\s*#/m.test(text)) commented += 1;
        if (hasFoldedScalar(text)) folded += 1;
      }),
      { seed: SEED, numRuns: 4000 },
    );
    expect(accepted).toBeGreaterThan(1500);
    expect(commented).toBeGreaterThan(500);
    expect(folded).toBeGreaterThan(200);
    expect(items).toBeGreaterThan(2500);
  });

  // YAML 1.2 §8.1.1.2: a block scalar keeps its last line break only where there is one; `yaml`
  // 2.9.1 adds one at the end of the text, `parseYaml` takes it off (chompAtEnd), and both are held
  // to that here. The literal cases among the generated documents end such texts.
  it('gives the tree yaml gives, held to the spec, for generated documents that end without a line break, whole or as the last item of a list', () => {
    let literals = 0;
    let items = 0;
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 60 }), (tape) => {
        const text = generatedDocument(tape).replace(/\n+$/, '');
        const doc = buildSimpleDocument(text);
        if (doc !== undefined) expect({ text, tree: documentShape(doc) }).toEqual({ text, tree: parsed(text) });
        for (const indent of [0, 2]) {
          const list = listOf([text], indent).replace(/\n$/, '');
          const chunk = splitItems(list)?.chunks[0];
          const built = chunk && builtItem({ list, chunk });
          if (!built) continue;
          items += 1;
          expect({ text, indent, tree: built }).toEqual({ text, indent, tree: parsedItem({ list, chunk }) });
        }
        if (doc !== undefined && /\|\n[^\n]*$/.test(text)) literals += 1;
      }),
      { seed: SEED, numRuns: 3000 },
    );
    expect(items).toBeGreaterThan(2000);
    expect(literals).toBeGreaterThan(20);
  });

  it('accepts only what yaml reads without complaint, and as yaml reads it, when documents are damaged, whole or as an item', () => {
    const sample = corpusDocuments.filter((d) => buildSimpleDocument(d) !== undefined).slice(0, 200);
    let accepted = 0;
    let items = 0;
    fc.assert(
      fc.property(damagedDocument(sample), (damaged) => {
        const uses = checkUses(damaged);
        items += uses.items;
        if (uses.document) accepted += 1;
      }),
      { seed: SEED, numRuns: 4000 },
    );
    expect(accepted).toBeGreaterThan(1500);
    expect(items).toBeGreaterThan(2000);
  });

  it('gives the tree yaml gives for damaged recorded items, whenever it builds them, whole or as an item', () => {
    const texts = corpusItems.map(({ chunk }) => chunk.text).filter((text) => buildSimpleDocument(text) !== undefined);
    const damage = fc.record({
      text: fc.constantFrom(...texts),
      at: fc.nat(),
      edit: fc.constantFrom(' ', '\n', '- ', ': ', ' #', ' # c', '#', "'", '"', '{', '[', '}', ']', ',', '|', '&', '*', '!', ':', '-', 'x', '', '~', '0x1', '1e3', 'on', 'null', '  '),
      cut: fc.nat({ max: 3 }),
    });
    let documents = 0;
    let items = 0;
    fc.assert(
      fc.property(damage, ({ text, at, edit, cut }) => {
        const position = at % text.length;
        const uses = checkUses(text.slice(0, position) + edit + text.slice(position + cut));
        if (uses.document) documents += 1;
        items += uses.items;
      }),
      { seed: SEED, numRuns: 4000 },
    );
    expect(documents).toBeGreaterThan(1000);
    expect(items).toBeGreaterThan(2000);
  });

  it('builds what the data reader reads: the same data from the same lines, in place', () => {
    let built = 0;
    for (const { list, chunk } of corpusItems) {
      const tree = buildItemTree(list, chunk.bodyStart, chunk.end, chunk.dedent);
      const data = readSimpleBlockRange(list, chunk.bodyStart, chunk.end, chunk.dedent);
      if (tree) {
        built += 1;
        expect(tree.root.toJS(treeDocument())).toEqual(data);
        // Built after the reader took the lines, as a run builds it, the tree is the same.
        const afterRead = buildItemTree(list, chunk.bodyStart, chunk.end, chunk.dedent, data !== undefined)!;
        expect(shape(afterRead.root)).toEqual(shape(tree.root));
      }
    }
    expect(built).toBeGreaterThan(10);
  });

  const uses: [string, string][] = [
    ['scalars of every kind, quoted keys, flow collections', "a: 1\nb: 0x1F\nc: 1e3\n'd': \"x\"\ne: 'it''s'\nf: ~\ng: on\nh: [x, 'y', {i: 2}]\nj: {}\nk:\n- l\n- m: n\n  o: true\n"],
    ['trailing comments on scalars and flow collections', 'a: 1 # one\nb: "q" #\nc: [x] # list\nd:\n- e # item\n'],
    ['values with nothing after them, and a bare dash', 'a:\nb:\n  c:\nd:\n-\n- x\n'],
    ['a blank line, a comment line, trailing spaces', 'a: 1\n\n# c\nb: 2  \n'],
    ['a comment after a key, a literal', 'a: # c\n  b: 1\nc: |\n  x\n'],
    ['a comment before the first key, and one after a blank line', '# a\n\n# b\nk: v\n'],
    ['a comment before the document, apart from it', '# a\n\nk: v\n'],
    ['comments between keys, after a nested map, at its end and after the document', 'a:\n  b: 1 # on b\n  # end of a\n# before c\n\nc: 2\n# end\n'],
    ['a comment on a key line above a nested map, and on a dash line', 'k: # on k\n  # before a\n  a: 1\nl:\n- # on the dash\n  x: 1\n'],
    ['a comment at a list column before a key', 'a:\n  - x\n  # about b\nb: 1\n'],
    ['escapes in double quotes, no-break spaces as content', 'a: "\\u00e9\\n\\"q\\"\\x41\\U0001F600"\nb: x\u00a0\nc: \u00a0y # c\u00a0\nd: {e: "\\t"}\n'],
    ['hex escapes followed by hex digits, escaped backslashes and quotes before the closing one', 'a: "\\x41BC\\\\" # c\nb: "\\\\\\"\\\\"\nc: "\\u00e9e\\U0001F600F"\n'],
    ['a long double-quoted string with escapes far apart', `a: "${'x'.repeat(100_000)}\\n${'y'.repeat(100_000)}"\n`],
    ['spellings YAML 1.1 reads otherwise, and numbers as written', "a: on\nb: 0755\nc: 1.50\nd: 0x1F\ne: 'q'\nf: \"on\"\n"],
    [
      'descriptions folded over lines as controller-gen writes them, quoted and plain, with empty lines and a comment after',
      "spec:\n  description: 'APIVersion defines the versioned schema of this representation\n    of an object. More info: https://git.k8s.io/x#resources'\n  d: \"a \\u00e9\n\n    b\" # c\n  p: plain text\n    goes on\n\n  q: 1\n",
    ],
  ];

  it.each(uses)('builds %s as yaml composes it, whole and as an item', (_name, text) => {
    const doc = buildSimpleDocument(text);
    expect(doc).toBeDefined();
    expect(documentShape(doc!)).toEqual(parsed(text));
    for (const indent of [0, 2]) {
      const item = asItem(text, indent)!;
      expect(builtItem(item)).toBeDefined();
      expect(builtItem(item)).toEqual(parsedItem(item));
    }
  });

  // What every use of the reader leaves to the parser is in block-reader.test.ts; these are comments it cannot place.
  it.each([
    ['a comment deeper than the value before it', 'a: 1\n  # deeper\nb: 2\n'],
    ['a comment around a value left empty', 'k:\n# c\nj: 1\n'],
    ['a comment after a value left empty', 'k: # c\nj: 1\n'],
    ['blank lines after a literal', 'a: |\n  x\n\nb: 1\n'],
    ['a literal with a comment on its header', 'a: | # c\n  x\n'],
    ['an empty literal', 'a: |\nb: 1\n'],
    ['a literal after a dash', 'a:\n- |\n  x\n'],
    ['a comment around a bare dash', 'a:\n-\n  # c\n  b: 1\n'],
  ])('leaves %s to the parser, whole and as an item', (_name, text) => {
    expect(readSimpleBlockMap(text)).toBeDefined();
    expect(buildSimpleDocument(text)).toBeUndefined();
    expect(buildItemTree(text, 0, text.length, 0)).toBeUndefined();
  });

  it('reads with the builder where it can, and with the parser elsewhere, marking only built trees as simple', () => {
    const simple = readDocument('a: 1\n');
    const parsedDoc = readDocument('a: &x 1\nb: *x\n');
    const oneOne = readDocument('a: 1\n', '1.1');
    expect(isSimpleDocument(simple)).toBe(true);
    expect(isSimpleDocument(parsedDoc)).toBe(false);
    expect(isSimpleDocument(oneOne)).toBe(false);
    expect(documentShape(oneOne)).toEqual(documentShape(parseYaml('a: 1\n', { releaseTokens: true, version: '1.1' }).doc));
    expect(documentShape(parsedDoc)).toEqual(parsed('a: &x 1\nb: *x\n'));
  });
});
