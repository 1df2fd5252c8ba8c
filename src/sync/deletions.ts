/**
 * Packages a variant no longer asks for (porch-lifecycle.md §5, as issue 22 decides it): a package
 * in a Repository given whose recorded owner does not ask for it there any more (the variant
 * removed, a set's target no longer selected, a Repository's labels changed). The deletion policy
 * recorded with the package decides:
 * - `delete`: the drafts and proposals sync made go (anyone else's stay, named in the plan), and the
 *   deletion of each published revision is proposed
 *   (`deletionProposed/<pkg>/v<N>`, as Porch); `--approve-deletions` then removes the tags, those
 *   branches and, in a commit on the Repository's branch, the package's directory;
 * - `orphan`: everything stays, and the claim goes: the package is written again without sync's
 *   ownership record (a new draft from its latest published revision, or a commit on its newest
 *   draft), so that another variant may adopt it.
 * Only owners in the namespaces of the run's variants and sets are considered: two teams' fleets may
 * share a repository. Nothing is written without `--allow-delete` (`--approve-deletions` alone finishes deletions
 * already proposed); the plan lists what would go. A variant that asks for its package again takes
 * back the proposal of its deletion.
 */
import type { NewCommit } from '../git/fast-import';
import type { PackageTree } from '../package/tree';
import { recordedOwner } from './decide';
import { DELETION_POLICY_ANNOTATION, leftAlone, OWNER_ANNOTATION, withSyncRecord } from './ownership';
import { deletionMessage, draftMessage, editTask, MESSAGES } from './porch-commits';
import { deletionProposedBranch, draftBranch, nextVariantWorkspace, packageRevisionName } from './porch-refs';
import type { Action, PlannedDownstream, RefUpdate } from './plan';
import type { SyncRepository } from './repositories';
import { RepositoryAccessError, selects, type DownstreamSelector } from './settings';
import { foreignDrafts, latestPublished, unpublished, type PackageState } from './state';
import { PackageResources, ResourceFileError } from '../package/resource-files';
import { KPTFILE } from '../package/scopes';

export interface DeletionSettings {
  readonly allowDelete: boolean;
  readonly approveDeletions: boolean;
  /**
   * The namespaces the run's PackageVariants and sets are in: the owners it speaks for. A package
   * whose owner is in another namespace is another team's (their fleet, their runs), as a cluster's
   * namespaces keep teams apart; it is left alone and not listed.
   */
  readonly namespaces: ReadonlySet<string>;
  /** `--only`: the packages a run is limited to; the others are not looked at. */
  readonly only?: readonly DownstreamSelector[];
}

/** The namespace of an owner as ownerOf writes it (`<kind>/<namespace>/<name>`); undefined for any other text. */
const ownerNamespace = (owner: string): string | undefined => /^PackageVariant(?:Set)?\/([^/]+)\/[^/]+$/.exec(owner)?.[1];

export interface DeletionWork {
  readonly entries: PlannedDownstream[];
  readonly commits: NewCommit[];
  readonly updates: RefUpdate[];
}

/** The package's name in its Repository: its path below the Repository's directory. */
const packageOf = (repository: SyncRepository, pkgpath: string): string => (repository.directory ? pkgpath.slice(repository.directory.length + 1) : pkgpath);

const heads = (ref: string) => ref.replace(/^refs\/heads\//, '');

/** The package without sync's ownership record on its root Kptfile. */
function withoutOwnership(tree: PackageTree): PackageTree {
  const resources = PackageResources.read(tree);
  const kptfile = resources.items.find((item) => item.isKptfile && item.path === KPTFILE);
  if (!kptfile) return tree;
  kptfile.removeAnnotation(OWNER_ANNOTATION);
  kptfile.removeAnnotation(DELETION_POLICY_ANNOTATION);
  return kptfile.isChanged ? resources.written(resources.items) : tree;
}

/**
 * What a repository's packages that their owners no longer ask for come to. `wanted` maps each
 * package path the inputs ask for in this repository to the owner that asks; `tree` reads a package
 * at a commit (for an orphan's new revision); `head` is the Repository's branch as fetched (a new
 * draft's parent) and `branchTip` where a deletion commit goes on it (the approvals of this run may
 * have moved it); `offset` where this work's commits start in the repository's list.
 */
export async function planDeletions(
  repository: SyncRepository,
  states: ReadonlyMap<string, PackageState>,
  wanted: ReadonlyMap<string, string>,
  settings: DeletionSettings,
  tree: (commit: string, pkgpath: string) => Promise<PackageTree>,
  head: string,
  tip: string | number,
  offset: number,
): Promise<DeletionWork & { branchTip: string | number }> {
  const work: DeletionWork = { entries: [], commits: [], updates: [] };
  let branchTip = tip;
  for (const [pkgpath, state] of [...states].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const owner = recordedOwner(state);
    if (owner === undefined || wanted.get(pkgpath) === owner || !settings.namespaces.has(ownerNamespace(owner) ?? '')) continue;
    if (!selects(settings.only, repository.name, packageOf(repository, pkgpath))) continue;
    const newest = unpublished(state)[0] ?? latestPublished(state);
    const policy = newest?.kptfile?.deletionPolicy ?? 'delete';
    const others = leftAlone(foreignDrafts(state), (r) => packageRevisionName(repository.name, packageOf(repository, pkgpath), r.workspace));
    const entry = (action: Action, detail: string, refs: string[] = []): PlannedDownstream => ({
      repository: repository.name,
      pkg: packageOf(repository, pkgpath),
      variant: owner,
      action,
      detail: others && action !== 'invalid' ? `${detail}; ${others}` : detail,
      refs,
      results: [],
    });
    if (state.unreadable) {
      work.entries.push(entry('invalid', state.unreadable));
      continue;
    }
    const gone = `${owner} no longer asks for it`;
    if (policy === 'orphan') {
      if (!settings.allowDelete) {
        work.entries.push(entry('orphan', `${gone}; deletionPolicy orphan: its ownership record would be dropped and the package left as it is (--allow-delete drops it)`));
        continue;
      }
      const from = newest!;
      let stripped: PackageTree;
      try {
        stripped = withoutOwnership(await tree(from.commit, pkgpath));
      } catch (error) {
        if (!(error instanceof ResourceFileError || error instanceof RepositoryAccessError)) throw error;
        work.entries.push(entry('invalid', `${gone}; deletionPolicy orphan: ${from.workspace} cannot be read: ${error.message}`));
        continue;
      }
      const index = offset + work.commits.length;
      if (from.lifecycle === 'published') {
        const workspace = nextVariantWorkspace(state.revisions.map((r) => r.workspace));
        const task = editTask(packageRevisionName(repository.name, packageOf(repository, pkgpath), from.workspace));
        // A draft sync makes: its record goes with it, or the next run would take the draft for someone else's.
        work.commits.push({ parents: [head], message: withSyncRecord(draftMessage(MESSAGES.edit, { package: pkgpath, workspaceName: workspace, revision: '0', task })), directory: pkgpath, files: stripped.files });
        work.updates.push({ ref: `refs/heads/${draftBranch(pkgpath, workspace)}`, expected: undefined, target: index });
        work.entries.push(entry('orphan', `${gone}; deletionPolicy orphan: left in place, its ownership record dropped in a new draft`, [draftBranch(pkgpath, workspace)]));
      } else {
        work.commits.push({ parents: [from.commit], message: draftMessage(MESSAGES.render, { package: pkgpath, workspaceName: from.workspace, revision: '0', task: { type: 'render' } }), directory: pkgpath, files: stripped.files });
        work.updates.push({ ref: from.ref, expected: from.commit, target: index });
        work.entries.push(entry('orphan', `${gone}; deletionPolicy orphan: left in place, its ownership record dropped on ${from.lifecycle} ${from.workspace}`, [heads(from.ref)]));
      }
      continue;
    }
    // delete
    const published = state.revisions.filter((r) => r.lifecycle === 'published' && r.revision > 0);
    const unproposed = published.filter((r) => !r.deletionProposed);
    const drafts = unpublished(state);
    const finish = settings.approveDeletions && (settings.allowDelete || (drafts.length === 0 && unproposed.length === 0));
    if (finish) {
      const refs: string[] = [];
      for (const draft of drafts) {
        work.updates.push({ ref: draft.ref, expected: draft.commit, target: null });
        refs.push(`-${heads(draft.ref)}`);
      }
      for (const revision of published) {
        work.updates.push({ ref: revision.ref, expected: revision.commit, target: null });
        refs.push(`-tag ${revision.ref.slice('refs/tags/'.length)}`);
        if (!revision.deletionProposed) continue;
        const branch = `refs/heads/${deletionProposedBranch(pkgpath, revision.revision)}`;
        work.updates.push({ ref: branch, expected: revision.commit, target: null });
        refs.push(`-${heads(branch)}`);
      }
      if (state.branch) {
        work.commits.push({ parents: [branchTip], message: deletionMessage(pkgpath), directory: pkgpath });
        branchTip = offset + work.commits.length - 1;
        refs.push(`${repository.branch} (directory removed)`);
      }
      work.entries.push(entry('delete', `${gone}; deletionPolicy delete: its revisions, tags and directory removed`, refs));
      continue;
    }
    if (drafts.length === 0 && unproposed.length === 0) {
      work.entries.push(entry('deletion-proposed', `${gone}; the deletion of ${published.map((r) => `v${r.revision}`).join(', ')} is proposed: --approve-deletions removes the tags and the directory`));
      continue;
    }
    const refs = [...drafts.map((d) => `-${heads(d.ref)}`), ...unproposed.map((r) => deletionProposedBranch(pkgpath, r.revision))];
    if (!settings.allowDelete) {
      work.entries.push(entry('delete', `${gone}; deletionPolicy delete: would remove its drafts and proposals and propose the deletion of its published revisions (--allow-delete does)`, refs));
      continue;
    }
    for (const draft of drafts) work.updates.push({ ref: draft.ref, expected: draft.commit, target: null });
    for (const revision of unproposed) work.updates.push({ ref: `refs/heads/${deletionProposedBranch(pkgpath, revision.revision)}`, expected: undefined, target: revision.commit });
    work.entries.push(entry('delete', `${gone}; deletionPolicy delete: drafts and proposals removed, deletion of its published revisions proposed (--approve-deletions removes them)`, refs));
  }
  return { ...work, branchTip };
}

/** The proposals of deletion a variant takes back when it asks for its package again (Porch sets them back to Published). */
export function unproposals(state: PackageState | undefined, pkgpath: string): RefUpdate[] {
  return (state?.revisions ?? [])
    .filter((r) => r.lifecycle === 'published' && r.deletionProposed)
    .map((r) => ({ ref: `refs/heads/${deletionProposedBranch(pkgpath, r.revision)}`, expected: r.commit, target: null }));
}
