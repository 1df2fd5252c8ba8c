/**
 * The package-level table of `kpt pkg update`: for every subpackage, which of origin, upstream and
 * local hold it (a Kptfile in its directory), and so what the update does with it as a whole,
 * before any resource is looked at. The resource-level table is src/merge/resources/handling.ts.
 */
import type { MergeStrategy } from '../config/function-config';
import { isWithin, parentScope, ROOT, rootFirst } from './scopes';

export type Side = 'origin' | 'upstream' | 'local';

/** A Kptfile's `upstream.git` (where the package is fetched from). */
export interface UpstreamGit {
  readonly repo?: string;
  readonly directory?: string;
  readonly ref?: string;
}

/** What the package table needs from a Kptfile. */
export interface KptfileFacts {
  /** Present when the Kptfile has an `upstream` section. */
  readonly upstream?: { readonly git?: UpstreamGit };
  readonly hasLock: boolean;
}

/** The Kptfiles of one package directory, by side. */
export type PackageVersions = { [side in Side]?: KptfileFacts };

export type PackageCase =
  /** In all three: merged resource by resource. */
  | 'merge'
  | 'added-upstream'
  /** Only local has it. */
  | 'local-only'
  /** Deleted upstream: removed when unchanged locally, else kept. */
  | 'deleted-upstream'
  /** Origin and upstream have it, local deleted it: it stays deleted. */
  | 'deleted-locally'
  | 'deleted-in-both'
  /** Its Kptfile records its own upstream, which the parent's origin did not: updated on its own. */
  | 'independent'
  /** Upstream holds it unfetched (an upstream but no lock): only its Kptfile merges. */
  | 'kptfile-only'
  /** Below an independent package: that package's business. */
  | 'foreign';

export interface PackageDecision {
  readonly dir: string;
  readonly case: PackageCase;
  /** For `foreign`: the independent package that holds it. */
  readonly owner?: string;
}

export interface PackageTable {
  /** Every package directory of any version, parents first; the root is ''. */
  readonly decisions: ReadonlyMap<string, PackageDecision>;
  /** Problems that stop the update, one a package. */
  readonly errors: readonly string[];
}

function sameUpstream(a: UpstreamGit | undefined, b: UpstreamGit | undefined): boolean {
  return (a?.repo ?? '') === (b?.repo ?? '') && (a?.directory ?? '') === (b?.directory ?? '') && (a?.ref ?? '') === (b?.ref ?? '') && (a === undefined) === (b === undefined);
}

/**
 * A local subpackage whose `upstream.git` is not what origin recorded for it was fetched or updated
 * on its own (`kpt pkg get` into the package, or an update of its own): kpt's PkgHasUpdatedUpstream.
 */
function isIndependent(versions: PackageVersions): boolean {
  const local = versions.local;
  if (!local?.upstream?.git) return false;
  return !versions.origin || !sameUpstream(local.upstream.git, versions.origin.upstream?.git);
}

const isUnfetched = (facts: KptfileFacts | undefined) => facts?.upstream !== undefined && !facts.hasLock;

function decide(dir: string, versions: PackageVersions, strategy: MergeStrategy): PackageCase | { error: string } {
  const { origin: o, upstream: u, local: l } = versions;
  if (!o && l && u && strategy === 'resource-merge') return { error: `subpackage "${dir}" added in both upstream and local` };
  if (isIndependent(versions)) return 'independent';
  if (strategy !== 'resource-merge') return l || u ? 'merge' : 'deleted-in-both';
  if (o && l && u) {
    if (isUnfetched(u)) return 'kptfile-only';
    if (isUnfetched(o)) return { error: `no origin available for package "${dir}": it was unfetched when the package was fetched` };
    return 'merge';
  }
  if (u) return o ? 'deleted-locally' : 'added-upstream';
  if (l) return o ? 'deleted-upstream' : 'local-only';
  return 'deleted-in-both';
}

/**
 * The table for every package directory of the three versions. The root is always merged.
 * fast-forward and force-delete-replace replace every package that is not independent (kpt's
 * ReplaceUpdater), so for them only independence counts.
 */
export function packageTable(packages: ReadonlyMap<string, PackageVersions>, strategy: MergeStrategy): PackageTable {
  const decisions = new Map<string, PackageDecision>();
  const errors: string[] = [];
  const dirs = new Set([ROOT, ...packages.keys()]);
  for (const dir of rootFirst(dirs)) {
    if (dir === ROOT) {
      decisions.set(dir, { dir, case: 'merge' });
      continue;
    }
    const parent = decisions.get(parentScope(dir, dirs))!;
    const owner = parent.case === 'independent' ? parent.dir : parent.owner;
    if (owner !== undefined) {
      decisions.set(dir, { dir, case: 'foreign', owner });
      continue;
    }
    const outcome = decide(dir, packages.get(dir) ?? {}, strategy);
    if (typeof outcome === 'string') decisions.set(dir, { dir, case: outcome });
    else {
      errors.push(outcome.error);
      decisions.set(dir, { dir, case: 'local-only' });
    }
  }
  return { decisions, errors };
}

/** The directories at or below `dir` that the table knows. */
export function packagesWithin(table: PackageTable, dir: string): PackageDecision[] {
  return [...table.decisions.values()].filter((d) => isWithin(d.dir, dir));
}
