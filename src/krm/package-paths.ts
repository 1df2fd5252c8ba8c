/**
 * Items must stay inside their package. kpt writes each item to the file its path annotation names;
 * a path that is absolute, climbs out with `..`, or lies in `.git` names a file that is not part of
 * the package. kpt's writer refuses the first two and writes into `.git`; the function refuses all
 * three in any run that changes the package. A run that changes nothing returns its input as it
 * came, byte for byte, and is not checked: nothing in its output is of its making.
 */
import { posix } from 'node:path';
import { LEGACY_PATH, PATH } from './annotations';
import type { KrmResource } from './resource';
import { errorResult, type Result } from './results';

/** Why a package-relative path leaves the package, or undefined when it stays inside. */
export function escapeOf(path: string): string | undefined {
  // Normalising can make neither `..` nor `.git` out of a path that holds neither: most paths stop here.
  if (!path.startsWith('/') && !path.includes('..') && !path.includes('.git')) return undefined;
  if (posix.isAbsolute(path)) return 'it is absolute';
  const normal = posix.normalize(path);
  if (normal === '..' || normal.startsWith('../')) return 'it climbs out of the package';
  if (normal.split('/').includes('.git')) return 'it lies in .git, which is git\'s, not the package\'s';
  return undefined;
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

/** A path annotation whose value starts with `/`, and `..` or `.git` as a path segment anywhere. */
const ABSOLUTE_PATH = /config\.kubernetes\.io\/path['"]?:[ \t]*['"]?\//;
const SEGMENT = /(?:^|[\s'"/:{[,])(?:\.\.|\.git)(?:$|[\s'"/,}\]])/m;

/**
 * Whether an input's text shows that none of its items read as plain data has a path outside the
 * package: their values are the text's own characters (the fast reader takes no escapes), where an
 * absolute path, a `..` or a `.git` would show. Anything that looks like one means every item is judged.
 */
export function noEscapeInText(text: string): boolean {
  // A plain search first: most packages hold neither `..` nor `.git` anywhere.
  return !ABSOLUTE_PATH.test(text) && !((text.includes('..') || text.includes('.git')) && SEGMENT.test(text));
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
