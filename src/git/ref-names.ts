/**
 * git's rules for ref names (`git check-ref-format`), for a path that becomes part of refs: a package
 * path is a branch `drafts/<path>/<workspace>` and a tag `<path>/v<N>`. git refuses to make a ref
 * whose name breaks them, so a name that does only fails at the push, with the other refs of that
 * push; judged here, in memory, it is refused before anything is planned. Each of the path's names
 * is also a loose ref's file or directory on the server, which file systems cap at 255 bytes.
 */

/** Characters git refuses anywhere in a ref name: control characters, space, `~ ^ : ? * [ \`. */
const REFUSED = /[\u0000-\u0020\u007f~^:?*[\\]/;

/** The longest name most file systems hold (NAME_MAX), in bytes. */
const MAX_NAME_BYTES = 255;

/** Why one name between slashes cannot be part of a ref name, or undefined. */
function componentProblem(name: string): string | undefined {
  const refused = REFUSED.exec(name);
  if (refused) return `${JSON.stringify(name)} holds ${JSON.stringify(refused[0])}, which git refuses in a ref name`;
  if (name.startsWith('.')) return `${JSON.stringify(name)} begins with ".", which git refuses in a ref name`;
  if (name.endsWith('.lock')) return `${JSON.stringify(name)} ends with ".lock", which git refuses in a ref name`;
  if (name.includes('..')) return `${JSON.stringify(name)} holds "..", which git refuses in a ref name`;
  if (name.includes('@{')) return `${JSON.stringify(name)} holds "@{", which git refuses in a ref name`;
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes > MAX_NAME_BYTES) return `a name of ${bytes} bytes is longer than the ${MAX_NAME_BYTES} a ref's file may have`;
  return undefined;
}

/**
 * Why `path` (names joined by `/`, with a name after it in every ref it goes into) cannot be part of
 * a git ref name, or undefined.
 */
export function refPathProblem(path: string): string | undefined {
  if (path === '') return 'it is empty';
  for (const name of path.split('/')) {
    if (name === '') return 'it holds an empty name, which git refuses in a ref name';
    const why = componentProblem(name);
    if (why) return why;
  }
  return undefined;
}
