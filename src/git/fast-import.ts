/**
 * New commits as one `git fast-import` stream: every blob, tree and commit a run makes is written by
 * one git process, however many files and packages (a process per object would cost more than the
 * work). A commit is described by its parents and the changes to its first parent's tree: a
 * directory replaced whole by the files of a package, or removed.
 */

/** A commit to make; parents are commit names or the index of an earlier commit of the same stream. */
export interface NewCommit {
  readonly parents: readonly (string | number)[];
  readonly message: string;
  /** The directory (a path in the repository, never its root) whose content the commit replaces. */
  readonly directory: string;
  /** Its new files (paths below `directory`), or undefined to remove the directory. */
  readonly files?: ReadonlyMap<string, { readonly bytes: Buffer; readonly mode: number }>;
}

/** `Name <email> 1700000000 +0000`, as `git var GIT_COMMITTER_IDENT` prints it. */
export interface Identities {
  readonly author: string;
  readonly committer: string;
}

/** A path as fast-import reads it: quoted as C quotes strings where it would otherwise be misread. */
export function fastImportPath(path: string): string {
  if (!/["\\\n]/.test(path) && !path.startsWith('"')) return path;
  return `"${path.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`;
}

const parentOf = (parent: string | number): string => (typeof parent === 'number' ? `:${parent + 1}` : parent);

/**
 * The stream; commit i gets mark `:i+1` and the ref `refPrefix<i>`, which fast-import needs to commit
 * to; the stream ends by deleting those refs (a reset to the null object), so nothing but the
 * objects stays behind.
 */
export function fastImportStream(commits: readonly NewCommit[], identities: Identities, refPrefix: string): Buffer {
  const parts: Buffer[] = [];
  const text = (value: string) => parts.push(Buffer.from(value, 'utf8'));
  const data = (bytes: Buffer) => {
    text(`data ${bytes.length}\n`);
    parts.push(bytes);
    text('\n');
  };
  commits.forEach((commit, index) => {
    if (commit.directory === '') throw new Error('a commit replaces a package directory, never the whole repository');
    text(`commit ${refPrefix}${index}\nmark :${index + 1}\nauthor ${identities.author}\ncommitter ${identities.committer}\n`);
    data(Buffer.from(commit.message, 'utf8'));
    const [first, ...merges] = commit.parents;
    if (first !== undefined) text(`from ${parentOf(first)}\n`);
    for (const merge of merges) text(`merge ${parentOf(merge)}\n`);
    text(`D ${fastImportPath(commit.directory)}\n`);
    for (const [path, file] of [...(commit.files ?? new Map())].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      text(`M ${file.mode & 0o111 ? '100755' : '100644'} inline ${fastImportPath(`${commit.directory}/${path}`)}\n`);
      data(file.bytes);
    }
    text('\n');
  });
  for (const index of commits.keys()) text(`reset ${refPrefix}${index}\nfrom ${'0'.repeat(40)}\n\n`);
  text('done\n');
  return Buffer.concat(parts);
}

/** The commit names of `--export-marks` output, in mark order. */
export function readMarks(marks: string, count: number): string[] {
  const byMark = new Map<number, string>();
  for (const line of marks.split('\n')) {
    const match = /^:(\d+) ([0-9a-f]{40,64})$/.exec(line.trim());
    if (match) byMark.set(Number(match[1]), match[2]!);
  }
  return Array.from({ length: count }, (_, i) => {
    const name = byMark.get(i + 1);
    if (name === undefined) throw new Error(`git fast-import reported no commit for mark :${i + 1}`);
    return name;
  });
}
