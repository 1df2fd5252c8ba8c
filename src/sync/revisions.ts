/**
 * The package revisions of a fleet's repositories as `porchctl rpkg get` lists them, and porchctl's
 * lifecycle verbs as git writes: `propose`, `approve`, `reject` and `propose-delete` move the refs
 * and make the commits Porch's server makes for them (porch-lifecycle.md §7), planned whole for
 * every repository before anything is pushed. A verb acts on the revisions the user names, or with
 * `all` on every revision a variant of the fleet owns that it applies to: the drafts and proposals
 * sync made, the published revisions that record an owner. A person's draft beside them, even one
 * copied with sync's Kptfile annotations, is touched only when named.
 */
import { withoutCredentials } from '../git/remote-url';
import { deletionProposedBranch, draftBranch, packageRevisionName, proposedBranch, publishedTag } from './porch-refs';
import type { Action, PlannedDownstream, RefUpdate, RepositoryWrite, SyncPlan } from './plan';
import { readPackageStates } from './repository-state';
import { repositoryKey, type SyncRepository } from './repositories';
import type { Repositories, Opened } from './opened';
import { RepositoryAccessError } from './settings';
import { latestPublished, nextRevision, type PackageState, type RevisionState } from './state';
import { withBranchEdits } from './branch-edits';
import { approvalCommit } from './written';
import type { NewCommit } from '../git/fast-import';

/** A PackageRevision's lifecycle as Porch's API spells it. */
export type PorchLifecycle = 'Draft' | 'Proposed' | 'Published' | 'DeletionProposed';

export interface RevisionRow {
  /** porchctl's NAME: `<repository>.<package>.<workspace>`. */
  readonly name: string;
  /** The package's path below the Repository's directory. */
  readonly pkg: string;
  readonly workspace: string;
  /** The revision number; 0 for a draft or proposal, -1 for the branch's placeholder. */
  readonly revision: number;
  readonly latest: boolean;
  readonly lifecycle: PorchLifecycle;
  readonly repository: SyncRepository;
  readonly pkgpath: string;
  readonly state: PackageState;
  readonly at: RevisionState;
}

export interface RevisionListing {
  readonly rows: RevisionRow[];
  /** Repositories that could not be read, each message naming its repository. */
  readonly problems: string[];
  /** The repositories read, to plan a verb on. */
  readonly opened: ReadonlyMap<string, Opened>;
}

const packageOf = (repository: SyncRepository, pkgpath: string): string => (repository.directory ? pkgpath.slice(repository.directory.length + 1) : pkgpath);

function lifecycleOf(revision: RevisionState): PorchLifecycle {
  if (revision.lifecycle === 'draft') return 'Draft';
  if (revision.lifecycle === 'proposed') return 'Proposed';
  return revision.deletionProposed ? 'DeletionProposed' : 'Published';
}

function rowsOf(repository: SyncRepository, state: PackageState): RevisionRow[] {
  const pkg = packageOf(repository, state.pkgpath);
  const latest = latestPublished(state);
  const row = (at: RevisionState): RevisionRow => ({
    name: packageRevisionName(repository.name, pkg, at.workspace),
    pkg,
    workspace: at.workspace,
    revision: at.revision,
    latest: at === latest,
    lifecycle: lifecycleOf(at),
    repository,
    pkgpath: state.pkgpath,
    state,
    at,
  });
  return [...state.revisions.map(row), ...(state.branch ? [row(state.branch)] : [])];
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Every package revision of `repositories`, in repository, package and name order. */
export async function listRevisions(repositories: readonly SyncRepository[], repositoriesOpened: Repositories): Promise<RevisionListing> {
  const rows: RevisionRow[] = [];
  const problems: string[] = [];
  const opened = new Map<string, Opened>();
  for (const repository of [...repositories].sort((a, b) => byText(repositoryKey(a.namespace, a.name), repositoryKey(b.namespace, b.name)))) {
    let own: Opened;
    try {
      own = await repositoriesOpened.get(repository);
    } catch (error) {
      if (!(error instanceof RepositoryAccessError)) throw error;
      problems.push(error.message);
      continue;
    }
    opened.set(repositoryKey(repository.namespace, repository.name), own);
    const { states } = await readPackageStates(own.remote, repository, own.listing, new Set());
    for (const state of [...states.values()].sort((a, b) => byText(a.pkgpath, b.pkgpath))) rows.push(...rowsOf(repository, state).sort((a, b) => byText(a.name, b.name)));
  }
  return { rows, problems, opened };
}

export type Verb = 'propose' | 'approve' | 'reject' | 'propose-delete';

/** The lifecycles each verb takes a revision from (porchctl's own checks). */
const TAKES: Record<Verb, readonly PorchLifecycle[]> = { propose: ['Draft'], approve: ['Proposed'], reject: ['Proposed', 'DeletionProposed'], 'propose-delete': ['Published'] };

/** Names that match no revision, or a revision the verb does not take: nothing is planned. */
export class VerbError extends Error {}

/** The revisions a verb acts on: those named (each must exist and be in a lifecycle it takes), or with `all` every owned one it takes. */
function selected(verb: Verb, rows: readonly RevisionRow[], names: readonly string[] | 'all'): RevisionRow[] {
  const takes = (row: RevisionRow) => TAKES[verb].includes(row.lifecycle) && row.revision !== -1;
  const owned = (row: RevisionRow) => (row.at.lifecycle === 'published' ? row.at.kptfile?.owner !== undefined : row.at.madeBySync === true);
  if (names === 'all') return rows.filter((row) => takes(row) && owned(row));
  const problems: string[] = [];
  const picked: RevisionRow[] = [];
  for (const name of new Set(names)) {
    const matches = rows.filter((row) => row.name === name && row.revision !== -1);
    if (matches.length === 0) problems.push(`no package revision ${name} in the fleet's repositories (package-variant rpkg get lists them)`);
    else if (matches.length > 1) problems.push(`${name} names a revision in ${matches.length} repositories of the same name in different namespaces`);
    else if (!takes(matches[0]!)) problems.push(`${name} is ${matches[0]!.lifecycle}: ${verb} takes ${TAKES[verb].join(' or ')} revisions`);
    else picked.push(matches[0]!);
  }
  if (problems.length) throw new VerbError(problems.join('\n'));
  return picked;
}

const heads = (ref: string) => ref.replace(/^refs\/heads\//, '');

/** What `verb` writes for `rows` of one repository: refs moved as Porch moves them, approvals as merge commits on the branch. */
async function repositoryWork(verb: Verb, rows: readonly RevisionRow[], own: Opened, diff: boolean): Promise<{ entries: PlannedDownstream[]; commits: NewCommit[]; updates: RefUpdate[] }> {
  const repository = rows[0]!.repository;
  const head = own.remote.refs.get(`refs/heads/${repository.branch}`);
  const entries: PlannedDownstream[] = [];
  const commits: NewCommit[] = [];
  const updates: RefUpdate[] = [];
  let branchTip: string | number | undefined = head;
  const entry = (row: RevisionRow, action: Action, refs: string[]): PlannedDownstream => ({
    repository: repository.name,
    pkg: row.pkg,
    variant: row.at.kptfile?.owner ?? '',
    action,
    detail: `${row.lifecycle.toLowerCase()} ${row.name}`,
    refs,
    results: [],
  });
  for (const row of rows) {
    const { at, pkgpath } = row;
    if (verb === 'propose') {
      const proposed = `refs/heads/${proposedBranch(pkgpath, at.workspace)}`;
      updates.push({ ref: proposed, expected: undefined, target: at.commit }, { ref: at.ref, expected: at.commit, target: null });
      entries.push(entry(row, 'propose', [heads(proposed)]));
    } else if (verb === 'reject' && row.lifecycle === 'Proposed') {
      const draft = `refs/heads/${draftBranch(pkgpath, at.workspace)}`;
      updates.push({ ref: draft, expected: undefined, target: at.commit }, { ref: at.ref, expected: at.commit, target: null });
      entries.push(entry(row, 'reject', [heads(draft)]));
    } else if (verb === 'reject') {
      const branch = `refs/heads/${deletionProposedBranch(pkgpath, at.revision)}`;
      updates.push({ ref: branch, expected: at.commit, target: null });
      entries.push(entry(row, 'restore', [`-${heads(branch)}`]));
    } else if (verb === 'propose-delete') {
      const branch = `refs/heads/${deletionProposedBranch(pkgpath, at.revision)}`;
      updates.push({ ref: branch, expected: undefined, target: at.commit });
      entries.push(entry(row, 'propose-delete', [heads(branch)]));
    } else {
      if (branchTip === undefined) throw new VerbError(`Repository ${repository.name} has no branch ${repository.branch} in ${withoutCredentials(repository.url)} to approve ${row.name} on`);
      const tree = await own.tree({ commit: at.commit, directory: pkgpath });
      // Two proposals of one package approved in one run take consecutive numbers.
      const revision = nextRevision(row.state) + commits.filter((c) => c.directory === pkgpath).length;
      commits.push(approvalCommit(pkgpath, at.workspace, revision, tree, [branchTip, at.commit]));
      branchTip = commits.length - 1;
      const tag = publishedTag(pkgpath, revision);
      updates.push({ ref: `refs/tags/${tag}`, expected: undefined, target: branchTip }, { ref: at.ref, expected: at.commit, target: null });
      const approved = entry(row, 'publish', [repository.branch, `tag ${tag}`]);
      entries.push(await withBranchEdits(approved, pkgpath, repository.branch, row.state, head!, tree, diff, own));
    }
  }
  if (head !== undefined && branchTip !== head) updates.push({ ref: `refs/heads/${repository.branch}`, expected: head, target: branchTip! });
  return { entries, commits, updates };
}

/** The plan of `verb` on the revisions named (or `all` owned ones it takes), one write per repository. */
export async function planVerb(verb: Verb, listing: RevisionListing, names: readonly string[] | 'all', diff: boolean): Promise<SyncPlan> {
  const picked = selected(verb, listing.rows, names);
  const byRepository = new Map<string, RevisionRow[]>();
  for (const row of picked) {
    const key = repositoryKey(row.repository.namespace, row.repository.name);
    (byRepository.get(key) ?? byRepository.set(key, []).get(key)!).push(row);
  }
  const downstreams: PlannedDownstream[] = [];
  const writes: RepositoryWrite[] = [];
  for (const [key, rows] of byRepository) {
    const work = await repositoryWork(verb, rows, listing.opened.get(key)!, diff);
    downstreams.push(...work.entries);
    writes.push({ repository: key, url: rows[0]!.repository.url, commits: work.commits, updates: work.updates });
  }
  return { downstreams, writes, problems: listing.problems.map((message) => ({ message, severity: 'error' })) };
}
