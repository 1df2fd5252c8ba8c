import fc from 'fast-check';
import { joinYamlStream, splitYamlStream, walkYamlStream, type DocumentFate, type StreamDocument } from '../../src/yaml/yaml-stream';

const FILE = ['# Copyright header', '---', '# first', 'a: 1', '# after a', '---   # second', 'b: 2', '---', '# only a comment', '---', '%YAML 1.1', '---', 'c: 0755', '...', ''].join('\n');

function fates(docs: readonly StreamDocument[], byIndex: Record<number, DocumentFate>): Map<StreamDocument, DocumentFate> {
  return new Map(Object.entries(byIndex).map(([i, fate]) => [docs[Number(i)]!, fate]));
}

describe('a YAML file as documents with the text around them', () => {
  const docs = splitYamlStream(FILE);

  it('finds the documents, their own text and their YAML version', () => {
    expect(docs.map((d) => d.text)).toEqual(['# first\na: 1\n# after a\n', 'b: 2\n', 'c: 0755\n']);
    expect(docs.map((d) => d.version)).toEqual([undefined, undefined, '1.1']);
  });

  it('with nothing changed, joins to the very text', () => {
    expect(joinYamlStream(FILE, docs, new Map(), [])).toBe(FILE);
  });

  it('a rewritten document replaces only its own text', () => {
    expect(joinYamlStream(FILE, docs, fates(docs, { 1: 'b: 3\n' }), [])).toBe(FILE.replace('b: 2', 'b: 3'));
  });

  it('a removed document takes the markers that open it, and no comment', () => {
    expect(joinYamlStream(FILE, docs, fates(docs, { 1: null }), [])).toBe(FILE.replace('---   # second\nb: 2\n', ''));
    expect(joinYamlStream(FILE, docs, fates(docs, { 2: null }), [])).toBe(FILE.replace('---\n%YAML 1.1\n---\nc: 0755\n', ''));
  });

  it('new documents follow the last one, each after a `---`', () => {
    const text = 'a: 1\n---\nb: 2\n';
    const split = splitYamlStream(text);
    expect(joinYamlStream(text, split, new Map(), ['c: 3\n'])).toBe('a: 1\n---\nb: 2\n---\nc: 3\n');
    expect(joinYamlStream('a: 1', splitYamlStream('a: 1'), new Map(), ['c: 3\n'])).toBe('a: 1\n---\nc: 3\n');
  });

  it('new documents go before the document given: a first document without a marker gets one, directives the end marker before them', () => {
    const text = '# licence\na: 1\n---\nb: 2\n';
    const split = splitYamlStream(text);
    // The licence is the first document's own (its first key's comment), and goes with it.
    expect(joinYamlStream(text, split, new Map(), [], new Map([[0, ['top: 0\n']]]))).toBe('top: 0\n---\n# licence\na: 1\n---\nb: 2\n');
    expect(joinYamlStream(text, split, new Map(), [], new Map([[1, ['mid: 0\n', 'mid: 1\n']]]))).toBe('# licence\na: 1\n---\nmid: 0\n---\nmid: 1\n---\nb: 2\n');
    expect(joinYamlStream(text, split, fates(split, { 0: null }), [], new Map([[0, ['top: 0\n']]]))).toBe('top: 0\n---\nb: 2\n');
    const directive = '%YAML 1.1\n---\nc: 0755\n';
    expect(joinYamlStream(directive, splitYamlStream(directive), new Map(), [], new Map([[0, ['top: 0\n']]]))).toBe('top: 0\n...\n%YAML 1.1\n---\nc: 0755\n');
  });

  it('new documents follow the comments of a file that holds none', () => {
    expect(joinYamlStream('# notes\n', [], new Map(), ['a: 1\n'])).toBe('# notes\na: 1\n');
  });

  it('nothing left is no file', () => {
    const text = 'a: 1\n';
    const split = splitYamlStream(text);
    expect(joinYamlStream(text, split, fates(split, { 0: null }), [])).toBeUndefined();
  });

  it('CRLF files: markers are found, and new and rewritten text takes CRLF', () => {
    const text = 'a: 1\r\n---\r\nb: 2\r\n';
    const split = splitYamlStream(text);
    expect(split.map((d) => d.text)).toEqual(['a: 1\r\n', 'b: 2\r\n']);
    expect(joinYamlStream(text, split, fates(split, { 0: 'a: 5\nz: 0\n' }), ['c: 3\n'])).toBe('a: 5\r\nz: 0\r\n---\r\nb: 2\r\n---\r\nc: 3\r\n');
  });

  it('a `---` inside a block scalar is indented, so it is no marker', () => {
    expect(splitYamlStream('s: |\n  ---\n  text\n').map((d) => d.text)).toEqual(['s: |\n  ---\n  text\n']);
  });
});

describe('splitting a file without markers', () => {
  const line = fc.constantFrom('a: 1', '  b: 2', '# c', '  # d', '', '   ', '---', '--- # e', '...', '%YAML 1.1', '-- x', 'x ---', '\t', '\u00a0', 'f: |', '  ---', 'g\r', '\u2028');
  it('gives what the line walk gives, whatever the lines', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), fc.boolean(), (lines, finalNewline) => {
        const text = lines.join('\n') + (finalNewline ? '\n' : '');
        expect(splitYamlStream(text)).toEqual(walkYamlStream(text));
      }),
      { seed: 20261124, numRuns: 3000 },
    );
  });
});
