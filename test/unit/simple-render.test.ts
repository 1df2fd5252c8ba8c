/**
 * The fast renderer must write exactly what `yaml` writes, in both sequence styles, for every tree it
 * accepts: trees read from real and generated documents, and trees edited the way a merge edits
 * them (values of every type set, spellings dropped, comments and blank lines moved, flow styles
 * switched, nodes built from data). And it must accept what real packages are usually made of.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { isMap, isPair, isScalar, isSeq, type Document, type Node, type Scalar } from 'yaml';
import { readDocument } from '../../src/yaml/simple-document-tree';
import { renderSimpleDocument } from '../../src/yaml/simple-render';
import { newDocument, renderOptions, type RenderStyle } from '../../src/yaml/yaml-format';
import { splitYamlStream } from '../../src/yaml/yaml-stream';
import { SHARED } from '../helpers';
import { generatedDocument } from './generated-documents';

const SEED = 20261124;
const STYLES: readonly RenderStyle[] = [{ seqIndent: 'compact' }, { seqIndent: 'wide' }];

/** What `yaml` writes for the document in `style`, as document-text.ts asks it to. */
function yamlRender(doc: Document, style: RenderStyle): string {
  const out = newDocument(style.version);
  out.contents = doc.contents;
  out.commentBefore = doc.commentBefore;
  out.comment = doc.comment;
  return out.toString(renderOptions(style));
}

/** Renders in both styles; how many the fast renderer took. Each it took must be yaml's text. */
function checkRenders(doc: Document): number {
  let taken = 0;
  for (const style of STYLES) {
    const fast = renderSimpleDocument(doc.contents as Node | null, doc, style);
    if (fast === undefined) continue;
    taken += 1;
    expect(fast).toBe(yamlRender(doc, style));
  }
  return taken;
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry) || entry === 'Kptfile' ? [path] : [];
  });
}

const corpusDocuments = yamlFiles(join(SHARED, 'conformance', 'real-packages'))
  .flatMap((file) => splitYamlStream(readFileSync(file, 'utf8')))
  .map((doc) => readDocument(doc.text, doc.version))
  .filter((doc) => doc.errors.length === 0);

/** Every node and pair of a tree, parents first. */
function nodesOf(node: unknown, out: object[] = []): object[] {
  if (node === null || typeof node !== 'object') return out;
  out.push(node);
  if (isMap(node) || isSeq(node)) for (const item of node.items) nodesOf(item, out);
  else if (isPair(node)) {
    nodesOf(node.key, out);
    nodesOf(node.value, out);
  }
  return out;
}

const VALUES: readonly unknown[] = ['x', 'two words', '', ' lead', 'trail ', 'a: b', 'a #b', '#x', '- x', '-', 'on', 'y', '0755', '12:30', 'null', '1e3', "it's", 'q"x', 'x\ny', 'tab\there', '{a}', '[b]', 'a,b', '---x', 'é', 7, -0, 1.5, 2 ** 60, true, false, null];
const TYPES: readonly (Scalar.Type | undefined)[] = [undefined, 'PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE', 'BLOCK_LITERAL', 'BLOCK_FOLDED'];
const COMMENTS: readonly string[] = [' c', '', ' ', 'x', ' two\n lines', '\n', ' c\n', ' a\n\n b'];

/** One edit of the kind a merge makes, chosen by `choice` at the node `at` picks. */
function edit(doc: Document, at: number, choice: number): void {
  const nodes = nodesOf(doc.contents);
  const target = nodes[at % nodes.length] as Record<string, unknown>;
  const pick = <T>(options: readonly T[]) => options[Math.floor(choice / 10) % options.length]!;
  switch (choice % 10) {
    case 0:
      if (isScalar(target)) target.value = pick(VALUES);
      break;
    case 1:
      if (isScalar(target)) target.type = pick(TYPES);
      break;
    case 2:
      delete target.spelling;
      delete target.source;
      break;
    case 3:
      if (!isPair(target)) target.comment = pick(COMMENTS);
      break;
    case 4:
      if (!isPair(target)) target.commentBefore = pick(COMMENTS);
      break;
    case 5:
      if (!isPair(target)) target.spaceBefore = !target.spaceBefore;
      break;
    case 6:
      if (isMap(target) || isSeq(target)) target.flow = !target.flow;
      break;
    case 7:
      if (isPair(target)) target.value = doc.createNode(pick([{ a: 1, b: ['x', 'on'] }, ['y', { c: null }], {}, [], 'new', 12, true]));
      else if (isMap(target) || isSeq(target)) target.items = target.items.slice(1);
      break;
    case 8:
      if (isPair(target) && isScalar(target.key)) target.key.comment = pick(COMMENTS);
      break;
    case 9:
      if (isScalar(target)) Object.assign(target, pick([{ format: 'HEX' }, { format: 'EXP' }, { minFractionDigits: 2 }, { format: undefined, minFractionDigits: undefined }]));
      break;
  }
}

describe('rendering simple trees', () => {
  it("writes yaml's text for every real package document it takes, and takes most of them", () => {
    let taken = 0;
    for (const doc of corpusDocuments) taken += checkRenders(doc);
    expect(corpusDocuments.length).toBeGreaterThan(300);
    expect(taken / (2 * corpusDocuments.length)).toBeGreaterThan(0.85);
  });

  it("writes yaml's text for generated documents", () => {
    let taken = 0;
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 60 }), (tape) => {
        const doc = readDocument(generatedDocument(tape));
        if (doc.errors.length === 0) taken += checkRenders(doc);
      }),
      { seed: SEED, numRuns: 2000 },
    );
    expect(taken).toBeGreaterThan(2000);
  });

  it("writes yaml's text for trees edited as a merge edits them, or leaves them to yaml", () => {
    const sources = [...corpusDocuments.slice(0, 60).map((doc) => doc.toString()), ...Array.from({ length: 60 }, (_, i) => generatedDocument([i * 7 + 1, i * 13 + 5, i, 3 * i + 2]))];
    let taken = 0;
    fc.assert(
      fc.property(fc.constantFrom(...sources), fc.array(fc.tuple(fc.nat(), fc.nat({ max: 400 })), { minLength: 1, maxLength: 6 }), (text, edits) => {
        const doc = readDocument(text);
        if (doc.errors.length > 0) return;
        for (const [at, choice] of edits) edit(doc, at, choice);
        let expected: string;
        try {
          expected = yamlRender(doc, STYLES[0]!);
        } catch {
          return;
        }
        const fast = renderSimpleDocument(doc.contents as Node | null, doc, STYLES[0]!);
        if (fast === undefined) return;
        taken += 1;
        expect({ text, fast }).toEqual({ text, fast: expected });
      }),
      { seed: SEED, numRuns: 4000 },
    );
    expect(taken).toBeGreaterThan(1500);
  });
});
