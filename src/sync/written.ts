/**
 * What one downstream adds to its repository's write, and how it shows in the plan: the commits of
 * a draft outcome with Porch's annotation on each, the refs of the lifecycle asked for, the plan's
 * line with its diff and the PackageRevisions that stand for the downstream.
 */
import { planDiff } from '../disk/plan-diff';
import { planUpdate } from '../disk/plan';
import type { NewCommit } from '../git/fast-import';
import type { Result } from '../krm/results';
import { PackageTree } from '../package/tree';
import type { DesiredDownstream } from './desired';
import type { DraftOutcome } from './drafts';
import { withSyncRecord } from './ownership';
import { annotatedMessage, approvalMessage, draftMessage } from './porch-commits';
import { draftBranch, packageRevisionName, proposedBranch } from './porch-refs';
import type { Action, PlannedDownstream, RefUpdate } from './plan';
import type { Lifecycle, RevisionState } from './state';
import type { SyncSettings } from './settings';

/** What one downstream adds to its repository's write. */
export interface Written {
  readonly entry: PlannedDownstream;
  readonly commits: NewCommit[];
  readonly updates: RefUpdate[];
  /** The tip to publish (an index into `commits`, or a commit name) with the tree it holds, for --lifecycle published. */
  readonly publish?: { readonly tip: number | string; readonly tree: PackageTree; readonly workspace: string; readonly from?: RevisionState };
}

export const entryOf = (d: DesiredDownstream, action: Action, detail: string, results: readonly Result[] = [], refs: string[] = []): PlannedDownstream => ({
  repository: d.repository.name,
  pkg: d.pkg,
  variant: d.label,
  action,
  detail,
  refs,
  results,
});

export function packageCommit(pkgpath: string, tree: PackageTree, message: string, parents: (string | number)[]): NewCommit {
  return { parents, message, directory: pkgpath, files: tree.files };
}

/**
 * Porch's approval (porch-lifecycle.md §7.2): a merge commit on the branch, parents [branch tip,
 * revision tip], holding the branch's tree with the package's directory replaced.
 */
export function approvalCommit(pkgpath: string, workspace: string, revision: number, tree: PackageTree, parents: [string | number, string | number]): NewCommit {
  const message = annotatedMessage(approvalMessage(pkgpath, revision), { package: pkgpath, workspaceName: workspace, revision: String(revision) });
  return packageCommit(pkgpath, tree, message, parents);
}

/** The commits of a draft outcome, chained from `parent`, with Porch's annotation on each; when they `start` a draft, sync's record on the first. */
export function draftCommits(d: DesiredDownstream, outcome: Extract<DraftOutcome, { kind: 'commits' }>, parent: string, workspace: string, offset: number, start: boolean): NewCommit[] {
  return outcome.commits.map((commit, i) => {
    const message = draftMessage(commit.message, { package: d.pkgpath, workspaceName: workspace, revision: '0', task: commit.task });
    return packageCommit(d.pkgpath, commit.tree, start && i === 0 ? withSyncRecord(message) : message, [i === 0 ? parent : offset + i - 1]);
  });
}

/** Porch's lifecycles in the order a revision moves through them. */
const LIFECYCLE_ORDER: readonly Lifecycle[] = ['draft', 'proposed', 'published'];

/** The refs of a revision in the lifecycle asked for: a draft branch, or a proposal branch; published ones go through approval. */
export function lifecycleRefs(d: DesiredDownstream, lifecycle: Lifecycle, workspace: string, tip: number | string, existing: RevisionState | undefined): RefUpdate[] {
  const draft = `refs/heads/${draftBranch(d.pkgpath, workspace)}`;
  const proposed = `refs/heads/${proposedBranch(d.pkgpath, workspace)}`;
  const updates: RefUpdate[] = [];
  const keep = lifecycle === 'draft' ? draft : lifecycle === 'proposed' ? proposed : undefined;
  if (keep) updates.push({ ref: keep, expected: existing?.ref === keep ? existing.commit : undefined, target: tip });
  if (existing && existing.ref !== keep) updates.push({ ref: existing.ref, expected: existing.commit, target: null });
  return updates;
}

export const shortRef = (ref: string): string => ref.replace(/^refs\/heads\//, '').replace(/^refs\/tags\//, 'tag ');

export const nothing = (d: DesiredDownstream, action: Action, detail: string, results: readonly Result[] = []): Written => ({ entry: entryOf(d, action, detail, results), commits: [], updates: [] });

export const publishedNameOf = (d: DesiredDownstream, revision: RevisionState): string => packageRevisionName(d.repository.name, d.pkg, revision.workspace);

export function settled(d: DesiredDownstream, outcome: DraftOutcome): Written | undefined {
  if (outcome.kind === 'not-converging') return { entry: entryOf(d, 'not-converging', 'mutating the rendered package changes it again: the variant and the pipeline undo each other; nothing is written', outcome.results), commits: [], updates: [] };
  if (outcome.kind === 'failed') return { entry: entryOf(d, 'invalid', 'the merge fails', outcome.results), commits: [], updates: [] };
  return undefined;
}

/** The new revision against what it derives from, paths relative to the repository. */
export function diffOf(pkgpath: string, before: PackageTree, after: PackageTree): string {
  const inRepository = (tree: PackageTree) => PackageTree.empty().withSubtree(pkgpath, tree);
  return planDiff(planUpdate('', inRepository(before), inRepository(after)));
}

/** `current`: the published revision that stands for the downstream when nothing is written. */
export function newDraft(d: DesiredDownstream, action: Action, detail: string, outcome: DraftOutcome, head: string, offset: number, workspace: string, settings: SyncSettings, base: PackageTree | undefined, current?: string): Written {
  const stop = settled(d, outcome);
  if (stop) return stop;
  if (outcome.kind === 'unchanged') return { entry: { ...entryOf(d, 'unchanged', '', outcome.results), ...(current ? { targets: [current] } : {}) }, commits: [], updates: [] };
  if (outcome.kind !== 'commits') throw new Error('unreachable');
  const commits = draftCommits(d, outcome, head, workspace, offset, true);
  const tip = offset + commits.length - 1;
  const final = outcome.commits[outcome.commits.length - 1]!.tree;
  const updates = lifecycleRefs(d, settings.lifecycle, workspace, tip, undefined);
  const entry = { ...entryOf(d, action, detail, outcome.results, updates.map((u) => shortRef(u.ref))), targets: [packageRevisionName(d.repository.name, d.pkg, workspace)] };
  const withDiff = settings.diff ? { ...entry, diff: diffOf(d.pkgpath, base ?? outcome.base, final) } : entry;
  return { entry: withDiff, commits, updates, ...(settings.lifecycle === 'published' ? { publish: { tip, tree: final, workspace } } : {}) };
}

export function existingDraft(d: DesiredDownstream, existing: RevisionState, name: string, outcome: DraftOutcome, offset: number, settings: SyncSettings, tree: PackageTree): Written {
  const stop = settled(d, outcome);
  if (stop) return stop;
  const commits = outcome.kind === 'commits' ? draftCommits(d, outcome, existing.commit, existing.workspace, offset, false) : [];
  const tip: number | string = commits.length ? offset + commits.length - 1 : existing.commit;
  const final = outcome.kind === 'commits' ? outcome.commits[outcome.commits.length - 1]!.tree : tree;
  // --lifecycle only moves a revision forward, as Porch's lifecycle does: a proposal stays proposed
  // under a run that asks for drafts (a scheduled plain sync must not withdraw what awaits approval).
  const lifecycle = LIFECYCLE_ORDER.indexOf(settings.lifecycle) > LIFECYCLE_ORDER.indexOf(existing.lifecycle) ? settings.lifecycle : existing.lifecycle;
  if (commits.length === 0 && lifecycle === existing.lifecycle) return { entry: { ...entryOf(d, 'unchanged', `${existing.lifecycle} ${name}`, outcome.results), targets: [name] }, commits: [], updates: [] };
  const updates = lifecycleRefs(d, lifecycle, existing.workspace, tip, existing);
  const action: Action = commits.length ? 'update' : lifecycle === 'proposed' ? 'propose' : 'publish';
  const entry = { ...entryOf(d, action, `${existing.lifecycle} ${name}`, outcome.results, updates.filter((u) => u.target !== null).map((u) => shortRef(u.ref))), targets: [name] };
  const withDiff = settings.diff && commits.length ? { ...entry, diff: diffOf(d.pkgpath, tree, final) } : entry;
  return { entry: withDiff, commits, updates, ...(lifecycle === 'published' ? { publish: { tip, tree: final, workspace: existing.workspace, from: existing } } : {}) };
}
