/**
 * Reading and writing a package directory as kpt does: every Kptfile, *.yaml and *.yml below it
 * (hidden directories and `.krmignore`d paths skipped), several documents a file.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { parseAllDocuments } from 'yaml';

export interface PackageDocument {
  /** Path relative to the package root, with `/`. */
  readonly path: string;
  readonly index: number;
  /** The document's own text, exactly as in the file. */
  readonly text: string;
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

/**
 * A file's documents as exact text. Markers at column 0 separate them: block content is always
 * indented, so a `---` line there is a marker. Directives need the parser.
 */
function splitDocuments(text: string): string[] {
  if (/^%/m.test(text)) {
    return parseAllDocuments(text).map((doc) => text.slice(doc.range[0], doc.range[2]));
  }
  return text.split(/^---[ \t]*(?:#.*)?$\n?/m).filter((part) => part.replace(/^\s*(#.*)?$/gm, '').trim() !== '' && part.trim() !== '...');
}

export interface PackageFiles {
  /** File path → text. */
  readonly files: ReadonlyMap<string, string>;
  readonly documents: readonly PackageDocument[];
}

export function readPackage(root: string): PackageFiles {
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new Error(`${root} is not a directory`);
  const files = new Map<string, string>();
  const documents: PackageDocument[] = [];
  for (const path of resourceFiles(root)) {
    const text = readFileSync(join(root, path), 'utf8');
    files.set(path, text);
    splitDocuments(text).forEach((doc, index) => documents.push({ path, index, text: doc }));
  }
  return { files, documents };
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
