/**
 * Which files of a package kpt reads as resources, and their documents: every Kptfile, `*.yaml` and
 * `*.yml`, outside hidden directories; several documents a file. Every other file is a non-KRM file
 * (src/merge/package/non-krm.ts).
 */
import { splitYamlStream, type StreamDocument } from '../yaml/yaml-stream';
import { KPTFILE } from './scopes';
import type { PackageTree } from './tree';

/** A document of a file: its own text, exactly as in the file, and its place there (yaml-stream.ts). */
export interface PackageDocument extends StreamDocument {
  /** Path relative to the package root, with `/`. */
  readonly path: string;
  readonly index: number;
}

/** Kptfile, *.yaml, *.yml: the files kpt's update merges as resources (§8 of merge-semantics). */
export function isKrmFileName(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name === KPTFILE || /\.ya?ml$/.test(name);
}

const isHidden = (path: string) => path.split('/').some((part) => part.startsWith('.'));

/** The paths of the resource files, in walk order (sorted); what `.krmignore` names is out of the tree already (src/merge/package/left-out.ts). */
function krmFilePaths(tree: PackageTree): string[] {
  return [...tree.files.keys()].filter((p) => isKrmFileName(p) && !isHidden(p)).sort();
}

export interface KrmFiles {
  /** Resource file path -> text; bytes that are not UTF-8 are kept as krm/utf8.ts escapes them. */
  readonly files: ReadonlyMap<string, string>;
  readonly documents: readonly PackageDocument[];
}

export function krmFiles(tree: PackageTree): KrmFiles {
  return new KrmFilesReader().read(tree);
}

/** A file's text and its documents, as read once. */
interface ReadFile {
  readonly bytes: Buffer;
  readonly text: string;
  readonly documents: readonly StreamDocument[];
}

/**
 * Reads the resource files of several versions of a package (local, origin, upstream), decoding and
 * splitting each file once where a version has the very bytes an earlier one has at that path: most
 * files are the same in every version. Each version still gets documents of its own.
 */
export class KrmFilesReader {
  private readonly seen = new Map<string, ReadFile[]>();

  read(tree: PackageTree): KrmFiles {
    const files = new Map<string, string>();
    const documents: PackageDocument[] = [];
    for (const path of krmFilePaths(tree)) {
      const file = this.file(path, tree.files.get(path)!.bytes, () => tree.text(path)!);
      files.set(path, file.text);
      file.documents.forEach((doc, index) => documents.push({ ...doc, path, index }));
    }
    return { files, documents };
  }

  private file(path: string, bytes: Buffer, text: () => string): ReadFile {
    const versions = this.seen.get(path) ?? [];
    const same = versions.find((file) => file.bytes.equals(bytes));
    if (same) return same;
    const decoded = text();
    const file = { bytes, text: decoded, documents: splitYamlStream(decoded) };
    versions.push(file);
    this.seen.set(path, versions);
    return file;
  }
}
