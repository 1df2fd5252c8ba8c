/**
 * Changes made on a Repository's branch outside a package's revisions, which publishing replaces.
 */
import { planIsEmpty, planUpdate } from '../disk/plan';
import type { Result } from '../krm/results';
import type { PackageTree } from '../package/tree';
import type { Opened } from './opened';
import type { PlannedDownstream } from './plan';
import { publishedTag } from './porch-refs';
import { latestPublished, type PackageState } from './state';
import { diffOf } from './written';

/**
 * An approval replaces the package's directory on the branch with the published revision, as
 * Porch's does. Where commits on the branch changed that directory since the package's latest
 * revision (a hotfix made there by hand), those changes go: the plan warns, and --diff shows them.
 */
export async function withBranchEdits(entry: PlannedDownstream, pkgpath: string, branch: string, state: PackageState | undefined, head: string, published: PackageTree, diff: boolean, own: Opened): Promise<PlannedDownstream> {
  const latest = state && latestPublished(state);
  if (!state?.branch || !latest) return entry;
  const [onBranch, revision] = await Promise.all([own.tree({ commit: head, directory: pkgpath }), own.tree({ commit: latest.commit, directory: pkgpath })]);
  if (planIsEmpty(planUpdate('', revision, onBranch))) return entry;
  const warning: Result = {
    message: `${pkgpath} on ${branch} differs from its latest revision ${publishedTag(pkgpath, latest.revision)} (changed there outside its revisions): publishing replaces those changes${diff ? '' : ' (--diff shows them)'}`,
    severity: 'warning',
  };
  return { ...entry, results: [...entry.results, warning], ...(diff ? { branchDiff: { branch, diff: diffOf(pkgpath, onBranch, published) } } : {}) };
}
