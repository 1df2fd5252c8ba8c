/**
 * Which package each item belongs to, from the items alone: their path annotations and the
 * Kptfiles among them (`kpt fn eval` on a composite package sends every subpackage's resources).
 * Boundaries come from the local tree, as in kpt: an origin or upstream resource below a local
 * subpackage belongs to it, and so does one below a subpackage of its own version.
 */
import type { KrmResource } from '../../krm/resource';
import type { KptfileFacts, PackageVersions, Side, UpstreamGit } from '../../package/package-table';
import { dirOf, KPTFILE, ROOT, scopeOf } from '../../package/scopes';
import type { MergeSources } from './sources';

const SIDES: readonly Side[] = ['origin', 'upstream', 'local'];

const stringAt = (kptfile: KrmResource, path: string[]) => kptfile.getString(path);

function kptfileFacts(kptfile: KrmResource): KptfileFacts {
  const upstream = kptfile.getData(['upstream']);
  const git: UpstreamGit | undefined = kptfile.has(['upstream', 'git'])
    ? { repo: stringAt(kptfile, ['upstream', 'git', 'repo']), directory: stringAt(kptfile, ['upstream', 'git', 'directory']), ref: stringAt(kptfile, ['upstream', 'git', 'ref']) }
    : undefined;
  return {
    ...(upstream !== undefined && upstream !== null ? { upstream: git ? { git } : {} } : {}),
    hasLock: kptfile.has(['upstreamLock']),
  };
}

/** The directory a Kptfile item stands for; one without a path is the root's. */
function kptfileDir(kptfile: KrmResource): string {
  return dirOf(kptfile.path ?? KPTFILE);
}

export function isRootKptfile(resource: KrmResource): boolean {
  return resource.isKptfile && kptfileDir(resource) === ROOT;
}

export interface PackageLayout {
  /** Every package directory below the root, with the Kptfile each version has there. */
  readonly versions: ReadonlyMap<string, PackageVersions>;
  /** The package each resource belongs to ('' is the root package). */
  scopeOf(resource: KrmResource): string;
}

export function packageLayout(sources: MergeSources): PackageLayout {
  const versions = new Map<string, { [side in Side]?: KptfileFacts }>();
  const dirs: Record<Side, Set<string>> = { origin: new Set([ROOT]), upstream: new Set([ROOT]), local: new Set([ROOT]) };
  for (const side of SIDES) {
    for (const resource of sources[side]) {
      if (!resource.isKptfile) continue;
      const dir = kptfileDir(resource);
      dirs[side].add(dir);
      if (dir === ROOT) continue;
      if (!versions.has(dir)) versions.set(dir, {});
      versions.get(dir)![side] = kptfileFacts(resource);
    }
  }
  const scopes = new Map<KrmResource, string>();
  for (const side of SIDES) {
    const bounds = side === 'local' ? dirs.local : new Set([...dirs.local, ...dirs[side]]);
    for (const resource of sources[side]) {
      scopes.set(resource, resource.isKptfile ? kptfileDir(resource) : resource.path === undefined ? ROOT : scopeOf(resource.path, bounds));
    }
  }
  return { versions, scopeOf: (resource) => scopes.get(resource) ?? ROOT };
}
