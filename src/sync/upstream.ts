/**
 * Which upstream revision a variant asks for (issue 21, porch-lifecycle.md §11.3), found among the
 * published revisions of the upstream Repository:
 * - `revision: N` (a number): the published revision `<path>/vN`;
 * - `revision: S` (a name, the design's form): the tag `<path>/S`, so a floating tag is followed;
 * - `workspaceName: W`: the published revision whose approval commit's `kpt:` annotation names W
 *   (the highest, should several), else the tag `<path>/W`;
 * - neither: an error naming the variant (Porch would take the branch's placeholder, then refuse
 *   to clone it).
 * `<path>` includes the Repository's directory.
 */
import { isAbsolute, resolve } from 'node:path';
import { withoutCredentials } from '../git/remote-url';
import type { UpstreamLock } from './clone';
import type { CommitAnnotation } from './porch-commits';
import { packageRevisionName, revisionOfRef } from './porch-refs';
import { packagePath, type SyncRepository } from './repositories';
import type { ResolvedUpstream } from './decide';

/** The published side of a repository: its tags, and the annotations of the commits they name. */
export interface TagListing {
  /** Tag name (without `refs/tags/`) -> the commit it names. */
  readonly tags: ReadonlyMap<string, string>;
  annotations(commit: string): readonly CommitAnnotation[];
}

export interface UpstreamSpec {
  readonly repo?: string;
  readonly package?: string;
  readonly revision?: number | string;
  readonly workspaceName?: string;
}

export interface UpstreamRevision extends ResolvedUpstream {
  readonly repository: SyncRepository;
  /** The package's path in the upstream repository. */
  readonly pkgpath: string;
  /** The package's name in its Repository (the path below the Repository's directory). */
  readonly packageName: string;
  readonly workspace: string;
  /** Porch's revision number; -1 for a tag that is not `v<N>`. */
  readonly revision: number;
  /** The PackageRevision's name, for the tasks' references (`<repo>.<package>.<workspace>`). */
  readonly name: string;
}

export class UpstreamError extends Error {}

/**
 * The workspace Porch gives a tagged revision (`loadTaggedPackage`): a tag that is no revision number
 * (`stable`) is its own workspace, whatever the commit's annotation says; a numbered one takes its
 * approval commit's annotation, else `v<N>`.
 */
export function tagWorkspace(listing: TagListing, pkgpath: string, tag: string): string {
  const revision = revisionOfRef(tag);
  if (revision === undefined || revision === -1) return tag.slice(tag.lastIndexOf('/') + 1);
  const commit = listing.tags.get(tag);
  const named = commit === undefined ? undefined : listing.annotations(commit).find((a) => a.package === pkgpath && a.workspaceName !== '');
  return named?.workspaceName ?? `v${revision}`;
}

/** The tag of the revision `spec` asks for. */
function tagOf(listing: TagListing, spec: UpstreamSpec, pkgpath: string): string {
  if (typeof spec.revision === 'number') return `${pkgpath}/v${spec.revision}`;
  if (typeof spec.revision === 'string' && spec.revision !== '') return `${pkgpath}/${spec.revision}`;
  const workspace = spec.workspaceName!;
  let best: { tag: string; revision: number } | undefined;
  for (const candidate of listing.tags.keys()) {
    if (!candidate.startsWith(`${pkgpath}/`) || candidate.slice(pkgpath.length + 1).includes('/')) continue;
    if (tagWorkspace(listing, pkgpath, candidate) !== workspace) continue;
    const revision = revisionOfRef(candidate) ?? -1;
    if (!best || revision > best.revision) best = { tag: candidate, revision };
  }
  return best?.tag ?? `${pkgpath}/${workspace}`;
}

/** The upstream revision `spec` names in `repository`; `variant` names the variant in messages. */
export function resolveUpstream(spec: UpstreamSpec, repository: SyncRepository, listing: TagListing, variant: string): UpstreamRevision {
  const pkg = spec.package ?? '';
  const hasRevision = typeof spec.revision === 'number' ? spec.revision > 0 : typeof spec.revision === 'string' && spec.revision !== '';
  if (!hasRevision && !spec.workspaceName) {
    throw new UpstreamError(`${variant}: spec.upstream names no published revision: give spec.upstream.revision (a number or a tag name) or spec.upstream.workspaceName`);
  }
  const pkgpath = packagePath(repository, pkg);
  const tag = tagOf(listing, spec, pkgpath);
  const commit = listing.tags.get(tag);
  if (commit === undefined) {
    const asked = typeof spec.revision === 'number' ? `revision ${spec.revision}` : spec.revision ? `revision ${spec.revision}` : `workspace ${spec.workspaceName}`;
    throw new UpstreamError(`${variant}: Repository ${repository.name} has no published ${asked} of package ${pkg} (no tag ${tag} in ${withoutCredentials(repository.url)})`);
  }
  const workspace = tagWorkspace(listing, pkgpath, tag);
  return { repository, pkgpath, packageName: pkg, ref: tag, commit, workspace, revision: revisionOfRef(tag) ?? -1, name: packageRevisionName(repository.name, pkg, workspace) };
}

/**
 * The upstream as a downstream's Kptfile records it: with the `.git` Porch's clone adds to a remote
 * URL (kpt's normalizeGitFields; a path on this machine is kept as written, where `.git` could name
 * another directory), and without the credentials an http(s) URL may carry, which git's credential
 * helpers hold instead: the Kptfile is committed to every downstream.
 */
export function lockRepository(url: string, base: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(url);
  const remote = scheme && !url.toLowerCase().startsWith('file://');
  const scp = !scheme && /^[^/]+:/.test(url);
  // A path relative to the fleet file means nothing in a clone of the downstream: recorded from the
  // root, as `kpt pkg get` of a path records it, so that `kpt pkg update` finds it.
  if (!scheme && !scp && !isAbsolute(url)) return resolve(base, url);
  const plain = url.replace(/^(https?:\/\/)[^/@]+@/i, '$1');
  return (remote || scp) && !plain.endsWith('.git') ? `${plain}.git` : plain;
}

/** What a downstream's Kptfile records of its upstream revision (`upstream` and `upstreamLock`). */
export const lockOf = (upstream: UpstreamRevision): UpstreamLock => ({ repo: lockRepository(upstream.repository.url, upstream.repository.base), directory: upstream.pkgpath, ref: upstream.ref, commit: upstream.commit });
