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
import { planDeletions, unproposals } from './deletions';
import { decide, type Decision } from './decide';
import { desiredDownstreams, sameDownstream, type DesiredDownstream, type InvalidVariant, type SetRecord, type VariantRecord } from './desired';
import { createDraft, editDraft, updateDraft, upgradeDraft, type DraftOutcome, type Mutations } from './drafts';
import type { SyncInputs } from './inputs';
import { approvalMessage, annotatedMessage } from './porch-commits';
import { draftBranch, nextVariantWorkspace, packageRevisionName, proposedBranch, publishedTag } from './porch-refs';
import type { Action, PlannedDownstream, RefUpdate, RepositoryWrite, SyncPlan } from './plan';
import { readPackageStates, tagListing, type RepositoryReader } from './repository-state';
import { readRepositories, repositoryKey, type SyncRepository } from './repositories';
import { shardOf, type Shard } from './shard';
import { unpublished, type Lifecycle, type PackageState, type RevisionState } from './state';
import { lockOf, resolveUpstream, tagWorkspace, UpstreamError, type TagListing, type UpstreamRevision, type UpstreamSpec } from './upstream';

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
  /** Record the ownership of an adopted package in a revision of its own, even when nothing else changes. */
  readonly adoptNow?: boolean;
  /** Carry out the deletion policy of packages their variants no longer ask for (else the plan only lists them). */
  readonly allowDelete?: boolean;
  /** Finish proposed deletions: tags, their branches and the package's directory removed. */
  readonly approveDeletions?: boolean;
  /** Only the downstream repositories of this shard (shard.ts). */
  readonly shard?: Shard;
  /** Told as the run goes: a repository fetched, a repository planned (with its downstreams), a repository pushed. */
  readonly progress?: (event: 'fetched' | 'planned' | 'pushed', downstreams?: number) => void;
  /** The repository, fetched: once per run however often it is asked for. */
  readonly open: (repository: SyncRepository) => Promise<RemoteRepository>;
}

/** A repository that cannot be fetched, read or written: the message names it. */
export class RepositoryAccessError extends Error {}

interface Version {
  readonly commit: string;
  readonly directory: string;
}

interface Opened {
  readonly remote: RemoteRepository;
  readonly listing: TagListing;
  /** A package at a commit, read once however many downstreams derive from it. */
  tree(version: Version): Promise<PackageTree>;
  /** Reads the packages not read yet, all in one go (a few git processes, however many). */
  prefetch(versions: readonly Version[]): Promise<void>;
}

function opened(remote: RemoteRepository, listing: TagListing): Opened {
  const trees = new Map<string, Promise<PackageTree>>();
  const key = ({ commit, directory }: Version) => `${commit}:${directory}`;
  const readOne = (version: Version) => {
    const read = remote.readTrees([version]).then(([tree]) => tree!);
    // Awaited when its downstream is computed; until then a failure must not count as unhandled.
    read.catch(() => undefined);
    return read;
  };
  return {
    remote,
    listing,
    tree: (version) => {
      if (!trees.has(key(version))) trees.set(key(version), readOne(version));
      return trees.get(key(version))!;
    },
    prefetch: async (versions) => {
      const missing = [...new Map(versions.filter((v) => !trees.has(key(v))).map((v) => [key(v), v])).values()];
      if (missing.length === 0) return;
      const batch = remote.readTrees(missing);
      // One version that cannot be read (a hostile tree) is its own downstream's problem: then each is read alone.
      missing.forEach((version, i) => {
        const read = batch.then((all) => all[i]!, () => readOne(version));
        read.catch(() => undefined);
        trees.set(key(version), read);
      });
      await Promise.all(missing.map((version) => trees.get(key(version))!.catch(() => undefined)));
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
        this.settings.open(repository).then(async (remote) => {
          this.settings.progress?.('fetched');
          return opened(remote, await tagListing(remote));
        }),
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
      spec: { packageName: spec.upstream.package, repository: repository.name, revision: /^v\d+$/.test(version) ? Number(version.slice(1)) : -1, workspaceName: workspace, lifecycle: 'Published' },
    });
  }
  return { objects, found };
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

/** The namespace in a `PackageVariant <namespace>/<name>` label. */
const namespaceOfLabel = (label: string): string => label.slice(label.indexOf(' ') + 1, label.indexOf('/'));

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
  const repositories = readRepositories(inputs.repositories);
  const opened = new Repositories(settings);
  const desired = await desiredDownstreams(inputs, repositories, (set) => upstreamRevisions(set, repositories, opened));
  const { unique, clashes } = sameDownstream(desired.downstreams);
  const { shard } = settings;
  // A variant belongs to the shard of its downstream Repository; one that names none that was given, to the shard of its name.
  const inShard = (namespace: string, name: string) => !shard || shardOf(repositoryKey(namespace, name), shard.count) === shard.index;
  const asEntry = (action: Action) => (v: InvalidVariant): PlannedDownstream => ({ repository: v.repository, pkg: v.pkg, variant: v.label, action, detail: v.results[0]?.message ?? '', refs: [], results: v.results.slice(1) });
  const invalidEntries = [...desired.invalid.map(asEntry('invalid')), ...clashes.map(asEntry('conflict'))].filter((e) => inShard(namespaceOfLabel(e.variant), e.repository));
  const candidates = inputs.objects.map((input) => input.object);
  const byRepository = new Map<string, DesiredDownstream[]>();
  for (const d of unique) {
    const key = repositoryKey(d.repository.namespace, d.repository.name);
    (byRepository.get(key) ?? byRepository.set(key, []).get(key)!).push(d);
  }
  const entries: PlannedDownstream[] = [...invalidEntries];
  const writes: RepositoryWrite[] = [];
  // Every Repository given is looked at, for the packages its variants no longer ask for too; a few
  // at a time: one waits for git while another computes.
  const all = [...repositories.values()].filter((r) => inShard(r.namespace, r.name));
  const planned = await mapLimited(all, REPOSITORIES_AT_ONCE, async (repository) => {
    const group = byRepository.get(repositoryKey(repository.namespace, repository.name)) ?? [];
    const done = await planRepository(repository, group, { ...settings, candidates }, opened);
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

/** Settings with what every downstream's mutations read: the objects standing in for the cluster. */
interface PlanSettings extends SyncSettings {
  readonly candidates: readonly ConfigObject[];
}

async function planRepository(repository: SyncRepository, group: readonly DesiredDownstream[], settings: PlanSettings, opened: Repositories): Promise<{ entries: PlannedDownstream[]; write?: RepositoryWrite }> {
  let own: Opened;
  try {
    own = await opened.get(repository);
  } catch (error) {
    if (!(error instanceof RepositoryAccessError)) throw error;
    return { entries: group.length ? group.map((d) => entryOf(d, 'invalid', error.message)) : [repositoryEntry(repository, error.message)] };
  }
  const { head, states } = await readPackageStates(own.remote, repository, own.listing, new Set(group.map((d) => d.pkgpath)));
  if (!head) {
    const missing = `Repository ${repository.name} has no branch ${repository.branch} in ${withoutCredentials(repository.url)}; create it first`;
    return { entries: group.length ? group.map((d) => entryOf(d, 'invalid', missing)) : [repositoryEntry(repository, missing)] };
  }
  const entries: PlannedDownstream[] = [];
  const commits: NewCommit[] = [];
  const updates: RefUpdate[] = [];
  const publishing: NonNullable<Written['publish']>[] = [];
  const publishedFor = new Map<NonNullable<Written['publish']>, DesiredDownstream>();
  const prepared = await Promise.all(group.map((d) => prepareDownstream(d, states.get(d.pkgpath), opened)));
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
    const revision = Math.max(0, ...(state?.revisions ?? []).filter((r) => r.lifecycle === 'published').map((r) => r.revision)) + 1;
    const message = annotatedMessage(approvalMessage(d.pkgpath, revision), { package: d.pkgpath, workspaceName: publish.workspace, revision: String(revision) });
    commits.push(packageCommit(d.pkgpath, publish.tree, message, [branchTip, publish.tip]));
    branchTip = commits.length - 1;
    updates.push({ ref: `refs/tags/${publishedTag(d.pkgpath, revision)}`, expected: undefined, target: branchTip });
    const entry = entries.find((e) => e.variant === d.label)!;
    (entry.refs as string[]).push(repository.branch, `tag ${publishedTag(d.pkgpath, revision)}`);
  }
  const deletions = await planDeletions(
    repository,
    states,
    new Map(group.map((d) => [d.pkgpath, d.owner])),
    { allowDelete: settings.allowDelete === true, approveDeletions: settings.approveDeletions === true },
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

/** A downstream decided, with what it needs read before its content can be computed. */
interface Prepared {
  readonly d: DesiredDownstream;
  readonly state: PackageState | undefined;
  readonly upstream: UpstreamRevision;
  readonly upstreamSide: Opened;
  readonly decision: Exclude<Decision, { kind: 'conflict' | 'blocked' }>;
}

const nothing = (d: DesiredDownstream, action: Action, detail: string, results: readonly Result[] = []): Written => ({ entry: entryOf(d, action, detail, results), commits: [], updates: [] });

/** The upstream resolved and the decision made; a Written when that already settles the downstream. */
async function prepareDownstream(d: DesiredDownstream, state: PackageState | undefined, opened: Repositories): Promise<Prepared | Written> {
  let upstream: UpstreamRevision;
  let upstreamSide: Opened;
  try {
    upstreamSide = await opened.get(d.upstreamRepository);
    upstream = resolveUpstream(d.upstream, d.upstreamRepository, upstreamSide.listing, d.label);
  } catch (error) {
    if (error instanceof UpstreamError) return { ...nothing(d, 'invalid', error.message), entry: { ...entryOf(d, 'invalid', error.message), stalled: true } };
    if (error instanceof RepositoryAccessError) return nothing(d, 'invalid', error.message);
    throw error;
  }
  const decision = decide({ owner: d.owner, adoption: d.adoptionPolicy, label: d.label }, upstream, state);
  if (decision.kind === 'conflict') return nothing(d, 'conflict', decision.reason);
  if (decision.kind === 'blocked') return { ...nothing(d, 'blocked', decision.reason), entry: { ...entryOf(d, 'blocked', decision.reason), targets: unpublished(state!).map((r) => publishedNameOf(d, r)) } };
  if (decision.kind === 'upgrade' && !isFullSha(decision.from.kptfile!.lock!.commit)) {
    // The commit comes from the package: only a commit name is looked up, and only at this package's path upstream.
    return nothing(d, 'invalid', `${publishedNameOf(d, decision.from)} records upstreamLock.git.commit ${JSON.stringify(decision.from.kptfile!.lock!.commit)}, which is no commit name: the upstream revision it was made from is unknown`);
  }
  return { d, state, upstream, upstreamSide, decision };
}

/** The revision of the downstream a decision starts from, in its own repository. */
function downstreamVersion({ d, decision }: Prepared): Version | undefined {
  switch (decision.kind) {
    case 'upgrade':
    case 'check-published':
      return { commit: decision.from.commit, directory: d.pkgpath };
    case 'check-draft':
      return { commit: decision.draft.commit, directory: d.pkgpath };
    case 'check-proposal':
      return { commit: decision.proposal.commit, directory: d.pkgpath };
    case 'create':
      return undefined;
  }
}

/** The upstream revisions a decision reads: the one asked for, and for an upgrade the one the package came from. */
function upstreamVersions({ upstream, decision }: Prepared): Version[] {
  const asked = { commit: upstream.commit, directory: upstream.pkgpath };
  if (decision.kind === 'create') return [asked];
  if (decision.kind === 'upgrade') return [asked, { commit: decision.from.kptfile!.lock!.commit, directory: upstream.pkgpath }];
  return [];
}

/** Every package the repository's downstreams read, fetched from each repository in one go. */
async function prefetchTrees(own: Opened, prepared: readonly (Prepared | Written)[]): Promise<void> {
  const ready = prepared.filter((p): p is Prepared => !('entry' in p));
  await own.prefetch(ready.map(downstreamVersion).filter((v): v is Version => v !== undefined));
  const bySide = new Map<Opened, Version[]>();
  for (const p of ready) (bySide.get(p.upstreamSide) ?? bySide.set(p.upstreamSide, []).get(p.upstreamSide)!).push(...upstreamVersions(p));
  for (const [side, versions] of bySide) await side.prefetch(versions);
}

async function computeDownstream(prepared: Prepared, head: string, offset: number, settings: PlanSettings, own: Opened): Promise<Written> {
  const written = withUnproposals(prepared, await computeContent(prepared, head, offset, settings, own));
  if (!prepared.decision.adopting || written.entry.action === 'invalid' || written.entry.action === 'not-converging') return written;
  const detail =
    written.entry.action === 'unchanged'
      ? `adoptable: no variant owns it; its ownership is recorded with the next revision sync writes (--adopt-now records it now)`
      : `adopts it, recording its ownership; ${written.entry.detail}`;
  return { ...written, entry: { ...written.entry, detail } };
}

/** A package asked for again takes back the proposals of its deletion. */
function withUnproposals({ state, d }: Prepared, written: Written): Written {
  const taken = unproposals(state, d.pkgpath);
  if (taken.length === 0 || written.entry.action === 'invalid' || written.entry.action === 'not-converging') return written;
  const restored = `the deletion of ${taken.map((u) => u.ref.slice(u.ref.lastIndexOf('/') + 1)).join(', ')} no longer proposed`;
  const entry: PlannedDownstream =
    written.entry.action === 'unchanged'
      ? { ...written.entry, action: 'restore', detail: restored, refs: taken.map((u) => `-${shortRef(u.ref)}`) }
      : { ...written.entry, detail: `${written.entry.detail}; ${restored}`, refs: [...written.entry.refs, ...taken.map((u) => `-${shortRef(u.ref)}`)] };
  return { ...written, entry, updates: [...written.updates, ...taken] };
}

async function computeContent(prepared: Prepared, head: string, offset: number, settings: PlanSettings, own: Opened): Promise<Written> {
  const { d, state, upstream, upstreamSide, decision } = prepared;
  const mutations: Mutations = {
    ...(decision.adopting ? { adopt: { ownership: { owner: d.owner, deletionPolicy: d.deletionPolicy }, now: settings.adoptNow === true } } : {}),
    variant: d.variant,
    candidates: settings.candidates,
    ...(settings.render ? { render: (tree: PackageTree) => settings.render!(tree, `${d.repository.name}/${d.pkgpath}`) } : {}),
  };
  const workspaces = (state?.revisions ?? []).map((r) => r.workspace);
  const upstreamTree = () => upstreamSide.tree({ commit: upstream.commit, directory: upstream.pkgpath });
  try {
    switch (decision.kind) {
      case 'create': {
        const outcome = await createDraft(await upstreamTree(), { packagePath: d.pkg, lock: lockOf(upstream), ownership: { owner: d.owner, deletionPolicy: d.deletionPolicy }, deployment: d.repository.deployment }, upstream.name, mutations);
        return newDraft(d, 'create', `${upstream.repository.name}/${upstream.packageName} ${upstream.workspace} (${upstream.name})`, outcome, head, offset, nextVariantWorkspace(workspaces), settings, undefined);
      }
      case 'upgrade': {
        const from = decision.from;
        const lock = from.kptfile!.lock!;
        const published = await own.tree(downstreamVersion(prepared)!);
        const oldUpstream = await upstreamSide.tree({ commit: lock.commit, directory: upstream.pkgpath });
        const oldWorkspace = upstreamSide.listing.tags.has(lock.ref) ? tagWorkspace(upstreamSide.listing, upstream.pkgpath, lock.ref) : lock.ref.slice(lock.ref.lastIndexOf('/') + 1);
        const publishedName = publishedNameOf(d, from);
        const outcome = await upgradeDraft(
          {
            published,
            oldUpstream,
            newUpstream: await upstreamTree(),
            lock: lockOf(upstream),
            names: { oldUpstream: packageRevisionName(upstream.repository.name, upstream.packageName, oldWorkspace), newUpstream: upstream.name, published: publishedName },
          },
          mutations,
        );
        return newDraft(d, 'upgrade', `${lock.ref} -> ${upstream.ref} from ${publishedName} (v${from.revision})`, outcome, head, offset, nextVariantWorkspace(workspaces), settings, published);
      }
      case 'check-published': {
        const published = await own.tree(downstreamVersion(prepared)!);
        const publishedName = publishedNameOf(d, decision.from);
        const outcome = await editDraft(published, publishedName, mutations);
        return newDraft(d, 'edit', `the variant changes ${publishedName} (v${decision.from.revision})`, outcome, head, offset, nextVariantWorkspace(workspaces), settings, published, publishedName);
      }
      case 'check-draft':
      case 'check-proposal': {
        const existing = decision.kind === 'check-draft' ? decision.draft : decision.proposal;
        const tree = await own.tree(downstreamVersion(prepared)!);
        const outcome = await updateDraft(tree, mutations);
        const name = publishedNameOf(d, existing);
        if (outcome.kind === 'commits' && existing.lifecycle === 'proposed') {
          const blocked = nothing(d, 'blocked', `the variant changes proposal ${name}, which awaits approval: approve or reject it, then sync again`, outcome.results);
          return { ...blocked, entry: { ...blocked.entry, targets: [name] } };
        }
        return existingDraft(d, existing, name, outcome, offset, settings, tree);
      }
    }
  } catch (error) {
    if (error instanceof FunctionError) return nothing(d, 'invalid', `${d.label}: its mutations fail`, error.results);
    if (error instanceof RenderError && !error.kptMissing) return nothing(d, 'invalid', error.message);
    if (error instanceof CloneError || error instanceof UpstreamError || error instanceof RepositoryAccessError) return nothing(d, 'invalid', error.message);
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

/** `current`: the published revision that stands for the downstream when nothing is written. */
function newDraft(d: DesiredDownstream, action: Action, detail: string, outcome: DraftOutcome, head: string, offset: number, workspace: string, settings: SyncSettings, base: PackageTree | undefined, current?: string): Written {
  const stop = settled(d, outcome);
  if (stop) return stop;
  if (outcome.kind === 'unchanged') return { entry: { ...entryOf(d, 'unchanged', '', outcome.results), ...(current ? { targets: [current] } : {}) }, commits: [], updates: [] };
  if (outcome.kind !== 'commits') throw new Error('unreachable');
  const commits = draftCommits(d, outcome, head, workspace, offset);
  const tip = offset + commits.length - 1;
  const final = outcome.commits[outcome.commits.length - 1]!.tree;
  const updates = lifecycleRefs(d, settings.lifecycle, workspace, tip, undefined);
  const entry = { ...entryOf(d, action, detail, outcome.results, updates.map((u) => shortRef(u.ref))), targets: [packageRevisionName(d.repository.name, d.pkg, workspace)] };
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
  if (commits.length === 0 && !moves) return { entry: { ...entryOf(d, 'unchanged', `${existing.lifecycle} ${name}`, outcome.results), targets: [name] }, commits: [], updates: [] };
  const updates = lifecycleRefs(d, settings.lifecycle, existing.workspace, tip, existing);
  const action: Action = commits.length ? 'update' : settings.lifecycle === 'proposed' ? 'propose' : 'publish';
  const entry = { ...entryOf(d, action, `${existing.lifecycle} ${name}`, outcome.results, updates.filter((u) => u.target !== null).map((u) => shortRef(u.ref))), targets: [name] };
  const withDiff = settings.diff && commits.length ? { ...entry, diff: diffOf(d, tree, final) } : entry;
  return { entry: withDiff, commits, updates, ...(settings.lifecycle === 'published' ? { publish: { tip, tree: final, workspace: existing.workspace, from: existing } } : {}) };
}

/** Carries the plan out: each repository's commits made, then pushed atomically; what failed, by repository. */
export async function writePlan(plan: SyncPlan, remotes: ReadonlyMap<string, RemoteRepository>, progress?: SyncSettings['progress']): Promise<string[]> {
  const outcomes = await mapLimited(plan.writes, REPOSITORIES_AT_ONCE, async (write) => {
    const remote = remotes.get(write.repository)!;
    try {
      const names = await remote.write(write.commits);
      await remote.push(write.updates.map((u) => ({ ref: u.ref, expected: u.expected, target: u.target === null ? null : typeof u.target === 'number' ? names[u.target]! : u.target })));
      progress?.('pushed');
      return undefined;
    } catch (error) {
      if (!(error instanceof RepositoryAccessError)) throw error;
      return error.message;
    }
  });
  return outcomes.filter((failure): failure is string => failure !== undefined);
}

