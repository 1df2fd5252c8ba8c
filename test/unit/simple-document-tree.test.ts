/**
 * The tree built from simple block YAML must be the tree `yaml` composes (comments, blank lines,
 * scalar types and spellings, flow styles) for everything the builder accepts, and the builder must
 * accept what real packages are usually made of, or the update never takes its fast path.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Document } from 'yaml';
import { buildSimpleDocument, isSimpleDocument, readDocument } from '../../src/yaml/simple-document-tree';
import { parseYaml } from '../../src/yaml/yaml-format';
import { splitYamlStream } from '../../src/yaml/yaml-stream';
import { SHARED } from '../helpers';
import { damagedDocument } from './damaged-documents';
import { generatedDocument } from './generated-documents';

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

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry) || entry === 'Kptfile' ? [path] : [];
  });
}

const corpusDocuments = yamlFiles(join(SHARED, 'conformance', 'real-packages')).flatMap((file) => splitYamlStream(readFileSync(file, 'utf8')).map((doc) => doc.text));

describe('building the tree of simple block YAML', () => {
  it('gives the tree yaml gives for every real package document it accepts, and accepts most of them', () => {
    let accepted = 0;
    for (const text of corpusDocuments) {
      const doc = buildSimpleDocument(text);
      if (doc === undefined) continue;
      accepted += 1;
      expect({ text, tree: documentShape(doc) }).toEqual({ text, tree: parsed(text) });
    }
    expect(corpusDocuments.length).toBeGreaterThan(300);
    expect(accepted / corpusDocuments.length).toBeGreaterThan(0.85);
  });

  it('gives the tree yaml gives for generated documents with comments and blank lines anywhere', () => {
    let accepted = 0;
    let commented = 0;
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 60 }), (tape) => {
        const text = generatedDocument(tape);
        const doc = buildSimpleDocument(text);
        if (doc === undefined) return;
        accepted += 1;
        if (/^\s*#/m.test(text)) commented += 1;
        expect({ text, tree: documentShape(doc) }).toEqual({ text, tree: parsed(text) });
      }),
      { seed: SEED, numRuns: 4000 },
    );
    expect(accepted).toBeGreaterThan(1500);
    expect(commented).toBeGreaterThan(500);
  });

  it('accepts only what yaml reads without complaint, and as yaml reads it, when documents are damaged', () => {
    const sample = corpusDocuments.filter((d) => buildSimpleDocument(d) !== undefined).slice(0, 200);
    let accepted = 0;
    fc.assert(
      fc.property(damagedDocument(sample), (damaged) => {
        const doc = buildSimpleDocument(damaged);
        if (doc === undefined) return;
        accepted += 1;
        expect({ damaged, tree: documentShape(doc) }).toEqual({ damaged, tree: parsed(damaged) });
      }),
      { seed: SEED, numRuns: 4000 },
    );
    expect(accepted).toBeGreaterThan(1500);
  });

  it.each([
    ['a comment before the first key, and one after a blank line', '# a\n\n# b\nk: v\n'],
    ['a comment before the document, apart from it', '# a\n\nk: v\n'],
    ['comments between keys, after a nested map, at its end and after the document', 'a:\n  b: 1 # on b\n  # end of a\n# before c\n\nc: 2\n# end\n'],
    ['a comment on a key line above a nested map, and on a dash line', 'k: # on k\n  # before a\n  a: 1\nl:\n- # on the dash\n  x: 1\n'],
    ['a comment at a list column before a key', 'a:\n  - x\n  # about b\nb: 1\n'],
    ['escapes in double quotes, no-break spaces as content', 'a: "\\u00e9\\n\\"q\\"\\x41\\U0001F600"\nb: x\u00a0\nc: \u00a0y # c\u00a0\nd: {e: "\\t"}\n'],
    ['hex escapes followed by hex digits, escaped backslashes and quotes before the closing one', 'a: "\\x41BC\\\\" # c\nb: "\\\\\\"\\\\"\nc: "\\u00e9e\\U0001F600F"\n'],
    ['a long double-quoted string with escapes far apart', `a: "${'x'.repeat(100_000)}\\n${'y'.repeat(100_000)}"\n`],
    ['spellings YAML 1.1 reads otherwise, and numbers as written', "a: on\nb: 0755\nc: 1.50\nd: 0x1F\ne: 'q'\nf: \"on\"\n"],
  ])('builds %s as yaml composes it', (_name, text) => {
    const doc = buildSimpleDocument(text);
    expect(doc).toBeDefined();
    expect(documentShape(doc!)).toEqual(parsed(text));
  });

  it.each([
    ['a comment deeper than the value before it', 'a: 1\n  # deeper\nb: 2\n'],
    ['a comment around a value left empty', 'k:\n# c\nj: 1\n'],
    ['a comment after a value left empty', 'k: # c\nj: 1\n'],
    ['blank lines after a literal', 'a: |\n  x\n\nb: 1\n'],
    ['a literal with a comment on its header', 'a: | # c\n  x\n'],
    ['a folded scalar', 'a: >\n  x\n'],
    ['an anchor and an alias', 'a: &x 1\nb: *x\n'],
    ['a tag', 'a: !!str 1\n'],
    ['an escape YAML does not have', 'a: "\\q"\n'],
    ['a hex escape short of its digits', 'a: "\\x4"\n'],
    ['a line of no-break spaces', 'a: 1\n\u00a0\nb: 2\n'],
    ['a duplicate key', 'a: 1\na: 2\n'],
    ['a key the schema reads as a number', '8080: x\n'],
    ['a top-level list', '- a\n'],
    ['a list in a list', 'a:\n- - b\n'],
    ['a bad indentation', 'a:\n    b: 1\n  c: 2\n'],
    ['a tab', 'a:\n\tb: 1\n'],
    ['carriage returns', 'a: 1\r\nb: 2\r\n'],
    ['a document marker', '---\na: 1\n'],
    ['only comments', '# nothing\n'],
  ])('leaves %s to the parser', (_name, text) => {
    expect(buildSimpleDocument(text)).toBeUndefined();
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
