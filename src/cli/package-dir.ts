/**
 * Reading and writing a package directory as kpt does: every Kptfile, *.yaml and *.yml below it
 * (hidden directories and `.krmignore`d paths skipped), several documents a file.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { decodeUtf8, encodeText } from '../krm/utf8';
import { splitYamlStream, type StreamDocument } from '../krm/yaml-stream';

/** A document of a file: its own text, exactly as in the file, and its place there. */
export interface PackageDocument extends StreamDocument {
  /** Path relative to the package root, with `/`. */
  readonly path: string;
  readonly index: number;
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

export interface PackageFiles {
  /** File path → text; bytes that are not UTF-8 are kept as utf8.ts escapes them. */
  readonly files: ReadonlyMap<string, string>;
  readonly documents: readonly PackageDocument[];
}

export function readPackage(root: string): PackageFiles {
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new Error(`${root} is not a directory`);
  const files = new Map<string, string>();
  const documents: PackageDocument[] = [];
  for (const path of resourceFiles(root)) {
    const text = decodeUtf8(readFileSync(join(root, path)));
    files.set(path, text);
    splitYamlStream(text).forEach((doc, index) => documents.push({ ...doc, path, index }));
  }
  return { files, documents };
}

/** Writes files (path → whole text); removes the listed files. */
export function writePackage(root: string, files: ReadonlyMap<string, string>, removed: Iterable<string>): void {
  for (const path of removed) rmSync(join(root, path), { force: true });
  for (const [path, text] of files) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, encodeText(text));
  }
}
