/**
 * Porch's own PackageVariant and PackageVariantSet controllers (the judge's `controllers` command:
 * their reconcilers in-process, over Porch's engine and git backend) beside `package-variant sync`:
 * the same fleet on two copies of the same repositories, and what each leaves behind compared.
 */
import { join } from 'node:path';
import { git } from '../pkg/git-repos';
import { porch, porchList, type PorchRevision } from './judge';

/** One copy's fleet: the file both read and the judge's cache and cluster state beside it. */
export interface FleetCopy {
  readonly root: string;
  readonly fleet: string;
  readonly repositories: readonly string[];
}

/** What Porch's controllers report of a run. */
export interface ControllersReport {
  readonly passes: number;
  readonly converged: boolean;
  readonly writes: number;
  readonly errors: Readonly<Record<string, string>>;
  readonly packageVariants: readonly { readonly name: string; readonly downstreamTargets: readonly { readonly name: string }[] | null }[];
}

const cacheOf = (copy: FleetCopy): string => join(copy.root, 'porch-cache');

/** Porch's controllers over the copy's fleet file, from the cluster the last run left. */
export function porchControllers(copy: FleetCopy): ControllersReport {
  return JSON.parse(porch(copy.fleet, cacheOf(copy), ['controllers', '-state', join(copy.root, 'porch-state.json'), copy.fleet])) as ControllersReport;
}

/** A PackageRevision's lifecycle moved through Porch's engine (Proposed, then Published: an approval). */
export function porchLifecycle(copy: FleetCopy, name: string, lifecycle: string): void {
  porch(copy.fleet, cacheOf(copy), ['lifecycle', name, lifecycle]);
}

/** What a copy's repositories hold, as Porch lists them, and their refs. */
export interface LeftBehind {
  readonly revisions: ReadonlyMap<string, PorchRevision>;
  readonly refs: ReadonlyMap<string, readonly string[]>;
}

export function leftBehind(copy: FleetCopy): LeftBehind {
  const listing = porchList(copy.fleet, cacheOf(copy), true);
  const revisions = new Map<string, PorchRevision>();
  for (const repository of listing.repositories) for (const r of repository.packageRevisions) revisions.set(`${r.name} ${r.lifecycle}`, r);
  const refs = new Map(copy.repositories.map((name) => [name, git(['--git-dir', join(copy.root, `${name}.git`), 'for-each-ref', '--format=%(refname)']).split('\n').filter(Boolean)]));
  return { revisions, refs };
}

/**
 * What a file holds once sync's ownership record is taken out: its `package-variant.github.io/*`
 * annotations on the root Kptfile (Porch keeps ownership in cluster metadata, README "Departures
 * from Porch"), and an `annotations:` that leaves empty.
 */
export function withoutNamedDifferences(text: string): string {
  const lines = text.split('\n').filter((line) => !/^\s+package-variant\.github\.io\/[a-z-]+:/.test(line));
  return lines.filter((line, i) => !(/^\s*annotations:$/.test(line) && !(lines[i + 1] ?? '').startsWith(`${line.slice(0, line.indexOf('a'))}  `))).join('\n');
}

/**
 * The fields of a PackageRevision both must agree on. Expected differences are left out here, each
 * for its reason: the commit names (commit times and the committer differ: each side commits as
 * itself, at its own time) and the copy's own directory in the upstream's path (each copy is a
 * directory of its own; it is written as <root>).
 */
function comparable(r: PorchRevision, root: string): Record<string, unknown> {
  const local = (text: string) => text.split(root).join('<root>');
  const resources = Object.fromEntries(Object.entries(r.resources ?? {}).map(([path, text]) => [path, withoutNamedDifferences(local(text))]));
  return {
    package: r.package,
    workspace: r.workspace,
    revision: r.revision,
    lifecycle: r.lifecycle,
    latest: r.latest,
    tasks: JSON.parse(local(JSON.stringify(r.tasks))) as unknown,
    upstreamLock: r.upstreamLock && { ...r.upstreamLock, repo: r.upstreamLock.repo && local(r.upstreamLock.repo) },
    resources,
  };
}

/** Every difference between what Porch's controllers left in one copy and what sync left in the other. */
export function differences(porchCopy: FleetCopy, porchSide: LeftBehind, syncCopy: FleetCopy, syncSide: LeftBehind): string[] {
  const found: string[] = [];
  const names = [...new Set([...porchSide.revisions.keys(), ...syncSide.revisions.keys()])].sort();
  for (const name of names) {
    const p = porchSide.revisions.get(name);
    const s = syncSide.revisions.get(name);
    if (!p || !s) {
      found.push(`${name}: ${p ? 'only Porch' : 'only sync'} leaves it`);
      continue;
    }
    const [pc, sc] = [comparable(p, porchCopy.root), comparable(s, syncCopy.root)];
    for (const field of Object.keys(pc)) {
      if (field === 'resources') continue;
      if (JSON.stringify(pc[field]) !== JSON.stringify(sc[field])) found.push(`${name}: ${field}: Porch ${JSON.stringify(pc[field])}, sync ${JSON.stringify(sc[field])}`);
    }
    const [pr, sr] = [pc['resources'] as Record<string, string>, sc['resources'] as Record<string, string>];
    for (const file of [...new Set([...Object.keys(pr), ...Object.keys(sr)])].sort()) {
      if (pr[file] !== sr[file]) found.push(`${name}: file ${file}:\n--- Porch\n${pr[file] ?? '(none)'}\n--- sync\n${sr[file] ?? '(none)'}`);
    }
  }
  for (const [repository, refs] of porchSide.refs) {
    const theirs = syncSide.refs.get(repository) ?? [];
    const only = (a: readonly string[], b: readonly string[]) => a.filter((ref) => !b.includes(ref));
    for (const ref of only(refs, theirs)) found.push(`${repository}: ref ${ref}: only Porch leaves it`);
    for (const ref of only(theirs, refs)) found.push(`${repository}: ref ${ref}: only sync leaves it`);
  }
  return found;
}
