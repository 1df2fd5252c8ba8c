/**
 * The content of what sync writes for one downstream, commit by commit, computed in memory
 * (porch-lifecycle.md §11.6): a first commit that says where the revision comes from (a clone, an
 * upgrade's three-way merge, a copy of the published revision), then, when the variant's
 * mutations and the render change anything, a `Rendering package` commit. A package whose
 * mutations do not settle (mutate, render, mutate again differs) is never written: each run would
 * add another commit, as Porch's controller does (kpt #3877).
 */
import { createHash } from 'node:crypto';
import type { ConfigObject } from '../config/function-config';
import { hasError, type Result } from '../krm/results';
import { hasPipeline } from '../disk/kpt-render';
import { updateTree } from '../merge/package/update-tree';
import { quotePath } from '../package/path-text';
import type { PackageTree } from '../package/tree';
import { clonePackage, type CloneFacts, type UpstreamLock } from './clone';
import { withMergeKeys } from './merge-key';
import { mutatePackage, packagesDiffer } from './mutate';
import { withOwnership, type Ownership } from './ownership';
import { cloneTask, MESSAGES, type PorchTask } from './porch-commits';

export interface DraftCommit {
  readonly message: string;
  readonly task: PorchTask;
  readonly tree: PackageTree;
}

export type DraftOutcome =
  /** Commits to add, in order; `base` is what the first derives from, for a diff. */
  | { readonly kind: 'commits'; readonly commits: readonly DraftCommit[]; readonly base: PackageTree; readonly results: readonly Result[] }
  | { readonly kind: 'unchanged'; readonly results: readonly Result[] }
  | { readonly kind: 'not-converging'; readonly results: readonly Result[] }
  | { readonly kind: 'failed'; readonly results: readonly Result[] };

export interface Mutations {
  /**
   * The ownership to record where the package does not record it yet (an adopted one): written with
   * the next commit the mutations make, or, with `adoptNow`, in a commit of its own.
   */
  readonly adopt?: { readonly ownership: Ownership; readonly now: boolean };
  readonly variant: ConfigObject;
  /** The objects standing in for the cluster: injection sources. */
  readonly candidates: readonly ConfigObject[];
  /** kpt fn render, or undefined with --no-render. */
  readonly render?: (tree: PackageTree) => Promise<PackageTree>;
}

const RENDER_TASK: PorchTask = { type: 'render' };

/** A commit recording `task`, under the message Porch gives it. */
const commitOf = (task: PorchTask, tree: PackageTree): DraftCommit => ({ message: MESSAGES[task.type], task, tree });

interface Finished {
  readonly tree: PackageTree;
  readonly results: readonly Result[];
  readonly converges: boolean;
}

/** The variant's mutations and the render; whether mutating the result again leaves it as it is. */
async function finish(tree: PackageTree, mutations: Mutations): Promise<Finished> {
  const mutated = mutatePackage(tree, mutations.variant, mutations.candidates);
  const render = mutations.render && hasPipeline(mutated.tree);
  // Mutations that change nothing and no render: mutating again cannot differ.
  if (!render && !packagesDiffer(tree, mutated.tree)) return { tree: mutated.tree, results: mutated.results, converges: true };
  const rendered = render ? await mutations.render!(mutated.tree) : mutated.tree;
  const again = mutatePackage(rendered, mutations.variant, mutations.candidates);
  return { tree: rendered, results: mutated.results, converges: !packagesDiffer(rendered, again.tree) };
}

/** `first` (when given) then a render commit if the mutations change `start` (or an adoption asks for one now). */
async function commitsFrom(start: PackageTree, base: PackageTree, first: DraftCommit | undefined, mutations: Mutations, results: readonly Result[] = []): Promise<DraftOutcome> {
  const done = await finish(start, mutations);
  const all = [...results, ...done.results];
  if (!done.converges) return { kind: 'not-converging', results: all };
  const { adopt } = mutations;
  const changes = packagesDiffer(start, done.tree);
  const owned = adopt ? withOwnership(done.tree, adopt.ownership) : done.tree;
  // An adopted package's ownership goes with the next revision written, or alone with --adopt-now.
  const record = adopt !== undefined && (changes || first !== undefined || adopt.now) && owned !== done.tree;
  const commits = [...(first ? [first] : []), ...(changes || record ? [commitOf(RENDER_TASK, owned)] : [])];
  return commits.length === 0 ? { kind: 'unchanged', results: all } : { kind: 'commits', commits, base, results: all };
}

/** Clones by upstream package and facts: a fleet clones one upstream for many downstreams, most with the same facts. */
const clones = new WeakMap<PackageTree, Map<string, PackageTree>>();

function cloneOnce(upstream: PackageTree, facts: CloneFacts): PackageTree {
  const byFacts = clones.get(upstream) ?? clones.set(upstream, new Map()).get(upstream)!;
  const key = JSON.stringify(facts);
  if (!byFacts.has(key)) byFacts.set(key, clonePackage(upstream, facts));
  return byFacts.get(key)!;
}

/**
 * A warning for each of the upstream's entries sync never writes, naming it: its submodules and, in a
 * clone, its symbolic links (an upgrade's merge reports links itself, as `update` does).
 */
function leftOutOfUpstream(upstream: PackageTree, links: boolean): Result[] {
  const warn = (path: string, what: string): Result => ({ severity: 'warning', message: `the upstream's ${quotePath(path)} is ${what}, which sync never writes: the downstream leaves it out`, file: { path } });
  return [
    ...(links ? [...upstream.links].sort().map((path) => warn(path, 'a symbolic link (git mode 120000)')) : []),
    ...[...upstream.submodules].sort().map((path) => warn(path, 'a submodule (a gitlink, git mode 160000)')),
  ];
}

export function createDraft(upstream: PackageTree, facts: CloneFacts, upstreamName: string, mutations: Mutations): Promise<DraftOutcome> {
  const cloned = cloneOnce(upstream, facts);
  return commitsFrom(cloned, upstream, commitOf(cloneTask(upstreamName), cloned), mutations, leftOutOfUpstream(upstream, true));
}

export interface UpgradeSources {
  readonly published: PackageTree;
  readonly oldUpstream: PackageTree;
  readonly newUpstream: PackageTree;
  readonly lock: UpstreamLock;
}

/** A package's content as a key: identical packages (a fleet's downstreams of one name often are) share one. */
const contentKeys = new WeakMap<PackageTree, string>();

function contentKey(tree: PackageTree): string {
  let key = contentKeys.get(tree);
  if (key === undefined) {
    const hash = createHash('sha256');
    for (const path of [...tree.files.keys()].sort()) {
      const file = tree.files.get(path)!;
      hash.update(`${path}\0${file.mode}\0${file.bytes.length}\0`).update(file.bytes);
    }
    key = hash.digest('hex');
    contentKeys.set(tree, key);
  }
  return key;
}

/** Merges by their three packages and the upstream recorded: identical inputs are merged once. */
const merges = new Map<string, ReturnType<typeof updateTree>>();

/**
 * kpt's resource-merge of the published package with the old and new upstream, recorded as `task`:
 * Porch's upgrade, or the clone of the new upstream that starts a package only on the branch.
 */
export async function upgradeDraft(sources: UpgradeSources, task: PorchTask, mutations: Mutations): Promise<DraftOutcome> {
  const { lock } = sources;
  const key = [contentKey(sources.published), contentKey(sources.oldUpstream), contentKey(sources.newUpstream), JSON.stringify(lock)].join(':');
  if (!merges.has(key)) {
    const update = updateTree(sources.published, sources.oldUpstream, sources.newUpstream, {
      strategy: 'resource-merge',
      // Porch's upgrade writes upstream and upstreamLock both from the new upstream: a package adopted
      // from `kpt pkg get` keeps no second spelling of where it comes from.
      record: { ref: lock.ref, upstream: { repo: lock.repo, directory: lock.directory, ref: lock.ref }, lock: { repo: lock.repo, directory: lock.directory, ref: lock.ref, commit: lock.commit } },
    });
    // Porch's upgrade ends as its clone does: every resource with its merge key, the new ones too.
    merges.set(key, update.tree && !hasError(update.results) ? { ...update, tree: withMergeKeys(update.tree) } : update);
  }
  const merged = merges.get(key)!;
  if (hasError(merged.results) || !merged.tree) return { kind: 'failed', results: merged.results };
  return commitsFrom(merged.tree, sources.published, commitOf(task, merged.tree), mutations, [...merged.results, ...leftOutOfUpstream(sources.newUpstream, false)]);
}

/**
 * A copy of a package recorded as `task` (Porch's edit of a published revision, or the clone or init
 * that starts a package only on the branch), then the mutations; nothing when they change nothing.
 */
export async function editDraft(published: PackageTree, task: PorchTask, mutations: Mutations): Promise<DraftOutcome> {
  const outcome = await commitsFrom(published, published, undefined, mutations);
  if (outcome.kind !== 'commits') return outcome;
  return { ...outcome, commits: [commitOf(task, published), ...outcome.commits] };
}

/** One more render commit on an existing draft, when the mutations change it. */
export function updateDraft(draft: PackageTree, mutations: Mutations): Promise<DraftOutcome> {
  return commitsFrom(draft, draft, undefined, mutations);
}
