/**
 * A sync run as data: per downstream, what it does and the refs it writes; per repository, the
 * commits to make and the refs to move, each with the value it must still have when pushed. The
 * plan is computed whole before anything is written, printed as it is (`--dry-run`), then carried
 * out one repository at a time, each in one atomic push.
 */
import type { NewCommit } from '../git/fast-import';
import type { Result } from '../krm/results';

export type Action =
  | 'create'
  | 'upgrade'
  | 'edit'
  | 'update'
  | 'propose'
  | 'publish'
  | 'reject'
  | 'propose-delete'
  | 'unchanged'
  | 'blocked'
  | 'conflict'
  | 'not-converging'
  | 'invalid'
  | 'delete'
  | 'orphan'
  | 'deletion-proposed'
  | 'restore';

/** Actions that write. */
export const CHANGES: ReadonlySet<Action> = new Set(['create', 'upgrade', 'edit', 'update', 'propose', 'publish', 'reject', 'propose-delete', 'delete', 'orphan', 'restore']);
/** Actions that need someone to act: a CI job fails on them. */
export const ATTENTION: ReadonlySet<Action> = new Set(['blocked', 'conflict', 'not-converging', 'invalid']);

export interface PlannedDownstream {
  /** The downstream Repository's name, '' when the variant names none that was given. */
  readonly repository: string;
  readonly pkg: string;
  /** `PackageVariant <namespace>/<name>`. */
  readonly variant: string;
  readonly action: Action;
  /** Upstream revisions, where it comes from, why it is blocked. */
  readonly detail: string;
  /** The refs written, short names (`drafts/app/packagevariant-1`, `main`, `tag app/v1`). */
  readonly refs: readonly string[];
  readonly results: readonly Result[];
  /** With --diff: the new revision against what it derives from, paths relative to the repository. */
  readonly diff?: string;
  /** With --diff, for an approval that replaces changes made on the branch: the branch's package against the published one. */
  readonly branchDiff?: { readonly branch: string; readonly diff: string };
  /** The PackageRevisions (Porch's names) that stand for the downstream after the run: Porch's `status.downstreamTargets`. */
  readonly targets?: readonly string[];
  /** The variant is one Porch would stall (its upstream revision cannot be found). */
  readonly stalled?: boolean;
}

/** A ref to move: to a commit (an index into the repository's new commits, or a commit name), or away (null). */
export interface RefUpdate {
  readonly ref: string;
  /** What the ref must still be when pushed; undefined: it must not exist. */
  readonly expected: string | undefined;
  readonly target: number | string | null;
}

export interface RepositoryWrite {
  /** The Repository, as namespace/name. */
  readonly repository: string;
  readonly url: string;
  readonly commits: readonly NewCommit[];
  readonly updates: readonly RefUpdate[];
}

export interface SyncPlan {
  readonly downstreams: readonly PlannedDownstream[];
  readonly writes: readonly RepositoryWrite[];
  /** Problems of variants or sets that make no downstream at all (a set that does not expand). */
  readonly problems: readonly Result[];
}

const COLUMN = 11;

/**
 * A text of several lines (git's own message, quoted) as part of one entry: the lines after the first
 * indented below it, so that none reads as an entry or a repository of the plan.
 */
const continued = (text: string): string => text.replace(/\n+$/, '').replace(/\n/g, '\n        ');

/** The plan as printed: one line per downstream, grouped by repository, then a totals line. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The plan's downstreams by repository, each under the line that names it, both in name order. */
function byRepository(plan: SyncPlan, urls: ReadonlyMap<string, string>): [heading: string, entries: PlannedDownstream[]][] {
  const groups = new Map<string, PlannedDownstream[]>();
  for (const entry of plan.downstreams) (groups.get(entry.repository) ?? groups.set(entry.repository, []).get(entry.repository)!).push(entry);
  return [...groups]
    .sort(([a], [b]) => byText(a, b))
    .map(([repository, entries]) => [repository ? `repository ${repository} (${urls.get(repository) ?? ''})` : 'no repository', entries.sort((a, b) => byText(a.pkg, b.pkg))]);
}

const entryLine = (entry: PlannedDownstream): string => {
  const refs = entry.refs.length ? ` -> ${entry.refs.join(', ')}` : '';
  return `  ${entry.action.padEnd(COLUMN)} ${entry.pkg}  ${continued(entry.detail)}${refs}`.trimEnd();
};

export function planText(plan: SyncPlan, urls: ReadonlyMap<string, string>): string {
  const lines: string[] = [];
  for (const problem of plan.problems) lines.push(`${problem.severity}: ${continued(problem.message)}`);
  for (const [heading, entries] of byRepository(plan, urls)) {
    lines.push(heading);
    for (const entry of entries) {
      lines.push(entryLine(entry));
      for (const result of entry.results) if (result.severity !== 'info') lines.push(`      ${result.severity}: ${continued(result.message)}`);
    }
  }
  lines.push(totals(plan.downstreams));
  return `${lines.join('\n')}\n`;
}

/**
 * `--diff`: each new revision's diff under the line of its repository and its plan entry, so two
 * repositories' `app/Kptfile` diffs are told apart by more than their order. The lines are plan
 * text, for the caller to print as it prints the plan; the diffs are git's.
 */
export function diffSections(plan: SyncPlan, urls: ReadonlyMap<string, string>): { heading: string; diffs: { line: string; diff: string }[] }[] {
  return byRepository(plan, urls)
    .map(([heading, entries]) => ({
      heading,
      diffs: entries.flatMap((entry) => [
        ...(entry.diff ? [{ line: entryLine(entry), diff: entry.diff }] : []),
        ...(entry.branchDiff ? [{ line: `  ${entry.pkg}: what publishing replaces on ${entry.branchDiff.branch}`, diff: entry.branchDiff.diff }] : []),
      ]),
    }))
    .filter((section) => section.diffs.length > 0);
}

const ORDER: readonly Action[] = ['create', 'upgrade', 'edit', 'update', 'propose', 'publish', 'reject', 'propose-delete', 'restore', 'delete', 'orphan', 'deletion-proposed', 'blocked', 'conflict', 'not-converging', 'invalid', 'unchanged'];

export function totals(downstreams: readonly PlannedDownstream[]): string {
  const counts = ORDER.map((action) => [action, downstreams.filter((d) => d.action === action).length] as const).filter(([action, n]) => n > 0 || action === 'unchanged');
  return `Plan: ${counts.map(([action, n]) => `${n} ${action}`).join(', ')}.`;
}

/** What a CI job needs to know of a plan: some downstream needs someone (whatever else was done), else whether anything changes. */
export function planOutcome(plan: SyncPlan): 'attention' | 'changes' | 'nothing-to-do' {
  if (plan.problems.some((p) => p.severity === 'error') || plan.downstreams.some((d) => ATTENTION.has(d.action))) return 'attention';
  return plan.downstreams.some((d) => CHANGES.has(d.action)) ? 'changes' : 'nothing-to-do';
}
