/**
 * Reading and writing a package directory as kpt does: every Kptfile, *.yaml and *.yml below it
 * (hidden directories and `.krmignore`d paths skipped), several documents a file.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { PARSE_OPTIONS } from '../krm/yaml-format';

export interface PackageDocument {
  /** Path relative to the package root, with `/`. */
  readonly path: string;
  readonly index: number;
  /** The document's own text, exactly as in the file. */
  readonly text: string;
  readonly isKrm: boolean;
}

function ignoredBy(root: string): (path: string) => boolean {
  const file = join(root, '.krmignore');
  const patterns = existsSync(file)
    ? readFileSync(file, 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#')).map((l) => l.replace(/^\/+|\/+$/g, ''))
    : [];
  return (path) => patterns.some((p) => path === p || path.startsWith(`${p}/`));
}

function resourceFiles(root: string): string[] {
  const ignored = ignoredBy(root);
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      const path = relative(root, full).split(sep).join('/');
      if (name.startsWith('.') || ignored(path)) continue;
      if (statSync(full).isDirectory()) walk(full);
      else if (name === 'Kptfile' || /\.ya?ml$/.test(name)) found.push(path);
    }
  };
  walk(root);
  return found;
}

function splitDocuments(text: string): { text: string; isKrm: boolean }[] {
  const docs = parseAllDocuments(text, PARSE_OPTIONS);
  if (!Array.isArray(docs)) return [];
  return docs
    .filter((doc) => doc.contents !== null)
    .map((doc) => {
      const data = doc.errors.length ? undefined : (doc.toJS({ maxAliasCount: 100 }) as Record<string, any> | undefined);
      const isKrm = typeof data?.apiVersion === 'string' && typeof data?.kind === 'string' && typeof data?.metadata?.name === 'string';
      return { text: text.slice(doc.range[0], doc.range[2]), isKrm };
    });
}

export function readPackage(root: string): PackageDocument[] {
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new Error(`${root} is not a directory`);
  return resourceFiles(root).flatMap((path) =>
    splitDocuments(readFileSync(join(root, path), 'utf8')).map((doc, index) => ({ path, index, ...doc })),
  );
}

/** Writes files (path → document texts); removes the listed files. */
export function writePackage(root: string, files: ReadonlyMap<string, readonly string[]>, removed: Iterable<string>): void {
  for (const path of removed) rmSync(join(root, path), { force: true });
  for (const [path, documents] of files) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, documents.map((d) => (d.endsWith('\n') ? d : `${d}\n`)).join('---\n'));
  }
}
