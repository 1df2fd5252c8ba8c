/**
 * The one check of a path inside a package, for every path that comes from somewhere the update
 * does not control: an item's path annotation, a tree entry read from git, a name read from disk.
 * A path may not be absolute, climb out with `..`, hold an empty or `.` name, lie in `.git` in any
 * of the spellings git or a file system takes for it (any letter case, HFS+'s ignorable code points,
 * NTFS's trailing dots and spaces, its short name `git~1`), or use a name the update keeps for its
 * own files (`.package-variant.*`, `.package-variant-*`). kpt's writer refuses the first two and
 * writes into `.git`.
 *
 * The function judges an item's path as kpt writes it, normalised (`sub/../cm.yaml` is `cm.yaml`),
 * in any run that changes the package. A run that changes nothing returns its input as it came, byte
 * for byte, and is not checked: nothing in its output is of its making. A path from git is judged as
 * it is, each name of it: git itself refuses these names when it checks objects.
 */
import { posix } from 'node:path';
import { LEGACY_PATH, PATH } from './annotations';
import type { KrmResource } from './resource';
import { errorResult, type Result } from './results';

const RESERVED_PREFIX = '.package-variant';

/** A name the update gives its own files (lock, journal, staged contents), in any letter case: never a package's. */
export function isReservedName(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith(`${RESERVED_PREFIX}.`) || lower.startsWith(`${RESERVED_PREFIX}-`);
}

/** Code points HFS+ ignores in names, so that `.g\u200cit` is `.git` there. */
const IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/** Whether a name is `.git` as git or some file system takes it (git's own is_hfs_dotgit and is_ntfs_dotgit). */
export function isGitName(name: string): boolean {
  const plain = name.replace(IGNORABLE, '').toLowerCase();
  return /^(?:\.git|git~1)[. ]*(?::.*)?$/s.test(plain);
}

const IN_GIT = "it lies in .git, which is git's, not the package's";

/** Why `path` (relative to the package, with `/`) cannot be a path of the package, or undefined. */
export function pathProblem(path: string): string | undefined {
  if (path === '') return 'it is empty';
  if (path.startsWith('/')) return 'it is absolute';
  for (const name of path.split('/')) {
    if (name === '..') return posix.normalize(path).startsWith('..') ? 'it climbs out of the package' : 'it holds a ".." name';
    if (name === '' || name === '.') return 'it holds an empty or "." name';
    if (isGitName(name)) return name === '.git' ? IN_GIT : `it lies in ${JSON.stringify(name)}, which git takes for .git: git's, not the package's`;
    if (isReservedName(name)) return `${JSON.stringify(name)} is a name package-variant update keeps for its own files`;
  }
  return undefined;
}

/** Anything that can make a path fail the check shows as one of these in its text. */
const SUSPECT = /\.\.|\.git|git~1|\.package-variant/i;
const HAS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/;

/** Why an item's path, normalised as kpt writes it, cannot be a path of the package, or undefined. */
export function escapeOf(path: string): string | undefined {
  // Most paths hold nothing the check can refuse: they stop here.
  if (!path.startsWith('/') && !SUSPECT.test(path) && !HAS_IGNORABLE.test(path)) return undefined;
  if (posix.isAbsolute(path)) return 'it is absolute';
  const names = posix.normalize(path).split('/').filter((name) => name !== '' && name !== '.');
  return names.length === 0 ? undefined : pathProblem(names.join('/'));
}

/** The first of kpt's path annotations on the item whose path leaves the package, and why. */
function escaping(item: KrmResource, judge: (path: string) => string | undefined): { annotation: string; path: string; why: string } | undefined {
  for (const annotation of PATH_ANNOTATIONS) {
    const path = item.annotation(annotation);
    const why = path === undefined ? undefined : judge(path);
    if (why !== undefined) return { annotation, path: path!, why };
  }
  return undefined;
}

const PATH_ANNOTATIONS = [PATH, LEGACY_PATH];

/** A path annotation whose value starts with `/`; a name the check refuses, as a path segment anywhere. */
const ABSOLUTE_PATH = /config\.kubernetes\.io\/path['"]?:[ \t]*['"]?\//;
const SEGMENT = /(?:^|[\s'"/:{[,])(?:(?:\.\.|\.git[. ]*|git~1[. ]*)(?:$|[\s'"/,}\]:])|\.package-variant[.-])/im;

/**
 * Whether an input's text shows that none of its items read as plain data has a path outside the
 * package: their values are the text's own characters (the fast reader takes no escapes), where an
 * absolute path, a `..`, a `.git` or a reserved name would show. Anything that looks like one means every item is judged.
 */
export function noEscapeInText(text: string): boolean {
  // A plain search first: most packages hold nothing the check could refuse anywhere.
  return !ABSOLUTE_PATH.test(text) && !HAS_IGNORABLE.test(text) && !(SUSPECT.test(text) && SEGMENT.test(text));
}

/**
 * An error for each item whose path annotation (kpt's, else the legacy one) leaves the package.
 * With `inputClean` (noEscapeInText of the input), items still as they were read are not judged again.
 */
export function escapingPaths(items: readonly KrmResource[], inputClean = false): Result[] {
  // Items share files (a fleet's Repositories often one): each path is judged once.
  const judged = new Map<string, string | undefined>();
  const judge = (path: string) => {
    if (!judged.has(path)) judged.set(path, escapeOf(path));
    return judged.get(path);
  };
  const results: Result[] = [];
  items.forEach((item, index) => {
    if (inputClean && !item.isChanged && !item.hasTree) return;
    const found = escaping(item, judge);
    if (!found) return;
    const identity = item.isKrmObject ? ` (${item.kind} ${item.name})` : '';
    results.push(
      errorResult(`items[${index}]${identity}: its path ${JSON.stringify(found.path)} is outside the package: ${found.why}`, {
        ...(item.isKrmObject ? { resourceRef: item.ref() } : {}),
        field: { path: `metadata.annotations["${found.annotation}"]` },
      }),
    );
  });
  return results;
}
