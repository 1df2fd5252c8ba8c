/**
 * A package's entries as kpt's package reader walks them (kyaml's LocalPackageReader with its
 * ignoreFilesMatcher), for a directory on disk and for a tree read from git alike:
 * - each package's `.krmignore` (src/package/krmignore.ts) covers that package's files and directories,
 *   not those of its subpackages; the root's always applies, a subpackage's replaces it below it;
 * - a subpackage's own directory is matched against its parent's patterns, so a parent can leave a
 *   whole subpackage out;
 * - an ignored directory is not entered: nothing below it is read, subpackages included;
 * - a package's Kptfile is never ignored (it says what the package is);
 * - symbolic links are never followed, and `.git` (in any spelling: krm/package-paths.ts) is skipped.
 */
import { isGitName } from '../krm/package-paths';
import { KrmIgnore } from './krmignore';
import { dirOf, joinPath, KPTFILE, relativeTo, ROOT } from './scopes';
import { PackageTree } from './tree';

export type EntryKind = 'file' | 'dir' | 'link' | 'other';

export interface Entry {
  readonly name: string;
  readonly kind: EntryKind;
}

/** What the walk needs from where the package is. */
export interface Listing {
  /** The entries of a directory, sorted by name. */
  entries(dir: string): readonly Entry[];
  /** A regular file's text (a `.krmignore`). */
  text(path: string): string | undefined;
}

export interface WalkedPackage {
  readonly files: string[];
  /** Every directory entered, below the root. */
  readonly dirs: string[];
  readonly links: string[];
  /** Files and directories a `.krmignore` names: never read, written or removed. */
  readonly ignored: string[];
}

export const KRMIGNORE = '.krmignore';

/**
 * `krmignore: false` walks past what `.krmignore` names, as a tree read from git holds it: the update
 * compares origin's and upstream's ignored files (src/merge/package/left-out.ts).
 */
export function walkPackage(listing: Listing, options: { readonly krmignore: boolean } = { krmignore: true }): WalkedPackage {
  const out: WalkedPackage = { files: [], dirs: [], links: [], ignored: [] };
  const ignoreOf = (dir: string) => {
    if (!options.krmignore) return undefined;
    const text = listing.text(joinPath(dir, KRMIGNORE));
    return text === undefined ? undefined : KrmIgnore.parse(text);
  };
  const walk = (dir: string, entries: readonly Entry[], packageDir: string, ignore: KrmIgnore | undefined) => {
    for (const entry of entries) {
      const path = joinPath(dir, entry.name);
      // git's, in any spelling a file system may take for it, and whatever its kind (a work tree's `.git` file).
      if (isGitName(entry.name)) continue;
      if (entry.kind === 'file' && entry.name === KPTFILE) {
        out.files.push(path);
        continue;
      }
      if (ignore?.matches(relativeTo(path, packageDir), entry.kind === 'dir')) {
        out.ignored.push(path);
        continue;
      }
      if (entry.kind === 'file') out.files.push(path);
      else if (entry.kind === 'link') out.links.push(path);
      else if (entry.kind === 'dir') {
        out.dirs.push(path);
        const inner = listing.entries(path);
        const isPackage = inner.some((e) => e.kind === 'file' && e.name === KPTFILE);
        walk(path, inner, isPackage ? path : packageDir, isPackage ? ignoreOf(path) : ignore);
      }
    }
  };
  walk(ROOT, listing.entries(ROOT), ROOT, ignoreOf(ROOT));
  return out;
}

/** A tree read without the walk (from git objects, or built in memory) as the walk sees it: what its `.krmignore` files name moves to `ignored`. */
export function applyKrmignore(tree: PackageTree): PackageTree {
  const children = new Map<string, Entry[]>();
  const add = (path: string, kind: EntryKind) => {
    const dir = dirOf(path);
    if (!children.has(dir)) children.set(dir, []);
    children.get(dir)!.push({ name: path.slice(dir === ROOT ? 0 : dir.length + 1), kind });
  };
  for (const path of tree.files.keys()) add(path, 'file');
  for (const path of tree.dirs) add(path, 'dir');
  for (const path of tree.links) add(path, 'link');
  for (const entries of children.values()) entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const walked = walkPackage({ entries: (dir) => children.get(dir) ?? [], text: (path) => tree.text(path) });
  if (walked.ignored.length === 0) return tree;
  const kept = new Set(walked.files);
  return new PackageTree(
    new Map([...tree.files].filter(([path]) => kept.has(path))),
    new Set(walked.dirs),
    new Set(walked.links),
    new Set([...tree.ignored, ...walked.ignored]),
  );
}
