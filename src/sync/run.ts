/**
 * One sync: the desired downstreams from the inputs, each repository fetched once, each
 * downstream decided and its commits computed in memory, the plan printed; then, unless it is a dry
 * run, each repository written with one atomic push (porch-lifecycle.md §11).
 */
import type { ConfigObject } from '../config/function-config';
import type { NewCommit } from '../git/fast-import';
import { withoutCredentials } from '../git/remote-url';
import { planDeletions } from './deletions';
import { desiredDownstreams, namespaceOfLabel, sameDownstream, type DesiredDownstream, type InvalidVariant, type SetRecord, type VariantRecord } from './desired';
import type { SyncInputs } from './inputs';
import { packageRevisionName, publishedTag, revisionOfRef } from './porch-refs';
import type { Action, PlannedDownstream, RefUpdate, RepositoryWrite, SyncPlan } from './plan';
import { readPackageStates } from './repository-state';
import { nextRevision } from './state';
import { namespaceOf, readRepositories, repositoryKey, type SyncRepository } from './repositories';
import { shardOf } from './shard';
import { readSettled, recordable, recordSettled, runDigest, settledKey } from './settled';
import { Repositories, type Opened } from './opened';
import { computeDownstream, prefetchTrees, prepareDownstream } from './downstream';
import { ancestorPaths, refuseNesting } from './nesting';
import { RepositoryAccessError, selects, type PlanSettings, type RemoteRepository, type SyncSettings } from './settings';
import { approvalCommit, entryOf, type Written } from './written';
import { withBranchEdits } from './branch-edits';
import { resolveUpstream, tagWorkspace, UpstreamError, type TagListing, type UpstreamSpec } from './upstream';

/** The PackageRevision objects of a set's upstream package, for its `upstream` CEL variable, as Porch would list them. */
async function upstreamRevisions(set: ConfigObject, repositories: ReadonlyMap<string, SyncRepository>, opened: Repositories): Promise<{ objects: ConfigObject[]; found: boolean }> {
  const spec = (set.spec ?? {}) as { upstream?: UpstreamSpec };
  const namespace = set.metadata.namespace || 'default';
  const repository = spec.upstream?.repo ? repositories.get(repositoryKey(namespace, spec.upstream.repo)) : undefined;
  if (!repository || !spec.upstream?.package) return { objects: [], found: false };
  let listing: TagListing;
  try {
    ({ listing } = await opened.get(repository));
  } catch (error) {
    if (error instanceof RepositoryAccessError) return { objects: [], found: false };
    throw error;
  }
  let found = true;
  try {
    resolveUpstream(spec.upstream, repository, listing, '');
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    found = false;
  }
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
      spec: { packageName: spec.upstream.package, repository: repository.name, revision: revisionOfRef(version), workspaceName: workspace, lifecycle: 'Published' },
    });
  }
  return { objects, found };
}

/** How many repositories are planned or written at once. */
const REPOSITORIES_AT_ONCE = 4;

/** `work` on every item, at most `limit` at a time; the results in the items' order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export interface PlanOutcome {
  readonly plan: SyncPlan;
  /** Every variant and set of the run, for their status. */
  readonly variants: readonly VariantRecord[];
  readonly sets: readonly SetRecord[];
  readonly urls: ReadonlyMap<string, string>;
  /** The repositories opened, by namespace/name, to write the plan with. */
  readonly remotes: ReadonlyMap<string, RemoteRepository>;
}

export async function planSync(inputs: SyncInputs, settings: SyncSettings): Promise<PlanOutcome> {
  const opened = new Repositories(settings);
  try {
    return await planOpened(inputs, settings, opened);
  } finally {
    await opened.close();
  }
}

async function planOpened(inputs: SyncInputs, settings: SyncSettings, opened: Repositories): Promise<PlanOutcome> {
  const repositories = readRepositories(inputs.repositories);
  const desired = await desiredDownstreams(inputs, repositories, (set) => upstreamRevisions(set, repositories, opened));
  const { unique, clashes } = sameDownstream(desired.downstreams);
  const { shard } = settings;
  // A variant belongs to the shard of its downstream Repository; one that names none that was given, to the shard of its name.
  const inShard = (namespace: string, name: string) => !shard || shardOf(repositoryKey(namespace, name), shard.count) === shard.index;
  const asEntry = (action: Action) => (v: InvalidVariant): PlannedDownstream => ({ repository: v.repository, pkg: v.pkg, variant: v.label, action, detail: v.results[0]?.message ?? '', refs: [], results: v.results.slice(1) });
  const invalidEntries = [...desired.invalid.map(asEntry('invalid')), ...clashes.map(asEntry('conflict'))].filter((e) => inShard(namespaceOfLabel(e.variant), e.repository) && selects(settings.only, e.repository, e.pkg));
  const candidates = inputs.objects.map((input) => input.object);
  const namespaces = new Set([...inputs.variants, ...inputs.variantSets].map((input) => namespaceOf(input.object)));
  const byRepository = new Map<string, DesiredDownstream[]>();
  for (const d of unique.filter((u) => selects(settings.only, u.repository.name, u.pkg))) {
    const key = repositoryKey(d.repository.namespace, d.repository.name);
    (byRepository.get(key) ?? byRepository.set(key, []).get(key)!).push(d);
  }
  const entries: PlannedDownstream[] = [...invalidEntries];
  const writes: RepositoryWrite[] = [];
  // Every Repository given is looked at, for the packages its variants no longer ask for too; a few
  // at a time: one waits for git while another computes.
  const all = [...repositories.values()].filter((r) => inShard(r.namespace, r.name) && selects(settings.only, r.name));
  // A repository's reading ends with its plan, but for an upstream's: other plans read it on.
  const upstreams = new Set(unique.map((d) => repositoryKey(d.upstreamRepository.namespace, d.upstreamRepository.name)));
  const planSettings: PlanSettings = { ...settings, candidates, namespaces };
  const run = settings.settledRecords ? runDigest(planSettings) : undefined;
  const planned = await mapLimited(all, REPOSITORIES_AT_ONCE, async (repository) => {
    const group = byRepository.get(repositoryKey(repository.namespace, repository.name)) ?? [];
    const done = await planSettledRepository(repository, group, planSettings, opened, run);
    if (!upstreams.has(repositoryKey(repository.namespace, repository.name))) await opened.release(repository);
    settings.progress?.('planned', group.length);
    return done;
  });
  for (const { entries: some, write } of planned) {
    entries.push(...some);
    if (write) writes.push(write);
  }
  const urls = new Map([...repositories.values()].map((r) => [r.name, withoutCredentials(r.url)]));
  // What belongs to no repository (a set that does not expand) is the first shard's to report.
  const first = !shard || shard.index === 0;
  const variants = desired.variants.filter((v) => inShard(namespaceOfLabel(v.label), (v.object.spec as { downstream?: { repo?: string } } | undefined)?.downstream?.repo ?? ''));
  return {
    plan: { downstreams: entries, writes, problems: first ? desired.problems : [] },
    variants,
    sets: first ? desired.sets : [],
    urls,
    remotes: await opened.all(),
  };
}

interface RepositoryPlan {
  readonly entries: PlannedDownstream[];
  readonly write?: RepositoryWrite;
}

/** The key of the repository's plan (settled.ts), when its refs and its upstreams' can be had; else undefined (the plan says why). */
async function keyOf(repository: SyncRepository, group: readonly DesiredDownstream[], run: string, opened: Repositories): Promise<string | undefined> {
  try {
    const upstreams = new Map<string, ReadonlyMap<string, string>>();
    for (const d of group) {
      const name = repositoryKey(d.upstreamRepository.namespace, d.upstreamRepository.name);
      if (!upstreams.has(name)) upstreams.set(name, (await opened.fetched(d.upstreamRepository)).fetched);
    }
    return settledKey(run, repository, group, (await opened.fetched(repository)).fetched, upstreams);
  } catch (error) {
    if (error instanceof RepositoryAccessError) return undefined;
    throw error;
  }
}

/**
 * The repository's plan, from the record of a run that found it settled with the same inputs and
 * refs (settled.ts), else from its content; a plan found settled, and made without a render, is
 * recorded for the next run.
 */
async function planSettledRepository(repository: SyncRepository, group: readonly DesiredDownstream[], settings: PlanSettings, opened: Repositories, run: string | undefined): Promise<RepositoryPlan> {
  const env = settings.settledRecords;
  const key = env && run ? await keyOf(repository, group, run, opened) : undefined;
  if (!env || key === undefined) return planRepository(repository, group, settings, opened);
  const recorded = readSettled(env, repository, key, group);
  if (recorded) return { entries: recorded };
  let rendered = false;
  const render = settings.render;
  const tracked: PlanSettings = render ? { ...settings, render: (tree, about) => ((rendered = true), render(tree, about)) } : settings;
  const plan = await planRepository(repository, group, tracked, opened);
  if (!plan.write && !rendered && recordable(plan.entries)) recordSettled(env, repository, key, plan.entries);
  return plan;
}

async function planRepository(repository: SyncRepository, group: readonly DesiredDownstream[], settings: PlanSettings, opened: Repositories): Promise<RepositoryPlan> {
  let own: Opened;
  try {
    own = await opened.get(repository);
  } catch (error) {
    if (!(error instanceof RepositoryAccessError)) throw error;
    return { entries: group.length ? group.map((d) => entryOf(d, 'invalid', error.message)) : [repositoryEntry(repository, error.message)] };
  }
  // The directories above each downstream are read too: a package there is one it would nest in.
  const { head, states } = await readPackageStates(own.remote, repository, own.listing, new Set(group.flatMap((d) => [d.pkgpath, ...ancestorPaths(d)])));
  if (!head) {
    const missing = `Repository ${repository.name} has no branch ${repository.branch} in ${withoutCredentials(repository.url)}; create it first${repository.createBranch ? ' (sync does not act on spec.git.createBranch: push a first commit to the branch)' : ''}`;
    return { entries: group.length ? group.map((d) => entryOf(d, 'invalid', missing)) : [repositoryEntry(repository, missing)] };
  }
  const entries: PlannedDownstream[] = [];
  const commits: NewCommit[] = [];
  const updates: RefUpdate[] = [];
  const publishing: NonNullable<Written['publish']>[] = [];
  const publishedFor = new Map<NonNullable<Written['publish']>, DesiredDownstream>();
  const prepared = await refuseNesting(await Promise.all(group.map((d) => prepareDownstream(d, states.get(d.pkgpath), opened))), states, head, own.remote);
  await prefetchTrees(own, prepared);
  for (const [i, ready] of prepared.entries()) {
    const d = group[i]!;
    const written = 'entry' in ready ? ready : await computeDownstream(ready, head, commits.length, settings, own);
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
    const revision = nextRevision(state);
    commits.push(approvalCommit(d.pkgpath, publish.workspace, revision, publish.tree, [branchTip, publish.tip]));
    branchTip = commits.length - 1;
    updates.push({ ref: `refs/tags/${publishedTag(d.pkgpath, revision)}`, expected: undefined, target: branchTip });
    const at = entries.findIndex((e) => e.variant === d.label);
    const entry = await withBranchEdits(entries[at]!, d.pkgpath, repository.branch, state, head, publish.tree, settings.diff, own);
    entries[at] = { ...entry, refs: [...entry.refs, repository.branch, `tag ${publishedTag(d.pkgpath, revision)}`] };
  }
  const deletions = await planDeletions(
    repository,
    states,
    new Map(group.map((d) => [d.pkgpath, d.owner])),
    { allowDelete: settings.allowDelete === true, approveDeletions: settings.approveDeletions === true, namespaces: settings.namespaces, only: settings.only },
    (commit, pkgpath) => own.tree({ commit, directory: pkgpath }),
    head,
    branchTip,
    commits.length,
  );
  entries.push(...deletions.entries);
  commits.push(...deletions.commits);
  updates.push(...deletions.updates);
  branchTip = deletions.branchTip;
  if (branchTip !== head) updates.push({ ref: `refs/heads/${repository.branch}`, expected: head, target: branchTip });
  if (updates.length === 0) return { entries };
  return { entries, write: { repository: repositoryKey(repository.namespace, repository.name), url: repository.url, commits, updates } };
}

/** A problem of a repository that no downstream of this run's stands for: one it was to look at for packages to delete. */
const repositoryEntry = (repository: SyncRepository, message: string): PlannedDownstream => ({ repository: repository.name, pkg: '', variant: '', action: 'invalid', detail: message, refs: [], results: [] });

/** A repository whose push did not happen: its key (namespace/name) and why, naming it. */
export interface WriteFailure {
  readonly repository: string;
  readonly message: string;
}

/** Carries the plan out: each repository's commits made, then pushed atomically; what failed, by repository. */
export async function writePlan(plan: SyncPlan, remotes: ReadonlyMap<string, RemoteRepository>, progress?: SyncSettings['progress']): Promise<WriteFailure[]> {
  const outcomes = await mapLimited(plan.writes, REPOSITORIES_AT_ONCE, async (write): Promise<WriteFailure | undefined> => {
    const remote = remotes.get(write.repository)!;
    try {
      const names = await remote.write(write.commits);
      await remote.push(write.updates.map((u) => ({ ref: u.ref, expected: u.expected, target: u.target === null ? null : typeof u.target === 'number' ? names[u.target]! : u.target })));
      progress?.('pushed');
      return undefined;
    } catch (error) {
      if (!(error instanceof RepositoryAccessError)) throw error;
      return { repository: write.repository, message: error.message };
    }
  });
  return outcomes.filter((failure): failure is WriteFailure => failure !== undefined);
}
