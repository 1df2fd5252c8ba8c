/**
 * One sync: the desired downstreams from the inputs, each repository fetched once, each
 * downstream decided and its commits computed in memory, the plan printed; then, unless it is a dry
 * run, each repository written with one atomic push (porch-lifecycle.md §11).
 */
import type { ConfigObject } from '../config/function-config';
import { RenderError } from '../disk/kpt-render';
import { planDiff } from '../disk/plan-diff';
import { planUpdate } from '../disk/plan';
import type { NewCommit } from '../git/fast-import';
import { withoutCredentials } from '../git/remote-url';
import { isFullSha } from '../git/repo-cache';
import { FunctionError, type Result } from '../krm/results';
import { PackageTree } from '../package/tree';
import { CloneError } from './clone';
import { decide, type Decision } from './decide';
import { desiredDownstreams, sameDownstream, type DesiredDownstream, type InvalidVariant } from './desired';
import { createDraft, editDraft, updateDraft, upgradeDraft, type DraftOutcome, type Mutations } from './drafts';
import type { SyncInputs } from './inputs';
import { approvalMessage, annotatedMessage } from './porch-commits';
import { draftBranch, nextVariantWorkspace, packageRevisionName, proposedBranch, publishedTag } from './porch-refs';
import type { Action, PlannedDownstream, RefUpdate, RepositoryWrite, SyncPlan } from './plan';
import { readPackageStates, tagListing, type RepositoryReader } from './repository-state';
import { readRepositories, repositoryKey, type SyncRepository } from './repositories';
import type { Lifecycle, PackageState, RevisionState } from './state';
import { lockOf, resolveUpstream, tagWorkspace, UpstreamError, type TagListing, type UpstreamRevision } from './upstream';

export interface RemoteRepository extends RepositoryReader {
  /** Makes the commits (in order; parents may name earlier ones by index) and answers their names. */
  write(commits: readonly NewCommit[]): Promise<string[]>;
  /** One atomic push: every ref moved to its target (null: deleted) only if it still has its expected value. */
  push(updates: readonly { readonly ref: string; readonly expected: string | undefined; readonly target: string | null }[]): Promise<void>;
}

export interface SyncSettings {
  readonly lifecycle: Lifecycle;
  readonly diff: boolean;
  /** kpt fn render, or undefined with --no-render. */
  readonly render?: (tree: PackageTree, about: string) => Promise<PackageTree>;
  /** The repository, fetched: once per run however often it is asked for. */
  readonly open: (repository: SyncRepository) => Promise<RemoteRepository>;
}

/** A repository that cannot be fetched, read or written: the message names it. */
export class RepositoryAccessError extends Error {}

interface Opened {
  readonly remote: RemoteRepository;
  readonly listing: TagListing;
  /** A package at a commit, read once however many downstreams derive from it. */
  tree(commit: string, directory: string): Promise<PackageTree>;
}

function opened(remote: RemoteRepository, listing: TagListing): Opened {
  const trees = new Map<string, Promise<PackageTree>>();
  return {
    remote,
    listing,
    tree: (commit, directory) => {
      const key = `${commit}:${directory}`;
      if (!trees.has(key)) trees.set(key, remote.readTrees([{ commit, directory }]).then(([tree]) => tree!));
      return trees.get(key)!;
    },
  };
}

class Repositories {
  private readonly opened = new Map<string, Promise<Opened>>();

  constructor(private readonly settings: SyncSettings) {}

  get(repository: SyncRepository): Promise<Opened> {
    const key = repositoryKey(repository.namespace, repository.name);
    if (!this.opened.has(key)) {
      this.opened.set(
        key,
        this.settings.open(repository).then(async (remote) => opened(remote, await tagListing(remote))),
      );
    }
    return this.opened.get(key)!;
  }

  /** Every repository opened without error, by namespace/name. */
  async all(): Promise<Map<string, RemoteRepository>> {
    const out = new Map<string, RemoteRepository>();
    for (const [key, opening] of this.opened) {
      try {
        out.set(key, (await opening).remote);
      } catch {
        // Its downstreams already say why.
      }
    }
    return out;
  }
}

/** The PackageRevision objects of a set's upstream package, for its `upstream` CEL variable, as Porch would list them. */
async function upstreamRevisions(set: ConfigObject, repositories: ReadonlyMap<string, SyncRepository>, opened: Repositories): Promise<ConfigObject[]> {
  const spec = (set.spec ?? {}) as { upstream?: { repo?: string; package?: string } };
  const namespace = set.metadata.namespace || 'default';
  const repository = spec.upstream?.repo ? repositories.get(repositoryKey(namespace, spec.upstream.repo)) : undefined;
  if (!repository || !spec.upstream?.package) return [];
  const { listing } = await opened.get(repository);
  const pkgpath = repository.directory ? `${repository.directory}/${spec.upstream.package}` : spec.upstream.package;
  const objects: ConfigObject[] = [];
  for (const tag of listing.tags.keys()) {
    if (!tag.startsWith(`${pkgpath}/`) || tag.slice(pkgpath.length + 1).includes('/')) continue;
    const workspace = tagWorkspace(listing, pkgpath, tag);
    const version = tag.slice(pkgpath.length + 1);
    objects.push({
      apiVersion: 'porch.kpt.dev/v1alpha1',
      kind: 'PackageRevision',
      metadata: { name: packageRevisionName(repository.name, spec.upstream.package, workspace), namespace },
      spec: { packageName: spec.upstream.package, repository: repository.name, revision: /^v\d+$/.test(version) ? Number(version.slice(1)) : -1, workspaceName: workspace, lifecycle: 'Published' },
    });
  }
  return objects;
}

/** What one downstream adds to its repository's write. */
interface Written {
  readonly entry: PlannedDownstream;
  readonly commits: NewCommit[];
  readonly updates: RefUpdate[];
  /** The tip to publish (an index into `commits`, or a commit name) with the tree it holds, for --lifecycle published. */
  readonly publish?: { readonly tip: number | string; readonly tree: PackageTree; readonly workspace: string; readonly from?: RevisionState };
}

const entryOf = (d: DesiredDownstream, action: Action, detail: string, results: readonly Result[] = [], refs: string[] = []): PlannedDownstream => ({
  repository: d.repository.name,
  pkg: d.pkg,
  variant: d.label,
  action,
  detail,
  refs,
  results,
});

function packageCommit(pkgpath: string, tree: PackageTree, message: string, parents: (string | number)[]): NewCommit {
  return { parents, message, directory: pkgpath, files: tree.files };
}

/** The commits of a draft outcome, chained from `parent`, with Porch's annotation on each. */
function draftCommits(d: DesiredDownstream, outcome: Extract<DraftOutcome, { kind: 'commits' }>, parent: string, workspace: string, offset: number): NewCommit[] {
  return outcome.commits.map((commit, i) =>
    packageCommit(d.pkgpath, commit.tree, annotatedMessage(commit.message, { package: d.pkgpath, workspaceName: workspace, revision: '0', task: commit.task }), [i === 0 ? parent : offset + i - 1]),
  );
}

export interface PlanOutcome {
  readonly plan: SyncPlan;
  readonly urls: ReadonlyMap<string, string>;
  /** The repositories opened, by namespace/name, to write the plan with. */
  readonly remotes: ReadonlyMap<string, RemoteRepository>;
}

export async function planSync(inputs: SyncInputs, settings: SyncSettings): Promise<PlanOutcome> {
  const repositories = readRepositories(inputs.repositories);
  const opened = new Repositories(settings);
  const desired = await desiredDownstreams(inputs, repositories, (set) => upstreamRevisions(set, repositories, opened));
  const { unique, clashes } = sameDownstream(desired.downstreams);
  const asEntry = (action: Action) => (v: InvalidVariant): PlannedDownstream => ({ repository: v.repository, pkg: v.pkg, variant: v.label, action, detail: v.results[0]?.message ?? '', refs: [], results: v.results.slice(1) });
  const invalidEntries = [...desired.invalid.map(asEntry('invalid')), ...clashes.map(asEntry('conflict'))];
  const candidates = inputs.objects.map((input) => input.object);
  const byRepository = new Map<string, DesiredDownstream[]>();
  for (const d of unique) {
    const key = repositoryKey(d.repository.namespace, d.repository.name);
    (byRepository.get(key) ?? byRepository.set(key, []).get(key)!).push(d);
  }
  const entries: PlannedDownstream[] = [...invalidEntries];
  const writes: RepositoryWrite[] = [];
  for (const group of byRepository.values()) {
    const repository = group[0]!.repository;
    const planned = await planRepository(repository, group, { ...settings, candidates }, opened);
    entries.push(...planned.entries);
    if (planned.write) writes.push(planned.write);
  }
  const urls = new Map([...repositories.values()].map((r) => [r.name, withoutCredentials(r.url)]));
  return { plan: { downstreams: entries, writes, problems: desired.problems }, urls, remotes: await opened.all() };
}

/** Settings with what every downstream's mutations read: the objects standing in for the cluster. */
interface PlanSettings extends SyncSettings {
  readonly candidates: readonly ConfigObject[];
}

async function planRepository(repository: SyncRepository, group: readonly DesiredDownstream[], settings: PlanSettings, opened: Repositories): Promise<{ entries: PlannedDownstream[]; write?: RepositoryWrite }> {
  let remote: RemoteRepository;
  let listing: TagListing;
  try {
    ({ remote, listing } = await opened.get(repository));
  } catch (error) {
    if (!(error instanceof RepositoryAccessError)) throw error;
    return { entries: group.map((d) => entryOf(d, 'invalid', error.message)) };
  }
  const { head, states } = await readPackageStates(remote, repository, listing, new Set(group.map((d) => d.pkgpath)));
  if (!head) return { entries: group.map((d) => entryOf(d, 'invalid', `Repository ${repository.name} has no branch ${repository.branch} in ${repository.url}; create it first`)) };
  const entries: PlannedDownstream[] = [];
  const commits: NewCommit[] = [];
  const updates: RefUpdate[] = [];
  const publishing: NonNullable<Written['publish']>[] = [];
  const publishedFor = new Map<NonNullable<Written['publish']>, DesiredDownstream>();
  for (const d of group) {
    const written = await planDownstream(d, states.get(d.pkgpath), head, commits.length, settings, opened, remote);
    entries.push(written.entry);
    commits.push(...written.commits);
    updates.push(...written.updates);
    if (written.publish) {
      publishing.push(written.publish);
      publishedFor.set(written.publish, d);
    }
  }
  // Approvals, one merge commit each on the branch, in the plan's order (porch-lifecycle.md §7.2).
  let branchTip: string | number = head;
  for (const publish of publishing) {
    const d = publishedFor.get(publish)!;
    const state = states.get(d.pkgpath);
    const revision = Math.max(0, ...(state?.revisions ?? []).filter((r) => r.lifecycle === 'published').map((r) => r.revision)) + 1;
    const message = annotatedMessage(approvalMessage(d.pkgpath, revision), { package: d.pkgpath, workspaceName: publish.workspace, revision: String(revision) });
    commits.push(packageCommit(d.pkgpath, publish.tree, message, [branchTip, publish.tip]));
    branchTip = commits.length - 1;
    updates.push({ ref: `refs/tags/${publishedTag(d.pkgpath, revision)}`, expected: undefined, target: branchTip });
    const entry = entries.find((e) => e.variant === d.label)!;
    (entry.refs as string[]).push(repository.branch, `tag ${publishedTag(d.pkgpath, revision)}`);
  }
  if (branchTip !== head) updates.push({ ref: `refs/heads/${repository.branch}`, expected: head, target: branchTip });
  if (updates.length === 0) return { entries };
  return { entries, write: { repository: repositoryKey(repository.namespace, repository.name), url: repository.url, commits, updates } };
}

/** The refs of a revision in the lifecycle asked for: a draft branch, or a proposal branch; published ones go through approval. */
function lifecycleRefs(d: DesiredDownstream, lifecycle: Lifecycle, workspace: string, tip: number | string, existing: RevisionState | undefined): RefUpdate[] {
  const draft = `refs/heads/${draftBranch(d.pkgpath, workspace)}`;
  const proposed = `refs/heads/${proposedBranch(d.pkgpath, workspace)}`;
  const updates: RefUpdate[] = [];
  const keep = lifecycle === 'draft' ? draft : lifecycle === 'proposed' ? proposed : undefined;
  if (keep) updates.push({ ref: keep, expected: existing?.ref === keep ? existing.commit : undefined, target: tip });
  if (existing && existing.ref !== keep) updates.push({ ref: existing.ref, expected: existing.commit, target: null });
  return updates;
}

const shortRef = (ref: string): string => ref.replace(/^refs\/heads\//, '').replace(/^refs\/tags\//, 'tag ');

async function planDownstream(
  d: DesiredDownstream,
  state: PackageState | undefined,
  head: string,
  offset: number,
  settings: PlanSettings,
  opened: Repositories,
  remote: RemoteRepository,
): Promise<Written> {
  const none = (action: Action, detail: string, results: readonly Result[] = []): Written => ({ entry: entryOf(d, action, detail, results), commits: [], updates: [] });
  let upstream: UpstreamRevision;
  let upstreamSide: Opened;
  try {
    upstreamSide = await opened.get(d.upstreamRepository);
    upstream = resolveUpstream(d.upstream, d.upstreamRepository, upstreamSide.listing, d.label);
  } catch (error) {
    if (error instanceof UpstreamError || error instanceof RepositoryAccessError) return none('invalid', error.message);
    throw error;
  }
  const decision: Decision = decide(d.owner, upstream, state);
  if (decision.kind === 'conflict' || decision.kind === 'blocked') return none(decision.kind, decision.reason);
  const mutations: Mutations = {
    variant: d.variant,
    candidates: settings.candidates,
    ...(settings.render ? { render: (tree: PackageTree) => settings.render!(tree, `${d.repository.name}/${d.pkgpath}`) } : {}),
  };
  const workspaces = (state?.revisions ?? []).map((r) => r.workspace);
  try {
    switch (decision.kind) {
      case 'create': {
        const upstreamTree = await upstreamSide.tree(upstream.commit, upstream.pkgpath);
        const outcome = await createDraft(upstreamTree, { packagePath: d.pkg, lock: lockOf(upstream), ownership: { owner: d.owner, deletionPolicy: d.deletionPolicy }, deployment: d.repository.deployment }, upstream.name, mutations);
        return newDraft(d, 'create', `${upstream.repository.name}/${upstream.packageName} ${upstream.workspace} (${upstream.name})`, outcome, head, offset, nextVariantWorkspace(workspaces), settings, undefined);
      }
      case 'upgrade': {
        const from = decision.from;
        const lock = from.kptfile!.lock!;
        // The commit comes from the package: only a commit name is looked up, and only for this package's path upstream.
        if (!isFullSha(lock.commit)) return none('invalid', `${publishedNameOf(d, from)} records upstreamLock.git.commit ${JSON.stringify(lock.commit)}, which is no commit name: the upstream revision it was made from is unknown`);
        const [published] = await remote.readTrees([{ commit: from.commit, directory: d.pkgpath }]);
        const oldUpstream = await upstreamSide.tree(lock.commit, upstream.pkgpath);
        const newUpstream = await upstreamSide.tree(upstream.commit, upstream.pkgpath);
        const oldWorkspace = upstreamSide.listing.tags.has(lock.ref) ? tagWorkspace(upstreamSide.listing, upstream.pkgpath, lock.ref) : lock.ref.slice(lock.ref.lastIndexOf('/') + 1);
        const publishedName = publishedNameOf(d, from);
        const outcome = await upgradeDraft(
          {
            published: published!,
            oldUpstream,
            newUpstream,
            lock: lockOf(upstream),
            names: { oldUpstream: packageRevisionName(upstream.repository.name, upstream.packageName, oldWorkspace), newUpstream: upstream.name, published: publishedName },
          },
          mutations,
        );
        return newDraft(d, 'upgrade', `${lock.ref} -> ${upstream.ref} from ${publishedName} (v${from.revision})`, outcome, head, offset, nextVariantWorkspace(workspaces), settings, published);
      }
      case 'check-published': {
        const from = decision.from;
        const [published] = await remote.readTrees([{ commit: from.commit, directory: d.pkgpath }]);
        const publishedName = packageRevisionName(d.repository.name, d.pkg, from.workspace);
        const outcome = await editDraft(published!, publishedName, mutations);
        return newDraft(d, 'edit', `the variant changes ${publishedName} (v${from.revision})`, outcome, head, offset, nextVariantWorkspace(workspaces), settings, published);
      }
      case 'check-draft':
      case 'check-proposal': {
        const existing = decision.kind === 'check-draft' ? decision.draft : decision.proposal;
        const [tree] = await remote.readTrees([{ commit: existing.commit, directory: d.pkgpath }]);
        const outcome = await updateDraft(tree!, mutations);
        const name = packageRevisionName(d.repository.name, d.pkg, existing.workspace);
        if (outcome.kind === 'commits' && existing.lifecycle === 'proposed') return none('blocked', `the variant changes proposal ${name}, which awaits approval: approve or reject it, then sync again`, outcome.results);
        return existingDraft(d, existing, name, outcome, offset, settings, tree!);
      }
    }
  } catch (error) {
    if (error instanceof FunctionError) return none('invalid', `${d.label}: its mutations fail`, error.results);
    if (error instanceof RenderError && !error.kptMissing) return none('invalid', error.message);
    if (error instanceof CloneError || error instanceof UpstreamError || error instanceof RepositoryAccessError) return none('invalid', error.message);
    throw error;
  }
}

const publishedNameOf = (d: DesiredDownstream, revision: RevisionState): string => packageRevisionName(d.repository.name, d.pkg, revision.workspace);

function settled(d: DesiredDownstream, outcome: DraftOutcome): Written | undefined {
  if (outcome.kind === 'not-converging') return { entry: entryOf(d, 'not-converging', 'mutating the rendered package changes it again: the variant and the pipeline undo each other; nothing is written', outcome.results), commits: [], updates: [] };
  if (outcome.kind === 'failed') return { entry: entryOf(d, 'invalid', 'the merge fails', outcome.results), commits: [], updates: [] };
  return undefined;
}

/** The new revision against what it derives from, paths relative to the repository. */
function diffOf(d: DesiredDownstream, before: PackageTree, after: PackageTree): string {
  const inRepository = (tree: PackageTree) => PackageTree.empty().withSubtree(d.pkgpath, tree);
  return planDiff(planUpdate('', inRepository(before), inRepository(after)));
}

function newDraft(d: DesiredDownstream, action: Action, detail: string, outcome: DraftOutcome, head: string, offset: number, workspace: string, settings: SyncSettings, base: PackageTree | undefined): Written {
  const stop = settled(d, outcome);
  if (stop) return stop;
  if (outcome.kind === 'unchanged') return { entry: entryOf(d, 'unchanged', '', outcome.results), commits: [], updates: [] };
  if (outcome.kind !== 'commits') throw new Error('unreachable');
  const commits = draftCommits(d, outcome, head, workspace, offset);
  const tip = offset + commits.length - 1;
  const final = outcome.commits[outcome.commits.length - 1]!.tree;
  const updates = lifecycleRefs(d, settings.lifecycle, workspace, tip, undefined);
  const entry = entryOf(d, action, detail, outcome.results, updates.map((u) => shortRef(u.ref)));
  const withDiff = settings.diff ? { ...entry, diff: diffOf(d, base ?? outcome.base, final) } : entry;
  return { entry: withDiff, commits, updates, ...(settings.lifecycle === 'published' ? { publish: { tip, tree: final, workspace } } : {}) };
}

function existingDraft(d: DesiredDownstream, existing: RevisionState, name: string, outcome: DraftOutcome, offset: number, settings: SyncSettings, tree: PackageTree): Written {
  const stop = settled(d, outcome);
  if (stop) return stop;
  const commits = outcome.kind === 'commits' ? draftCommits(d, outcome, existing.commit, existing.workspace, offset) : [];
  const tip: number | string = commits.length ? offset + commits.length - 1 : existing.commit;
  const final = outcome.kind === 'commits' ? outcome.commits[outcome.commits.length - 1]!.tree : tree;
  const moves = existing.lifecycle !== settings.lifecycle;
  if (commits.length === 0 && !moves) return { entry: entryOf(d, 'unchanged', `${existing.lifecycle} ${name}`, outcome.results), commits: [], updates: [] };
  const updates = lifecycleRefs(d, settings.lifecycle, existing.workspace, tip, existing);
  const action: Action = commits.length ? 'update' : settings.lifecycle === 'proposed' ? 'propose' : 'publish';
  const entry = entryOf(d, action, `${existing.lifecycle} ${name}`, outcome.results, updates.filter((u) => u.target !== null).map((u) => shortRef(u.ref)));
  const withDiff = settings.diff && commits.length ? { ...entry, diff: diffOf(d, tree, final) } : entry;
  return { entry: withDiff, commits, updates, ...(settings.lifecycle === 'published' ? { publish: { tip, tree: final, workspace: existing.workspace, from: existing } } : {}) };
}

/** Carries the plan out: each repository's commits made, then pushed atomically; what failed, by repository. */
export async function writePlan(plan: SyncPlan, remotes: ReadonlyMap<string, RemoteRepository>): Promise<string[]> {
  const failures: string[] = [];
  for (const write of plan.writes) {
    const remote = remotes.get(write.repository)!;
    try {
      const names = await remote.write(write.commits);
      await remote.push(write.updates.map((u) => ({ ref: u.ref, expected: u.expected, target: u.target === null ? null : typeof u.target === 'number' ? names[u.target]! : u.target })));
    } catch (error) {
      if (!(error instanceof RepositoryAccessError)) throw error;
      failures.push(error.message);
    }
  }
  return failures;
}

