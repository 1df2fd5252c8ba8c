/**
 * Which files of a package kpt reads as resources, and their documents: every Kptfile, `*.yaml` and
 * `*.yml`, outside hidden directories and what a package's `.krmignore` names; several documents a
 * file. Every other file is a non-KRM file (src/pkg/non-krm.ts).
 */
import { parseAllDocuments } from 'yaml';
import { isWithin, joinPath, KPTFILE, packageDirsOf, relativeTo, scopeOf } from './scopes';
import type { PackageTree } from './tree';

export interface PackageDocument {
  /** Path relative to the package root, with `/`. */
  readonly path: string;
  readonly index: number;
  /** The document's own text, exactly as in the file. */
  readonly text: string;
}

/** Kptfile, *.yaml, *.yml: the files kpt's update merges as resources (§8 of merge-semantics). */
export function isKrmFileName(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name === KPTFILE || /\.ya?ml$/.test(name);
}

const isHidden = (path: string) => path.split('/').some((part) => part.startsWith('.'));

/** A package's `.krmignore` patterns, each relative to its package directory. */
function ignoredBy(tree: PackageTree, packageDirs: ReadonlySet<string>): (path: string) => boolean {
  const patterns = new Map<string, string[]>();
  for (const dir of packageDirs) {
    const text = tree.text(joinPath(dir, '.krmignore'));
    if (text === undefined) continue;
    patterns.set(
      dir,
      text
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith('#'))
        .map((l) => l.replace(/^\/+|\/+$/g, '')),
    );
  }
  if (patterns.size === 0) return () => false;
  return (path) => {
    const scope = scopeOf(path, packageDirs);
    const rel = relativeTo(path, scope);
    return (patterns.get(scope) ?? []).some((p) => isWithin(rel, p));
  };
}

/** The paths of the resource files, in walk order (sorted). */
function krmFilePaths(tree: PackageTree): string[] {
  const ignored = ignoredBy(tree, packageDirsOf(tree.files.keys()));
  return [...tree.files.keys()].filter((p) => isKrmFileName(p) && !isHidden(p) && !ignored(p)).sort();
}

/**
 * A file's documents as exact text. Markers at column 0 separate them: block content is always
 * indented, so a `---` line there is a marker. Directives need the parser.
 */
export function splitDocuments(text: string): string[] {
  if (/^%/m.test(text)) {
    return parseAllDocuments(text).map((doc) => text.slice(doc.range[0], doc.range[2]));
  }
  return text.split(/^---[ \t]*(?:#.*)?$\n?/m).filter((part) => part.replace(/^\s*(#.*)?$/gm, '').trim() !== '' && part.trim() !== '...');
}

export interface KrmFiles {
  /** Resource file path -> text. */
  readonly files: ReadonlyMap<string, string>;
  readonly documents: readonly PackageDocument[];
}

export function krmFiles(tree: PackageTree): KrmFiles {
  const files = new Map<string, string>();
  const documents: PackageDocument[] = [];
  for (const path of krmFilePaths(tree)) {
    const text = tree.text(path)!;
    files.set(path, text);
    splitDocuments(text).forEach((doc, index) => documents.push({ path, index, text: doc }));
  }
  return { files, documents };
}

/** Joins document texts into a file, as kpt writes several documents a file. */
export function joinDocuments(documents: readonly string[]): string {
  return documents.map((d) => (d.endsWith('\n') ? d : `${d}\n`)).join('---\n');
}
