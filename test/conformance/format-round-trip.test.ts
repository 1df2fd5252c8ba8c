/**
 * Real packages written back: `../shared/conformance/real-packages` (kpt's examples and package
 * catalogue) and test/corpus/edge-cases, every document of every Kptfile and YAML file.
 *
 * 1. Rendering a document again, unchanged, in the sequence style kpt detects for it gives its text
 *    back byte for byte for most documents; each exception is counted under the reason for it.
 * 2. What `update` writes for a resource marked changed but not changed is its text, always.
 * 3. Changing one value (several picked in each document) or adding one key changes exactly one
 *    line, whatever the rest of the document looks like.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isScalar, isSeq, type Document, type Node } from 'yaml';
import { parse as parsePlain } from 'yaml';
import { documentStyle, renderAsRead, renderText, rewriteDocument } from '../../src/yaml/document-text';
import { deriveSeqIndent } from '../../src/yaml/seq-indent';
import { decodeUtf8 } from '../../src/yaml/utf8';
import { parseYaml } from '../../src/yaml/yaml-format';
import { splitYamlStream, type StreamDocument } from '../../src/yaml/yaml-stream';
import { REPO_ROOT, SHARED } from '../helpers';

const ROOTS = [join(SHARED, 'conformance', 'real-packages'), join(REPO_ROOT, 'test', 'corpus', 'edge-cases')];

function packageFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) return packageFiles(full);
      return name === 'Kptfile' || /\.ya?ml$/.test(name) ? [full] : [];
    });
}

interface Sample {
  readonly where: string;
  readonly doc: StreamDocument;
  readonly text: string;
}

const samples: Sample[] = ROOTS.flatMap((root) =>
  packageFiles(root).flatMap((file) => splitYamlStream(decodeUtf8(readFileSync(file))).map((doc) => ({ where: `${file.slice(root.length)}@${doc.start}`, doc, text: doc.text.replace(/\r\n/g, '\n') }))),
);

const parse = (sample: Sample): Document.Parsed => parseYaml(sample.doc.text, { releaseTokens: true, ...(sample.doc.version ? { version: sample.doc.version } : {}) }).doc;
const parses = (sample: Sample) => parse(sample).errors.length === 0;

/** Why a rendering differs from the original, judged at the first line where they part. */
function reason(original: string, rendered: string): string {
  if (`${original}\n` === rendered) return 'the file does not end with a newline';
  if (original.replace(/\n+$/, '\n') === rendered) return 'blank lines at the end of the document';
  const a = original.split('\n');
  const b = rendered.split('\n');
  let i = 0;
  while (a[i] === b[i]) i += 1;
  const [left, right] = [a[i] ?? '', b[i] ?? ''];
  if (left.trimEnd() === right) return 'spaces at the end of a line';
  if (left.trimStart() === right.trimStart()) return left.trimStart().startsWith('- ') ? 'a sequence indented in the other style than the document\'s first' : 'maps indented by more than two spaces';
  if (left.replace(/([[{]) +| +([\]}])/g, '$1$2') === right) return 'spaces inside a flow collection';
  if (left.includes('#') || right.includes('#')) return 'a comment placed or spaced otherwise';
  if (/[>|][-+]?$/.test(a[i - 1] ?? '') || /^\s*\S.*\S$/.test(left)) return 'a folded or multi-line scalar written otherwise';
  return `unexplained: ${JSON.stringify(left)} became ${JSON.stringify(right)}`;
}

/** ResourceLists recorded from `kpt fn eval` over these packages, and the package each one read. */
const RECORDED = [
  ['cert-manager-from-kpt.yaml', join(SHARED, 'conformance', 'real-packages', 'package-examples', 'cert-manager-basic')],
  ['wordpress-from-kpt.yaml', join(SHARED, 'conformance', 'real-packages', 'package-examples', 'wordpress')],
  ['edge-cases-from-kpt.yaml', join(REPO_ROOT, 'test', 'corpus', 'edge-cases')],
] as const;

describe('real packages written back', () => {
  it('has real documents to read', () => {
    expect(samples.length).toBeGreaterThan(300);
  });

  it('each document\'s sequence indentation is the one kpt recorded for it (internal.config.kubernetes.io/seqindent)', () => {
    const compared: string[] = [];
    for (const [list, root] of RECORDED) {
      const { items } = parsePlain(readFileSync(join(REPO_ROOT, 'test', 'corpus', 'resource-lists', list), 'utf8')) as { items: { metadata: { annotations: Record<string, string> } }[] };
      for (const { metadata } of items) {
        const path = metadata.annotations['internal.config.kubernetes.io/path']!;
        const index = Number(metadata.annotations['internal.config.kubernetes.io/index']);
        const doc = splitYamlStream(readFileSync(join(root, path), 'utf8'))[index]!;
        compared.push(`${path}#${index} ${deriveSeqIndent(doc.text)}`);
        expect(`${path}#${index} ${deriveSeqIndent(doc.text)}`).toBe(`${path}#${index} ${metadata.annotations['internal.config.kubernetes.io/seqindent']}`);
      }
    }
    expect(compared.length).toBe(60);
    expect(compared.filter((c) => c.endsWith('wide')).length).toBe(43);
  });

  it('an unchanged document rendered again in its detected style is its text, but for counted reasons', () => {
    const reasons = new Map<string, string[]>();
    let same = 0;
    for (const sample of samples) {
      if (!parses(sample)) {
        reasons.set('not YAML (Helm templates)', [...(reasons.get('not YAML (Helm templates)') ?? []), sample.where]);
        continue;
      }
      const rendered = renderText(sample.text, documentStyle(sample.text, sample.doc.version ?? '1.2'))!;
      if (rendered === sample.text) same += 1;
      else {
        const why = reason(sample.text, rendered);
        reasons.set(why, [...(reasons.get(why) ?? []), sample.where]);
      }
    }
    const counts = Object.fromEntries([...reasons].map(([why, where]) => [why, where.length]));
    expect(Object.keys(counts).filter((why) => why.startsWith('unexplained'))).toEqual([]);
    expect({ same, ...counts }).toEqual({
      same: 237,
      'not YAML (Helm templates)': 10,
      'blank lines at the end of the document': 59,
      'the file does not end with a newline': 2,
      "a sequence indented in the other style than the document's first": 7,
      'maps indented by more than two spaces': 2,
      'spaces inside a flow collection': 1,
      'a comment placed or spaced otherwise': 3,
      'spaces at the end of a line': 1,
      // A folded scalar, and a `|` literal that ends its file without a line break: its value has none
      // (YAML 1.2 §8.1.1.2), so it is written `|-` with one.
      'a folded or multi-line scalar written otherwise': 2,
    });
  });

  it('a resource marked changed but unchanged is written back as its text, always', () => {
    for (const sample of samples.filter(parses)) {
      const doc = parse(sample);
      expect([sample.where, rewriteDocument(doc.contents as Node, doc, { text: sample.doc.text })]).toEqual([sample.where, sample.text]);
      expect([sample.where, rewriteDocument(doc.contents as Node, doc, { text: sample.doc.text, rendered: renderAsRead(sample.doc.text, doc) })]).toEqual([sample.where, sample.text]);
    }
  });

  /** Paths of string values on one line, in document order. */
  function stringPaths(node: unknown, path: (string | number)[] = []): (string | number)[][] {
    if (isMap(node)) return node.items.flatMap((pair) => (isScalar(pair.value) && typeof pair.value.value === 'string' && !/\n/.test(pair.value.value) ? [[...path, String((pair.key as { value: unknown }).value)]] : stringPaths(pair.value, [...path, String((pair.key as { value: unknown }).value)])));
    if (isSeq(node)) return node.items.flatMap((item, i) => (isScalar(item) && typeof item.value === 'string' ? [[...path, i]] : stringPaths(item, [...path, i])));
    return [];
  }

  /** Whether `after` is `before` with exactly one line replaced (`added` 0) or one line added (`added` 1). */
  function oneLine(before: string, after: string, added: 0 | 1): boolean {
    const a = before.split('\n');
    const b = after.split('\n');
    if (b.length !== a.length + added) return false;
    let head = 0;
    while (head < a.length && a[head] === b[head]) head += 1;
    return a.slice(head + 1 - added).join('\n') === b.slice(head + 1).join('\n');
  }

  it('one changed value is one changed line, and one added key one added line', () => {
    let changes = 0;
    const more: string[] = [];
    for (const sample of samples.filter(parses)) {
      const paths = stringPaths(parse(sample).contents);
      const picked = paths.length <= 4 ? paths : [0, 1, 2, 3].map((k) => paths[Math.floor((k * (paths.length - 1)) / 3)]!);
      for (const path of picked) {
        const doc = parse(sample);
        // As update does it: the rendering as read, made before the edit.
        const rendered = renderAsRead(sample.doc.text, doc);
        const scalar = doc.getIn(path, true) as { value: string };
        scalar.value = `${scalar.value}-changed`;
        changes += 1;
        if (!oneLine(sample.text, rewriteDocument(doc.contents as Node, doc, { text: sample.doc.text, rendered }), 0)) more.push(`${sample.where} ${path.join('.')}`);
      }
      const doc = parse(sample);
      const metadata = doc.get('metadata', true);
      if (!isMap(metadata)) continue;
      metadata.set('added-by-upstream', 'yes');
      changes += 1;
      if (!oneLine(sample.text, rewriteDocument(doc.contents as Node, doc, { text: sample.doc.text }), 1)) more.push(`${sample.where} metadata.added-by-upstream`);
    }
    expect(changes).toBe(1538);
    expect(more).toEqual([]);
  });
});
