/**
 * The renderer (src/yaml/renderer.ts) must write exactly what `yaml` writes, in both its uses: a
 * document in either sequence style (document-text.ts's renderDocument), and an item of a
 * ResourceList (renderNode of a one-item sequence). It is held to `yaml` on every tree it takes:
 * trees read from real documents and recorded items (built by the tree builder or parsed), from
 * generated documents, trees edited the way a merge and the function edit them (values of every type
 * set, spellings dropped, comments and blank lines moved, flow styles switched, keys set as strings,
 * nodes built from data), and new items made from data. And it must take what real packages are
 * usually made of.
 */
import fc from 'fast-check';
import { isMap, isPair, isScalar, isSeq, YAMLSeq, type Document, type Node, type Scalar, type YAMLMap } from 'yaml';
import { renderItem, renderSimpleDocument } from '../../src/yaml/renderer';
import { buildItemTree, readDocument, treeDocument } from '../../src/yaml/tree-builder';
import { newDocument, parseYaml, renderNode, renderOptions, type RenderStyle } from '../../src/yaml/yaml-format';
import { generatedDocument } from './generated-documents';
import { corpusItems, realPackageDocuments } from './yaml-uses';

const SEED = 20261124;
const STYLES: readonly RenderStyle[] = [{ seqIndent: 'compact' }, { seqIndent: 'wide' }];

/** What `yaml` writes for the document in `style`, as document-text.ts asks it to. */
function yamlRender(doc: { contents: unknown; commentBefore?: string | null; comment?: string | null }, style: RenderStyle): string {
  const out = newDocument(style.version);
  out.contents = doc.contents as Node;
  out.commentBefore = doc.commentBefore ?? null;
  out.comment = doc.comment ?? null;
  return out.toString(renderOptions(style));
}

/** What `yaml` writes for an item, as krm/resource-list.ts asks it to. */
function yamlItem(node: Node): string {
  const seq = new YAMLSeq();
  seq.items.push(node);
  return renderNode(seq, { version: '1.2' });
}

/** Renders the document in both styles; how many the renderer took. Each it took must be yaml's text. */
function checkDocument(doc: { contents: unknown; commentBefore?: string | null; comment?: string | null }): number {
  let taken = 0;
  for (const style of STYLES) {
    const fast = renderSimpleDocument(doc.contents as Node | null, doc, style);
    if (fast === undefined) continue;
    taken += 1;
    expect(fast).toBe(yamlRender(doc, style));
  }
  return taken;
}

/** Renders the node as an item; whether the renderer took it. What it took must be yaml's text. */
function checkItem(node: Node): boolean {
  const fast = renderItem(node);
  if (fast === undefined) return false;
  expect(fast).toBe(yamlItem(node));
  return true;
}

/** Both uses of a tree: the contents of a document (both styles) and an item. How many renderings were taken, of three. */
function checkUses(node: Node): number {
  return checkDocument({ contents: node }) + Number(checkItem(node));
}

const corpusDocuments = realPackageDocuments.map((doc) => readDocument(doc.text, doc.version)).filter((doc) => doc.errors.length === 0);

/** The recorded items' trees as a run has them: built in place by the tree builder, or parsed. */
function itemTrees(): YAMLMap[] {
  return corpusItems.flatMap(({ list, chunk }) => {
    const built = buildItemTree(list, chunk.bodyStart, chunk.end, chunk.dedent);
    const { doc } = parseYaml(chunk.text, { releaseTokens: true });
    return [...(built ? [built.root] : []), ...(doc.errors.length === 0 && isMap(doc.contents) ? [doc.contents] : [])];
  });
}

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
function mergeEdit(doc: Document, at: number, choice: number): void {
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

const safeWord = fc.stringMatching(/^[a-z][a-z0-9./-]{0,8}$/);
const tricky = fc.constantFrom('y', 'on', 'true', '7', '0o7', '0x1F', '1e3', 'a: b', 'a #b', ' x', 'x ', '', "it's", 'q"x', 'say "hi": x', "'q' \"r\"", 'back\\slash', '{}', '[a]', 'a,b', '- x', '-', '?', 'x:', '~', 'null', '%x', '@x', '---x', 'é', 'multi\nline', '12:30');
const scalar = fc.oneof(safeWord, tricky, fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom(1.5, -0, 2 ** 60));
const { value: data } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('map'), tie('seq')),
  map: fc.dictionary(fc.oneof(safeWord, tricky), tie('value'), { maxKeys: 4 }),
  seq: fc.array(tie('value'), { maxLength: 3 }),
}));

/** An edit as the function makes them: a value set (a new node, its key a string as setIn sets it), a key removed, a comment set, a style switched. */
const functionEdit = fc.record({ at: fc.nat(), kind: fc.constantFrom('set', 'delete', 'comment', 'flow'), value: data, comment: fc.constantFrom(' note', ' ', 'x', '') });

function applyFunctionEdit(root: YAMLMap, { at, kind, value, comment }: { at: number; kind: string; value: unknown; comment: string }): void {
  const maps: YAMLMap[] = [];
  const walk = (node: unknown) => {
    if (isMap(node)) {
      maps.push(node);
      node.items.forEach((pair) => walk(pair.value));
    } else if (isSeq(node)) node.items.forEach(walk);
  };
  walk(root);
  const map = maps[at % maps.length]!;
  const pair = map.items[at % Math.max(1, map.items.length)];
  if (kind === 'set') map.set(pair && isScalar(pair.key) && at % 2 === 0 ? pair.key.value : `k${at}`, treeDocument().createNode(value));
  else if (kind === 'delete' && pair && map !== root) map.delete(pair.key);
  else if (kind === 'comment' && pair && isScalar(pair.value)) pair.value.comment = comment;
  else if (kind === 'flow' && pair && (isMap(pair.value) || isSeq(pair.value))) pair.value.flow = !pair.value.flow;
}

describe('rendering simple trees', () => {
  it("writes yaml's text for every real package document it takes, as a document and as an item, and takes most of them", () => {
    let documents = 0;
    let items = 0;
    for (const doc of corpusDocuments) {
      documents += checkDocument(doc);
      if (checkItem(doc.contents as Node)) items += 1;
    }
    expect(corpusDocuments.length).toBeGreaterThan(300);
    expect(documents / (2 * corpusDocuments.length)).toBeGreaterThan(0.85);
    expect(items / corpusDocuments.length).toBeGreaterThan(0.85);
  });

  it("writes yaml's text for every recorded item, built or parsed, as an item and as a document, and takes most of them", () => {
    const trees = itemTrees();
    let taken = 0;
    for (const tree of trees) taken += checkUses(tree);
    expect(taken / (3 * trees.length)).toBeGreaterThan(0.8);
  });

  it("writes yaml's text for generated documents, in both uses", () => {
    let taken = 0;
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 60 }), (tape) => {
        const doc = readDocument(generatedDocument(tape));
        if (doc.errors.length > 0) return;
        taken += checkDocument(doc);
        if (checkItem(doc.contents as Node)) taken += 1;
      }),
      { seed: SEED, numRuns: 2000 },
    );
    expect(taken).toBeGreaterThan(3000);
  });

  it("writes yaml's text for trees edited as a merge edits them, in both uses, or leaves them to yaml", () => {
    const sources = [...corpusDocuments.slice(0, 60).map((doc) => doc.toString()), ...Array.from({ length: 60 }, (_, i) => generatedDocument([i * 7 + 1, i * 13 + 5, i, 3 * i + 2]))];
    let documents = 0;
    let items = 0;
    fc.assert(
      fc.property(fc.constantFrom(...sources), fc.array(fc.tuple(fc.nat(), fc.nat({ max: 400 })), { minLength: 1, maxLength: 6 }), fc.boolean(), (text, edits, asItem) => {
        const doc = readDocument(text);
        if (doc.errors.length > 0) return;
        for (const [at, choice] of edits) mergeEdit(doc, at, choice);
        let expected: string;
        try {
          expected = asItem ? yamlItem(doc.contents as Node) : yamlRender(doc, STYLES[0]!);
        } catch {
          return;
        }
        const fast = asItem ? renderItem(doc.contents as Node) : renderSimpleDocument(doc.contents as Node | null, doc, STYLES[0]!);
        if (fast === undefined) return;
        if (asItem) items += 1;
        else documents += 1;
        expect({ text, fast }).toEqual({ text, fast: expected });
      }),
      { seed: SEED, numRuns: 6000 },
    );
    expect(documents).toBeGreaterThan(1500);
    expect(items).toBeGreaterThan(1500);
  });

  it("writes yaml's text for recorded items edited as the function edits them, in both uses", () => {
    const texts = corpusItems.map((item) => item);
    let taken = 0;
    fc.assert(
      fc.property(fc.constantFrom(...texts), fc.boolean(), fc.array(functionEdit, { minLength: 1, maxLength: 4 }), ({ list, chunk }, fast, edits) => {
        const built = fast ? buildItemTree(list, chunk.bodyStart, chunk.end, chunk.dedent) : undefined;
        const { doc } = parseYaml(chunk.text, { releaseTokens: true });
        const node = built?.root ?? (doc.errors.length === 0 && isMap(doc.contents) ? doc.contents : undefined);
        if (!node) return;
        for (const change of edits) applyFunctionEdit(node, change);
        taken += checkUses(node);
      }),
      { seed: SEED, numRuns: 3000 },
    );
    expect(taken).toBeGreaterThan(4000);
  });

  it("writes yaml's text for new items made from data, in both uses", () => {
    let taken = 0;
    fc.assert(
      fc.property(fc.dictionary(fc.oneof(safeWord, tricky), data, { minKeys: 1, maxKeys: 5 }), (value) => {
        taken += checkUses(newDocument().createNode(value) as Node);
      }),
      { seed: SEED, numRuns: 3000 },
    );
    expect(taken).toBeGreaterThan(3000);
  });

  const parsedTree = (text: string) => parseYaml(text, { releaseTokens: true }).doc.contents as Node;
  it.each([
    ['an alias', parsedTree('a: &x 1\nb: *x\n')],
    ['a tag', parsedTree('a: !!str 1\n')],
    ['a float', parsedTree('a: 1.5\n')],
    ['a folded scalar', parsedTree('a: >\n  x\n')],
    ['a new string over two lines', newDocument().createNode({ a: 'x\ny' }) as Node],
    ['a new string with a control character', newDocument().createNode({ a: 'x\by' }) as Node],
  ])('leaves %s to yaml, in both uses', (_name, node) => {
    expect(renderItem(node)).toBeUndefined();
    for (const style of STYLES) expect(renderSimpleDocument(node, {}, style)).toBeUndefined();
  });
});
