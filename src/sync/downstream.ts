/**
 * One desired downstream from what its repository holds: the upstream revision resolved and the
 * decision made (decide.ts), the packages it reads fetched with its repository's others, then its
 * content computed (drafts.ts) and turned into commits, refs and a plan line (written.ts).
 */
import { RenderError } from '../disk/kpt-render';
import { isFullSha } from '../git/repo-cache';
import { FunctionError } from '../krm/results';
import { ResourceFileError } from '../package/resource-files';
import { PackageTree } from '../package/tree';
import { CloneError } from './clone';
import { unproposals } from './deletions';
import { decide, type Decision } from './decide';
import type { DesiredDownstream } from './desired';
import { createDraft, editDraft, updateDraft, upgradeDraft, type Mutations } from './drafts';
import { leftAlone } from './ownership';
import { cloneTask, editTask, INIT_TASK, upgradeTask, type PorchTask } from './porch-commits';
import { MAX_REVISION, nextVariantWorkspace, packageRevisionName } from './porch-refs';
import type { PlannedDownstream } from './plan';
import { foreignDrafts, nextRevision, unpublished, type PackageState, type RevisionState } from './state';
import type { Opened, Repositories, Version } from './opened';
import { RepositoryAccessError, type PlanSettings } from './settings';
import { entryOf, existingDraft, newDraft, nothing, publishedNameOf, shortRef, type Written } from './written';
import { lockOf, resolveUpstream, tagWorkspace, UpstreamError, type UpstreamRevision } from './upstream';

/** A downstream decided, with what it needs read before its content can be computed. */
export interface Prepared {
  readonly d: DesiredDownstream;
  readonly state: PackageState | undefined;
  readonly upstream: UpstreamRevision;
  readonly upstreamSide: Opened;
  readonly decision: Exclude<Decision, { kind: 'conflict' | 'blocked' }>;
}


/** The upstream resolved and the decision made; a Written when that already settles the downstream. */
export async function prepareDownstream(d: DesiredDownstream, state: PackageState | undefined, opened: Repositories): Promise<Prepared | Written> {
  if (state?.unreadable) return nothing(d, 'invalid', state.unreadable);
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
  if (decision.kind === 'blocked') return withForeign(d, state, { ...nothing(d, 'blocked', decision.reason), entry: { ...entryOf(d, 'blocked', decision.reason), targets: unpublished(state!).map((r) => publishedNameOf(d, r)) } });
  if (decision.kind === 'upgrade' && !isFullSha(decision.from.kptfile!.lock!.commit)) {
    // The commit comes from the package: only a commit name is looked up, and only at this package's path upstream.
    return nothing(d, 'invalid', `${publishedNameOf(d, decision.from)} records upstreamLock.git.commit ${JSON.stringify(decision.from.kptfile!.lock!.commit)}, which is no commit name: the upstream revision it was made from is unknown`);
  }
  return { d, state, upstream, upstreamSide, decision };
}

/** What a new revision derives from, for the plan: a published revision, or a package only on the branch and the task that starts it. */
function sourceOf(d: DesiredDownstream, from: RevisionState, first: PorchTask): string {
  if (first.type === 'edit' || first.type === 'upgrade') return `${publishedNameOf(d, from)} (v${from.revision})`;
  const task = first.type === 'clone' ? `clone of ${first.clone.upstreamRef.upstreamRef.name}` : 'init (it records no upstream)';
  return `${d.pkg} on branch ${d.repository.branch}, which has no revision: a first revision by ${task}`;
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
export async function prefetchTrees(own: Opened, prepared: readonly (Prepared | Written)[]): Promise<void> {
  const ready = prepared.filter((p): p is Prepared => !('entry' in p));
  await own.prefetch(ready.map(downstreamVersion).filter((v): v is Version => v !== undefined));
  const bySide = new Map<Opened, Version[]>();
  for (const p of ready) (bySide.get(p.upstreamSide) ?? bySide.set(p.upstreamSide, []).get(p.upstreamSide)!).push(...upstreamVersions(p));
  for (const [side, versions] of bySide) await side.prefetch(versions);
}

export async function computeDownstream(prepared: Prepared, head: string, offset: number, settings: PlanSettings, own: Opened): Promise<Written> {
  const { d, state } = prepared;
  const written = withUnproposals(prepared, await computeContent(prepared, head, offset, settings, own));
  if (written.publish && nextRevision(state) > MAX_REVISION) {
    const largest = state!.revisions.find((r) => r.lifecycle === 'published' && r.revision === MAX_REVISION)!;
    return nothing(d, 'invalid', `${d.pkg} of Repository ${d.repository.name} has revision ${MAX_REVISION} (${shortRef(largest.ref)}), the largest Porch can hold: no further revision of it can be published`);
  }
  if (!prepared.decision.adopting || written.entry.action === 'invalid' || written.entry.action === 'not-converging') return withForeign(d, state, written);
  const detail =
    written.entry.action === 'unchanged'
      ? `adoptable: no variant owns it; its ownership is recorded with the next revision sync writes (--adopt-now records it now)`
      : `adopts it, recording its ownership; ${written.entry.detail}`;
  return withForeign(d, state, { ...written, entry: { ...written.entry, detail } });
}

/** The plan names the drafts and proposals of the package that sync did not make, and leaves them alone. */
function withForeign(d: DesiredDownstream, state: PackageState | undefined, written: Written): Written {
  const note = state && written.entry.action !== 'invalid' ? leftAlone(foreignDrafts(state), (r) => publishedNameOf(d, r)) : undefined;
  if (!note) return written;
  return { ...written, entry: { ...written.entry, detail: written.entry.detail ? `${written.entry.detail}; ${note}` : note } };
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

/** The package a downstream's content is computed from, for a file of it that cannot be read. */
function readFrom({ d, upstream, decision }: Prepared): string {
  switch (decision.kind) {
    case 'create':
      return `upstream ${upstream.name}`;
    case 'upgrade':
      return `${upstream.name} merged into ${publishedNameOf(d, decision.from)}`;
    case 'check-published':
      return publishedNameOf(d, decision.from);
    case 'check-draft':
      return publishedNameOf(d, decision.draft);
    case 'check-proposal':
      return publishedNameOf(d, decision.proposal);
  }
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
        const first = from === state?.branch ? cloneTask(upstream.name) : upgradeTask(packageRevisionName(upstream.repository.name, upstream.packageName, oldWorkspace), upstream.name, publishedName);
        const outcome = await upgradeDraft({ published, oldUpstream, newUpstream: await upstreamTree(), lock: lockOf(upstream) }, first, mutations);
        return newDraft(d, 'upgrade', `${lock.ref} -> ${upstream.ref} from ${sourceOf(d, from, first)}`, outcome, head, offset, nextVariantWorkspace(workspaces), settings, published);
      }
      case 'check-published': {
        const from = decision.from;
        const published = await own.tree(downstreamVersion(prepared)!);
        const publishedName = publishedNameOf(d, from);
        // Porch makes no revision from a package only on the branch (its placeholder): the first one is a clone of what it records, or an init.
        const first = from !== state?.branch ? editTask(publishedName) : from.kptfile?.lock ? cloneTask(upstream.name) : INIT_TASK;
        const outcome = await editDraft(published, first, mutations);
        return newDraft(d, 'edit', `the variant changes ${sourceOf(d, from, first)}`, outcome, head, offset, nextVariantWorkspace(workspaces), settings, published, publishedName);
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
    // A file of the upstream or of the downstream that cannot be read: named, with the package it is in.
    if (error instanceof ResourceFileError) return nothing(d, 'invalid', `${readFrom(prepared)}: ${error.message}`);
    throw error;
  }
}
