/**
 * Whether two YAML texts say the same thing whatever their layout: the same documents, holding the
 * same data with the same spellings and comments, however indented, whatever their sequence style,
 * blank lines, spaces before a comment, document markers, line endings or final line break. That
 * is what a YAML writer changes in a file it reads and writes back, as `kpt pkg get` does to every
 * YAML file it fetches (kyaml's writer).
 */
import { isMap, isPair, isSeq, type Document, type Node } from 'yaml';
import { renderDocument } from './document-text';
import { readDocument } from './tree-builder';
import { splitYamlStream } from './yaml-stream';

/** Blank lines are layout: every node loses its own. */
function withoutBlankLines(node: unknown): void {
  if (isPair(node)) {
    withoutBlankLines(node.key);
    withoutBlankLines(node.value);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  (node as Node).spaceBefore = false;
  if (isMap(node) || isSeq(node)) for (const item of node.items) withoutBlankLines(item);
}

/**
 * Each document of `text` in one layout; undefined when one does not read. `ignore` takes out of
 * each document's tree what the comparison leaves aside.
 */
function inOneLayout(text: string, ignore: (doc: Document) => void): string[] | undefined {
  const out: string[] = [];
  for (const { text: own, version } of splitYamlStream(text)) {
    const doc = readDocument(own.replace(/\r\n/g, '\n'), version);
    if (doc.errors.length > 0) return undefined;
    ignore(doc);
    withoutBlankLines(doc.contents);
    out.push(renderDocument(doc.contents as Node | null, doc, { version: version ?? '1.2' }));
  }
  return out;
}

/** Whether `a` and `b` hold the same documents, data and comments in any layout; `ignore` edits out what a writer adds. */
export function sameYamlContent(a: string, b: string, ignore: (doc: Document) => void = () => undefined): boolean {
  if (a === b) return true;
  const [x, y] = [inOneLayout(a, ignore), inOneLayout(b, ignore)];
  return x !== undefined && y !== undefined && x.length === y.length && x.every((doc, i) => doc === y[i]);
}
