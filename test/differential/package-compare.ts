/**
 * Compares two package trees file by file, as the package differential needs: resource files as
 * data (kpt's bookkeeping removed: its merge comments and upstream-identifier annotations), Kptfiles
 * as data (kpt rewrites them in its own field order), every other file byte for byte, and the
 * executable bit.
 */
import { isDeepStrictEqual } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';
import { normalise } from '../conformance/merge3-cases';
import { bytesOf, type Content, type Tree } from './package-fixtures';

export interface FileDifference {
  readonly path: string;
  readonly kind: 'only-kpt' | 'only-ours' | 'content' | 'mode' | 'empty-dir-only-kpt' | 'empty-dir-only-ours';
}

export const isKptfile = (path: string) => path === 'Kptfile' || path.endsWith('/Kptfile');
export const isYaml = (path: string) => /\.ya?ml$/.test(path);
export const isExecutable = (t: Tree, path: string) => (parseInt(t.modes[path] ?? '644', 8) & 0o111) !== 0;

/** A file's content as the comparison sees it. */
export function comparable(path: string, content: Content): unknown {
  const text = () => bytesOf(content).toString('utf8');
  if (isKptfile(path)) return parse(text());
  if (isYaml(path)) return normalise(parseAllDocuments(text()).map((d) => d.toJS() as Record<string, unknown>).filter((d) => d !== null));
  return bytesOf(content);
}

export function sameContent(path: string, a: Content | undefined, b: Content | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const [x, y] = [comparable(path, a), comparable(path, b)];
  return Buffer.isBuffer(x) && Buffer.isBuffer(y) ? x.equals(y) : isDeepStrictEqual(x, y);
}

export function compareTrees(kpt: Tree, ours: Tree): FileDifference[] {
  const differences: FileDifference[] = [];
  const paths = [...new Set([...Object.keys(kpt.files), ...Object.keys(ours.files)])].sort();
  for (const path of paths) {
    const [k, o] = [kpt.files[path], ours.files[path]];
    if (k === undefined) differences.push({ path, kind: 'only-ours' });
    else if (o === undefined) differences.push({ path, kind: 'only-kpt' });
    else if (!sameContent(path, k, o)) differences.push({ path, kind: 'content' });
    else if (isExecutable(kpt, path) !== isExecutable(ours, path)) differences.push({ path, kind: 'mode' });
  }
  const [kptDirs, ourDirs] = [new Set(kpt.emptyDirs ?? []), new Set(ours.emptyDirs ?? [])];
  for (const dir of [...kptDirs].filter((d) => !ourDirs.has(d))) differences.push({ path: dir, kind: 'empty-dir-only-kpt' });
  for (const dir of [...ourDirs].filter((d) => !kptDirs.has(d))) differences.push({ path: dir, kind: 'empty-dir-only-ours' });
  return differences;
}

/**
 * A YAML file's text without what kpt writes on every resource and we write only where it was (a
 * `# kpt-merge` comment on `metadata`, an identifier annotation, an `annotations:` left empty): its
 * layout, comments and data otherwise, for files whose text must be kpt's.
 */
export function withoutBookkeeping(text: string): string {
  return text
    .replace(/^( *metadata:) +# kpt-merge: \S*$/gm, '$1')
    .replace(/^ *internal\.kpt\.dev\/upstream-identifier: .*\n/gm, '')
    .replace(/^( *)annotations:\n(?!\1 )/gm, '');
}
