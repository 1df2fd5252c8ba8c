/**
 * Porch's way of reading a repository back (porch-lifecycle.md §7.3), written for the tests with
 * plain git and nothing of sync's: it lists each package revision with the lifecycle, revision
 * number, workspace and first task Porch would show, so that a test can check what sync wrote as
 * Porch would read it.
 */
import { spawnSync } from 'node:child_process';

export interface DiscoveredRevision {
  readonly name: string;
  readonly package: string;
  readonly workspace: string;
  readonly revision: number;
  readonly lifecycle: 'Draft' | 'Proposed' | 'Published' | 'DeletionProposed';
  readonly firstTask?: string;
  readonly commit: string;
}

function git(repo: string, args: string[]): string {
  const run = spawnSync('git', ['--git-dir', repo, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' } });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

interface Annotation {
  package?: string;
  workspaceName?: string;
  revision?: string;
  task?: { type?: string };
}

/** ExtractGitAnnotations: every line that starts with `kpt:` (after trimming) holds one. */
export function annotations(message: string): Annotation[] {
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('kpt:'))
    .map((line) => JSON.parse(line.slice(4)) as Annotation);
}

function message(repo: string, commit: string): string {
  return git(repo, ['cat-file', 'commit', commit]).split('\n\n').slice(1).join('\n\n');
}

function hasKptfile(repo: string, commit: string, pkgpath: string): boolean {
  return spawnSync('git', ['--git-dir', repo, 'cat-file', '-e', `${commit}:${pkgpath}/Kptfile`]).status === 0;
}

/** loadTasks: walk history from the commit, newest first by committer time, until a clone or init of that package and workspace. */
function firstTask(repo: string, commit: string, pkgpath: string, workspace: string): string | undefined {
  // One git process a revision: the messages that may hold an annotation (a long history has few).
  const messages = git(repo, ['log', '--date-order', '--grep=kpt:', '--format=%B%x00', commit]).split('\0');
  let first: string | undefined;
  for (const text of messages) {
    for (const a of annotations(text)) {
      if (a.package !== pkgpath || a.workspaceName !== workspace || !a.task?.type) continue;
      if (['init', 'clone', 'edit', 'upgrade'].includes(a.task.type)) first = a.task.type;
      if (a.task.type === 'clone' || a.task.type === 'init') return first;
    }
  }
  return first;
}

/** Revision2Int: one leading `v` dropped, then strconv.Atoi (a sign, leading zeros, Go's int64); -1 when that fails. */
function revisionOf(version: string): number {
  const text = version.startsWith('v') ? version.slice(1) : version;
  if (!/^[+-]?\d+$/.test(text)) return -1;
  const value = BigInt(text);
  return value >= -(2n ** 63n) && value < 2n ** 63n ? Number(value) : -1;
}

/** Every package revision of `repo` (a bare repository) under `directory`, as Porch lists them, sorted by name. */
export function discoverRevisions(repo: string, repository: string, branch = 'main', directory = ''): DiscoveredRevision[] {
  const refs = git(repo, ['for-each-ref', '--format=%(refname) %(objectname) %(*objectname)'])
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [ref, object, peeled] = line.split(' ');
      return { ref: ref!, commit: peeled || object! };
    });
  const inDir = (path: string) => directory === '' || path.startsWith(`${directory}/`);
  const nameOf = (pkgpath: string, ws: string) => `${repository}.${pkgpath.slice(directory ? directory.length + 1 : 0).split('/').join('.')}.${ws}`;
  const deletionProposed = new Set(refs.filter((r) => r.ref.startsWith('refs/heads/deletionProposed/')).map((r) => r.ref.slice('refs/heads/deletionProposed/'.length)));
  const found: DiscoveredRevision[] = [];
  for (const { ref, commit } of refs) {
    const split = (rest: string) => [rest.slice(0, rest.lastIndexOf('/')), rest.slice(rest.lastIndexOf('/') + 1)] as const;
    if (ref.startsWith('refs/heads/drafts/') || ref.startsWith('refs/heads/proposed/')) {
      const draft = ref.startsWith('refs/heads/drafts/');
      const [pkgpath, ws] = split(ref.slice(draft ? 'refs/heads/drafts/'.length : 'refs/heads/proposed/'.length));
      if (!inDir(pkgpath)) continue;
      const task = firstTask(repo, commit, pkgpath, ws);
      found.push({ name: nameOf(pkgpath, ws), package: pkgpath, workspace: ws, revision: 0, lifecycle: draft ? 'Draft' : 'Proposed', ...(task ? { firstTask: task } : {}), commit });
    } else if (ref.startsWith('refs/tags/') && ref.slice('refs/tags/'.length).includes('/')) {
      const [pkgpath, version] = split(ref.slice('refs/tags/'.length));
      if (!inDir(pkgpath) || !hasKptfile(repo, commit, pkgpath)) continue;
      const ws = annotations(message(repo, commit)).find((a) => a.package === pkgpath && a.workspaceName)?.workspaceName ?? version;
      const task = firstTask(repo, commit, pkgpath, ws);
      found.push({
        name: nameOf(pkgpath, ws),
        package: pkgpath,
        workspace: ws,
        revision: revisionOf(version),
        lifecycle: deletionProposed.has(`${pkgpath}/${version}`) ? 'DeletionProposed' : 'Published',
        ...(task ? { firstTask: task } : {}),
        commit,
      });
    }
  }
  const head = refs.find((r) => r.ref === `refs/heads/${branch}`);
  if (head) {
    const kptfiles = git(repo, ['ls-tree', '-r', '--name-only', head.commit]).split('\n').filter((p) => p === 'Kptfile' || p.endsWith('/Kptfile'));
    for (const kptfile of kptfiles) {
      const pkgpath = kptfile.slice(0, -'/Kptfile'.length);
      if (kptfile === 'Kptfile' || !inDir(pkgpath)) continue;
      found.push({ name: nameOf(pkgpath, branch), package: pkgpath, workspace: branch, revision: -1, lifecycle: 'Published', commit: head.commit });
    }
  }
  return found.sort((a, b) => (a.name < b.name ? -1 : 1));
}
