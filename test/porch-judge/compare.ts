/**
 * The comparison the judge makes, per repository: what Porch's own code lists (judge.ts) against
 * what sync's plan says it wrote (the refs it moved, the commits' annotations and Kptfiles), what its
 * `--status-out` names, and the project's own reading of Porch (test/sync/porch-discovery.ts). Each
 * difference names the repository and the PackageRevision.
 */
import { spawnSync } from 'node:child_process';
import { parse, parseAllDocuments } from 'yaml';
import type { NewCommit } from '../../src/git/fast-import';
import type { RepositoryWrite, SyncPlan } from '../../src/sync/plan';
import { annotations, discoverRevisions, type DiscoveredRevision } from '../sync/porch-discovery';
import type { JudgedRepository, PorchListing, PorchLock, PorchRevision } from './judge';

export interface Difference {
  readonly repository: string;
  readonly packageRevision: string;
  /** What differs, and what each side says. */
  readonly detail: string;
}

export const differenceText = (d: Difference): string => `repository ${d.repository}, PackageRevision ${d.packageRevision}: ${d.detail}`;

const show = (value: unknown): string => (value === undefined ? 'nothing' : JSON.stringify(value));

/** A package's path in a repository as Porch names the package: below the Repository's directory. */
function porchPackage(repository: JudgedRepository, pkgpath: string): string {
  const directory = repository.directory ?? '';
  return directory && pkgpath.startsWith(`${directory}/`) ? pkgpath.slice(directory.length + 1) : pkgpath;
}

/** Porch's name of a package revision: `<repository>.<package, dots for slashes>.<workspace>`. */
export function porchName(repository: JudgedRepository, pkgpath: string, workspace: string): string {
  return `${repository.name}.${porchPackage(repository, pkgpath).split('/').join('.')}.${workspace}`;
}

const revisionsOf = (listing: PorchListing, repository: string): readonly PorchRevision[] => listing.repositories.find((r) => r.name === repository)?.packageRevisions ?? [];

/**
 * Which published revision is each package's latest, by the rule of Porch's repository cache: the
 * highest revision number among the Published and DeletionProposed ones, never the branch's.
 */
function latestOf(revisions: readonly DiscoveredRevision[]): Set<string> {
  const best = new Map<string, DiscoveredRevision>();
  for (const r of revisions) {
    if (r.lifecycle !== 'Published' && r.lifecycle !== 'DeletionProposed') continue;
    if (r.revision <= 0) continue;
    const seen = best.get(r.package);
    if (!seen || r.revision > seen.revision) best.set(r.package, r);
  }
  return new Set([...best.values()].map((r) => r.name));
}

/** Porch's listing of `repository` against the project's reading of the same repository. */
export function againstDiscovery(listing: PorchListing, repository: JudgedRepository): Difference[] {
  const porch = revisionsOf(listing, repository.name);
  const ours = discoverRevisions(repository.path, repository.name, repository.branch ?? 'main', repository.directory ?? '');
  const latest = latestOf(ours);
  const differences: Difference[] = [];
  const differ = (name: string, detail: string) => differences.push({ repository: repository.name, packageRevision: name, detail });
  const names = [...new Set([...porch, ...ours].map((r) => r.name))].sort();
  for (const name of names) {
    const theirs = porch.filter((r) => r.name === name);
    const mine = ours.filter((r) => r.name === name);
    if (theirs.length !== 1 || mine.length !== 1) {
      const lifecycles = (list: readonly { lifecycle: string }[]) => (list.length ? list.map((r) => r.lifecycle).join(', ') : 'nothing');
      differ(name, `Porch lists ${lifecycles(theirs)}, porch-discovery.ts reads ${lifecycles(mine)}`);
      continue;
    }
    const [p, r] = [theirs[0]!, mine[0]!];
    const fields: [string, unknown, unknown][] = [
      ['package', p.package, porchPackage(repository, r.package)],
      ['workspace', p.workspace, r.workspace],
      ['revision', p.revision, r.revision],
      ['lifecycle', p.lifecycle, r.lifecycle],
      ['first task', p.tasks[0]?.type, r.firstTask],
      ['commit', p.commit, r.commit],
      ['latest', p.latest, latest.has(r.name)],
    ];
    for (const [field, porchSays, oursSays] of fields) if (porchSays !== oursSays) differ(name, `${field}: Porch lists ${show(porchSays)}, porch-discovery.ts reads ${show(oursSays)}`);
  }
  return differences;
}

/** The commit a ref names in a bare repository now, or undefined. */
function refNow(path: string, ref: string): string | undefined {
  const run = spawnSync('git', ['--git-dir', path, 'rev-parse', '--verify', '-q', `${ref}^{commit}`], { encoding: 'utf8' });
  return run.status === 0 ? run.stdout.trim() : undefined;
}

/** The annotation of a plan's commit that belongs to a package revision of `pkgpath`. */
function annotationOf(commit: NewCommit, pkgpath: string) {
  return annotations(commit.message).find((a) => a.package === pkgpath);
}

/**
 * The first task Porch would find for `workspace`, from the plan's own commits reachable from
 * `start`: walking back, the oldest clone, init, edit or upgrade after (or at) the newest clone or
 * init. Undefined where the plan's commits hold none (it lies in history the plan did not write).
 */
function plannedFirstTask(commits: readonly NewCommit[], start: number, pkgpath: string, workspace: string): unknown {
  const reachable = new Set<number>();
  const visit = [start];
  while (visit.length) {
    const i = visit.pop()!;
    if (reachable.has(i)) continue;
    reachable.add(i);
    for (const parent of commits[i]!.parents) if (typeof parent === 'number') visit.push(parent);
  }
  const firsts = [...reachable]
    .sort((a, b) => b - a)
    .map((i) => annotationOf(commits[i]!, pkgpath))
    .filter((a) => a?.workspaceName === workspace && a.task && ['clone', 'init', 'edit', 'upgrade'].includes(a.task.type!));
  const stop = firsts.findIndex((a) => a!.task!.type === 'clone' || a!.task!.type === 'init');
  const upTo = stop === -1 ? firsts : firsts.slice(0, stop + 1);
  return upTo.at(-1)?.task;
}

/** The upstream lock a Kptfile text records, as Porch's API shows it. */
function lockOf(kptfile: string): PorchLock | undefined {
  const git = (parse(kptfile) as { upstreamLock?: { git?: PorchLock } } | null)?.upstreamLock?.git;
  if (!git) return undefined;
  return Object.fromEntries(Object.entries({ repo: git.repo, directory: git.directory, ref: git.ref, commit: git.commit }).filter(([, v]) => v !== undefined && v !== ''));
}

/** Compares one package revision the plan wrote with what Porch lists under its name. */
function checkWritten(differ: (name: string, detail: string) => void, porch: readonly PorchRevision[], name: string, expected: { lifecycle: string; revision: number; commit?: string; latest?: boolean; task?: unknown; kptfile?: string }): void {
  const listed = porch.filter((r) => r.name === name);
  if (listed.length === 0) {
    differ(name, `the plan wrote it (${expected.lifecycle}), Porch does not list it`);
    return;
  }
  const theirs = listed.find((r) => r.lifecycle === expected.lifecycle) ?? listed[0]!;
  if (theirs.lifecycle !== expected.lifecycle) differ(name, `lifecycle: Porch lists ${theirs.lifecycle}, the plan wrote ${expected.lifecycle}`);
  if (theirs.revision !== expected.revision) differ(name, `revision: Porch lists ${theirs.revision}, the plan wrote ${expected.revision}`);
  if (expected.commit !== undefined && theirs.commit !== expected.commit) differ(name, `commit: Porch lists ${theirs.commit}, the plan pushed ${expected.commit}`);
  if (expected.latest !== undefined && theirs.latest !== expected.latest) differ(name, `latest: Porch lists ${theirs.latest}, the plan's revision is the package's newest`);
  if (expected.task !== undefined && JSON.stringify(theirs.tasks[0]) !== JSON.stringify(expected.task)) differ(name, `first task: Porch lists ${show(theirs.tasks[0])}, the plan wrote ${show(expected.task)}`);
  if (expected.kptfile !== undefined) {
    if (theirs.kptfile !== expected.kptfile) differ(name, `Kptfile: Porch reads ${show(theirs.kptfile)}, the plan wrote ${show(expected.kptfile)}`);
    const lock = lockOf(expected.kptfile);
    if (JSON.stringify(theirs.upstreamLock) !== JSON.stringify(lock)) differ(name, `upstream lock: Porch lists ${show(theirs.upstreamLock)}, the plan's Kptfile records ${show(lock)}`);
  }
}

const kptfileOf = (commit: NewCommit | undefined): string | undefined => {
  const file = commit?.files?.get('Kptfile');
  return file ? file.bytes.toString('utf8') : undefined;
};

/** One repository's write of the plan, after its push, against Porch's listing of that repository. */
function againstWrite(listing: PorchListing, repository: JudgedRepository, write: RepositoryWrite): Difference[] {
  const porch = revisionsOf(listing, repository.name);
  const differences: Difference[] = [];
  const differ = (name: string, detail: string) => differences.push({ repository: repository.name, packageRevision: name, detail });
  const { commits, updates } = write;
  const commitAt = (target: number | string | null) => (typeof target === 'number' ? commits[target] : undefined);
  const branch = `refs/heads/${repository.branch ?? 'main'}`;
  for (const update of updates) {
    const pushed = refNow(repository.path, update.ref);
    const draft = /^refs\/heads\/(drafts|proposed)\/(.+)\/([^/]+)$/.exec(update.ref);
    const tag = /^refs\/tags\/(.+)\/v(\d+)$/.exec(update.ref);
    const deletion = /^refs\/heads\/deletionProposed\/(.+)\/v(\d+)$/.exec(update.ref);
    if (draft) {
      const [, kind, pkgpath, workspace] = draft as unknown as [string, string, string, string];
      const name = porchName(repository, pkgpath, workspace);
      const lifecycle = kind === 'drafts' ? 'Draft' : 'Proposed';
      if (update.target === null) {
        if (porch.some((r) => r.name === name && r.lifecycle === lifecycle)) differ(name, `the plan removed ${update.ref}, Porch still lists it ${lifecycle}`);
        continue;
      }
      const task = typeof update.target === 'number' ? plannedFirstTask(commits, update.target, pkgpath, workspace) : undefined;
      checkWritten(differ, porch, name, { lifecycle, revision: 0, commit: pushed, task, kptfile: kptfileOf(commitAt(update.target)) });
    } else if (tag) {
      const [, pkgpath, number] = tag as unknown as [string, string, string];
      const revision = Number(number);
      if (update.target === null) {
        const left = porch.find((r) => r.package === porchPackage(repository, pkgpath) && r.revision === revision);
        if (left) differ(left.name, `the plan removed ${update.ref}, Porch still lists revision ${revision}`);
        continue;
      }
      const approval = commitAt(update.target);
      const workspace = approval ? annotationOf(approval, pkgpath)?.workspaceName : undefined;
      const listed = porch.find((r) => r.revision === revision && r.commit === pushed);
      const name = workspace ? porchName(repository, pkgpath, workspace) : (listed?.name ?? porchName(repository, pkgpath, `v${revision}`));
      const proposedDeletion = updates.some((u) => u.ref === `refs/heads/deletionProposed/${pkgpath}/v${revision}` && u.target !== null);
      const task = typeof update.target === 'number' && workspace ? plannedFirstTask(commits, update.target, pkgpath, workspace) : undefined;
      checkWritten(differ, porch, name, { lifecycle: proposedDeletion ? 'DeletionProposed' : 'Published', revision, commit: pushed, latest: true, task, kptfile: kptfileOf(approval) });
    } else if (deletion) {
      const [, pkgpath, number] = deletion as unknown as [string, string, string];
      const revision = Number(number);
      const tagged = refNow(repository.path, `refs/tags/${pkgpath}/v${revision}`);
      const listed = porch.find((r) => r.commit === tagged && r.revision === revision);
      if (!tagged) continue;
      const name = listed?.name ?? `${pkgpath}/v${revision}`;
      const expected = update.target === null ? 'Published' : 'DeletionProposed';
      if (!listed) differ(name, `the plan ${update.target === null ? 'removed' : 'wrote'} ${update.ref}, Porch lists no revision ${revision} tagged ${pkgpath}/v${revision}`);
      else if (listed.lifecycle !== expected) differ(name, `lifecycle: Porch lists ${listed.lifecycle}, the plan's ${update.ref} makes it ${expected}`);
    } else if (update.ref === branch && typeof update.target === 'number') {
      // The plan's new commits on the branch, by first parents; Porch's revision of the branch holds each package as the last of them left it.
      const onBranch: NewCommit[] = [];
      for (let i: number | string | undefined = update.target; typeof i === 'number'; i = commits[i]!.parents[0]) onBranch.unshift(commits[i]!);
      const last = new Map(onBranch.map((commit) => [commit.directory, commit] as const));
      for (const [pkgpath, commit] of last) {
        const name = porchName(repository, pkgpath, repository.branch ?? 'main');
        const kptfile = kptfileOf(commit);
        if (kptfile === undefined) {
          if (porch.some((r) => r.name === name)) differ(name, `the plan deleted ${pkgpath} from ${update.ref}, Porch still lists it`);
          continue;
        }
        checkWritten(differ, porch, name, { lifecycle: 'Published', revision: -1, commit: pushed, kptfile });
      }
    }
  }
  return differences;
}

/** sync's plan, once written, against Porch's listing: every repository it wrote, every PackageRevision it names. */
export function againstPlan(listing: PorchListing, repositories: readonly JudgedRepository[], plan: SyncPlan): Difference[] {
  const differences: Difference[] = [];
  for (const write of plan.writes) {
    const name = write.repository.slice(write.repository.indexOf('/') + 1);
    const repository = repositories.find((r) => r.name === name);
    if (repository) differences.push(...againstWrite(listing, repository, write));
  }
  for (const entry of plan.downstreams) {
    for (const target of entry.targets ?? []) {
      if (!revisionsOf(listing, entry.repository).some((r) => r.name === target)) differences.push({ repository: entry.repository, packageRevision: target, detail: `the plan names it a target of ${entry.variant} (${entry.action}), Porch does not list it` });
    }
  }
  return differences;
}

/** The PackageRevisions `--status-out` names, against Porch's listing. */
export function againstStatus(listing: PorchListing, statusYaml: string): Difference[] {
  const differences: Difference[] = [];
  const all = listing.repositories.flatMap((r) => r.packageRevisions);
  for (const doc of parseAllDocuments(statusYaml)) {
    const object = doc.toJS() as { kind?: string; metadata?: { name?: string }; spec?: { downstream?: { repo?: string } }; status?: { downstreamTargets?: { name: string }[] } } | null;
    for (const { name } of object?.status?.downstreamTargets ?? []) {
      if (!all.some((r) => r.name === name)) differences.push({ repository: object?.spec?.downstream?.repo ?? name.split('.')[0]!, packageRevision: name, detail: `--status-out names it a downstream target of ${object?.kind} ${object?.metadata?.name}, Porch does not list it` });
    }
  }
  return differences;
}
