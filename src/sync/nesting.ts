/**
 * Packages never nest (issue 26 items 3 and 4). Porch refuses a new package inside an existing one
 * ("packages cannot be nested"); it does not see packages inside the directory of a new one (its
 * check compares only their last names), and approving the new package would then replace that
 * directory on the branch, removing them. A downstream to be created is refused in both cases,
 * naming what is there: a package above it, or the packages (or, where none, the files) below it,
 * whether known by their refs or found on the Repository's branch. Packages this run creates count
 * too: of two new packages one inside the other, the inner one is refused.
 */
import { quotePath } from '../package/path-text';
import type { DesiredDownstream } from './desired';
import type { Prepared } from './downstream';
import type { RepositoryReader } from './repository-state';
import { packagePath } from './repositories';
import type { PackageState } from './state';
import { nothing, type Written } from './written';

/** How many names a message lists before it counts the rest. */
const LISTED = 10;

const isPackage = (state: PackageState | undefined): boolean => state !== undefined && (state.revisions.length > 0 || state.branch !== undefined);

/** The names of the directories above the package, inside the Repository's directory: `a`, `a/b` for `a/b/c`. */
function namesAbove(pkg: string): string[] {
  const names = pkg.split('/');
  return names.slice(1).map((_, i) => names.slice(0, i + 1).join('/'));
}

/** The paths in the repository of the directories above the package, inside the Repository's directory. */
export const ancestorPaths = (d: DesiredDownstream): string[] => namesAbove(d.pkg).map((name) => packagePath(d.repository, name));

function listed(names: readonly string[]): string {
  const shown = names.slice(0, LISTED).map(quotePath).join(', ');
  return names.length > LISTED ? `${shown}, and ${names.length - LISTED} more` : shown;
}

/** A package above the one to create: one the repository holds, or one this run creates. */
function packageAbove(d: DesiredDownstream, states: ReadonlyMap<string, PackageState>, created: ReadonlyMap<string, DesiredDownstream>): string | undefined {
  for (const name of namesAbove(d.pkg)) {
    const path = packagePath(d.repository, name);
    if (isPackage(states.get(path))) return `package path ${JSON.stringify(d.pkg)} conflicts with existing package ${JSON.stringify(name)}: packages cannot be nested`;
    const other = created.get(path);
    if (other) return `package path ${JSON.stringify(d.pkg)} conflicts with package ${JSON.stringify(name)}, which ${other.label} creates: packages cannot be nested`;
  }
  return undefined;
}

/** The packages below the one to create (by their refs, or by a Kptfile on the branch), else the files there. */
function contentBelow(d: DesiredDownstream, states: ReadonlyMap<string, PackageState>, onBranch: readonly string[]): string | undefined {
  const inside = `${d.pkgpath}/`;
  const packages = new Set([...states].filter(([path, state]) => path.startsWith(inside) && isPackage(state)).map(([path]) => path.slice(inside.length)));
  const kptfiles = onBranch.filter((path) => path.endsWith('/Kptfile')).map((path) => path.slice(0, -'/Kptfile'.length));
  // As Porch finds packages on a branch: a directory with a Kptfile, and nothing below it.
  for (const dir of kptfiles) if (!kptfiles.some((other) => dir.startsWith(`${other}/`))) packages.add(dir);
  const branch = `branch ${d.repository.branch}`;
  if (packages.size > 0) {
    const names = [...packages].sort().map((path) => `${d.pkg}/${path}`);
    return `package path ${JSON.stringify(d.pkg)} holds ${names.length === 1 ? 'a package' : `${names.length} packages`} (${listed(names)}): packages cannot be nested, and a package made there would take their place on ${branch}; nothing is written`;
  }
  if (onBranch.length === 0) return undefined;
  const files = onBranch.map((path) => `${d.pkg}/${path}`).sort();
  return `package path ${JSON.stringify(d.pkg)} is a directory on ${branch} holding ${files.length === 1 ? 'a file' : `${files.length} files`} of no package (${listed(files)}): a package made there would remove ${files.length === 1 ? 'it' : 'them'}; nothing is written`;
}

const creates = (p: Prepared | Written): p is Prepared => !('entry' in p) && p.decision.kind === 'create';

/** The downstreams of one repository, those to be created where packages would nest refused (invalid, naming what is there). */
export async function refuseNesting(prepared: readonly (Prepared | Written)[], states: ReadonlyMap<string, PackageState>, head: string, reader: RepositoryReader): Promise<(Prepared | Written)[]> {
  const creating = prepared.filter(creates);
  if (creating.length === 0) return [...prepared];
  const onBranch = await reader.listPaths(creating.map((p) => ({ commit: head, directory: p.d.pkgpath })));
  const below = new Map(creating.map((p, i) => [p, onBranch[i]!]));
  const created = new Map(creating.map((p) => [p.d.pkgpath, p.d]));
  return prepared.map((p) => {
    if (!creates(p)) return p;
    const why = packageAbove(p.d, states, created) ?? contentBelow(p.d, states, below.get(p)!);
    return why === undefined ? p : nothing(p.d, 'invalid', why);
  });
}
