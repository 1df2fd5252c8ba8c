/**
 * The two uses of the YAML text layer's reader, builder and renderer, for the tests that hold them to
 * `yaml`: whole documents of real packages, and items inside a ResourceList, read in place from their
 * range of the list (a document can be made the item of a list, at either sequence style).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { splitItems, type ItemChunk } from '../../src/krm/item-chunks';
import { BEYOND_LINE_SCAN } from '../../src/yaml/line-scan';
import { splitYamlStream } from '../../src/yaml/yaml-stream';
import { corpusFiles, REPO_ROOT, SHARED } from '../helpers';

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry) || entry === 'Kptfile' ? [path] : [];
  });
}

/** Every document of the real packages, with the YAML version a directive gives it. */
export const realPackageDocuments: readonly { text: string; version?: '1.1' | '1.2' }[] = yamlFiles(join(SHARED, 'conformance', 'real-packages')).flatMap((file) =>
  splitYamlStream(readFileSync(file, 'utf8')).map((doc) => ({ text: doc.text, ...(doc.version ? { version: doc.version } : {}) })),
);

/** An item of a ResourceList: the list's text and where the item lies in it. */
export interface ListItem {
  readonly list: string;
  readonly chunk: ItemChunk;
}

/** Every item of the recorded ResourceLists that a line scan can split into items. */
export const corpusItems: readonly ListItem[] = corpusFiles(join(REPO_ROOT, 'test/corpus/resource-lists'))
  .filter(({ text }) => !BEYOND_LINE_SCAN.test(text))
  .flatMap(({ text }) => splitItems(text)?.chunks.map((chunk) => ({ list: text, chunk })) ?? []);

/** A ResourceList whose items are these documents, at column `indent` (0: compact, 2: wide). */
export function listOf(documents: readonly string[], indent: number): string {
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

/** The document as the one item of a list at column `indent`, where the line scan can split it so. */
export function asItem(document: string, indent: number): ListItem | undefined {
  const list = listOf([document], indent);
  const chunks = splitItems(list)?.chunks;
  return chunks?.length === 1 ? { list, chunk: chunks[0]! } : undefined;
}
