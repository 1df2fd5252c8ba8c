/**
 * A downstream repository's packages read as Porch reads them (porch-lifecycle.md §7.3), from one
 * listing of its refs: drafts and proposals from their branches, published revisions from their
 * tags (workspace from the approval commit's annotation), proposed deletions from their branches,
 * and whether the package is on the Repository's branch; then each revision's root Kptfile, read in
 * one batch, for its owner and the upstream it records, and the drafts' own commits, for the ones
 * sync made. A tag's revision number is read as Porch reads it; a package with a tag naming a number
 * Porch cannot hold is marked unreadable. Everything here comes from the repository: names are
 * checked by readPorchRef, the Kptfiles' fields and the commits' messages are only compared.
 */
import type { CommitFacts } from '../git/cached-remote';
import { kptfileData, recordedLock } from '../package/kptfile-upstream';
import type { PackageTree } from '../package/tree';
import { DELETION_POLICY_ANNOTATION, madeBySync, OWNER_ANNOTATION, startsRevision, type DeletionPolicy } from './ownership';
import { readAnnotations, type CommitAnnotation } from './porch-commits';
import { MAX_REVISION, readPorchRef, tagRevision, VARIANT_WORKSPACE_PREFIX } from './porch-refs';
import type { SyncRepository } from './repositories';
import type { KptfileFacts, PackageState, RevisionState } from './state';
import { tagWorkspace, type TagListing } from './upstream';

/** What sync reads from a repository it fetched; src/git/sync-remote.ts answers it from its cache. */
export interface RepositoryReader {
  /** Every ref of the repository, by full name, tags peeled to the commit they name. */
  readonly refs: ReadonlyMap<string, string>;
  /** Commit messages, by commit. */
  messages(commits: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /** The first-parent chain of each tip, by name, with parents and messages: each ends before a commit of `stops`, after one that `ends` it, or at a bound. */
  firstParentChains(tips: readonly string[], stops: ReadonlySet<string>, ends: (commit: CommitFacts) => boolean): Promise<ReadonlyMap<string, CommitFacts>>;
  /** Files at commits (`commit:path`); undefined where there is none. */
  files(specs: readonly { readonly commit: string; readonly path: string }[]): Promise<(Buffer | undefined)[]>;
  /** The files below each directory at its commit. */
  readTrees(versions: readonly { readonly commit: string; readonly directory: string }[]): Promise<PackageTree[]>;
  /** The paths below each directory at its commit, relative to it, without reading a file; none where there is no such directory. */
  listPaths(versions: readonly { readonly commit: string; readonly directory: string }[]): Promise<string[][]>;
}

/** A repository's tags and their approval annotations, read once. */
export async function tagListing(reader: RepositoryReader): Promise<TagListing> {
  const tags = new Map<string, string>();
  for (const [ref, commit] of reader.refs) if (ref.startsWith('refs/tags/')) tags.set(ref.slice('refs/tags/'.length), commit);
  const messages = await reader.messages([...new Set(tags.values())]);
  const parsed = new Map<string, CommitAnnotation[]>();
  return {
    tags,
    annotations: (commit) => {
      if (!parsed.has(commit)) parsed.set(commit, readAnnotations(messages.get(commit) ?? ''));
      return parsed.get(commit)!;
    },
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The facts of a root Kptfile; undefined when it is not one. */
export function kptfileFacts(bytes: Buffer | undefined): KptfileFacts | undefined {
  if (!bytes) return undefined;
  let data: unknown;
  try {
    data = kptfileData(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isRecord(data) || data.kind !== 'Kptfile') return undefined;
  const annotations = isRecord(data.metadata) && isRecord(data.metadata.annotations) ? data.metadata.annotations : {};
  const policy = annotations[DELETION_POLICY_ANNOTATION];
  const lock = recordedLock(data);
  return {
    ...(typeof annotations[OWNER_ANNOTATION] === 'string' ? { owner: annotations[OWNER_ANNOTATION] as string } : {}),
    ...(policy === 'delete' || policy === 'orphan' ? { deletionPolicy: policy as DeletionPolicy } : {}),
    ...(lock ? { lock } : {}),
  };
}

interface Found {
  lifecycle: RevisionState['lifecycle'];
  workspace: string;
  /** Undefined for a tag naming a revision Porch cannot hold. */
  revision: number | undefined;
  ref: string;
  commit: string;
  deletionProposed: boolean;
}

/** A package's state as it is read. */
interface Building {
  pkgpath: string;
  revisions: RevisionState[];
  branch?: RevisionState;
  unreadable?: string;
}

/**
 * Which drafts and proposals sync made: each one's first-parent chain read back to the commit that
 * starts a revision, short of the branch and the tags (history every draft shares).
 */
async function madeBySyncOf(reader: RepositoryReader, head: string | undefined, unpublished: readonly { pkgpath: string; f: Found }[]): Promise<Set<Found>> {
  const candidates = unpublished.filter(({ f }) => f.workspace.startsWith(VARIANT_WORKSPACE_PREFIX));
  if (!head || candidates.length === 0) return new Set();
  const shared = new Set([head, ...[...reader.refs].filter(([ref]) => ref.startsWith('refs/tags/')).map(([, commit]) => commit)]);
  const own = await reader.firstParentChains(candidates.map(({ f }) => f.commit), shared, (commit) => startsRevision(commit.message));
  return new Set(candidates.filter(({ pkgpath, f }) => madeBySync(pkgpath, f.workspace, f.commit, own)).map(({ f }) => f));
}

/**
 * The state of every package of `repository` that has a revision, and of the packages at
 * `candidates` (paths in the repository) that are only on the branch, with the head of the
 * Repository's branch (undefined when the branch does not exist).
 */
export async function readPackageStates(
  reader: RepositoryReader,
  repository: SyncRepository,
  listing: TagListing,
  candidates: ReadonlySet<string>,
): Promise<{ head: string | undefined; states: ReadonlyMap<string, PackageState> }> {
  const byPackage = new Map<string, Found[]>();
  const proposedDeletions = new Set<string>();
  const add = (pkgpath: string, found: Found) => (byPackage.get(pkgpath) ?? byPackage.set(pkgpath, []).get(pkgpath)!).push(found);
  for (const [ref, commit] of reader.refs) {
    const porch = readPorchRef(ref, repository.directory);
    if (!porch) continue;
    if (porch.kind === 'deletion-proposed') proposedDeletions.add(`${porch.pkgpath}/v${porch.revision}`);
    else if (porch.kind === 'tag') {
      add(porch.pkgpath, { lifecycle: 'published', workspace: tagWorkspace(listing, porch.pkgpath, `${porch.pkgpath}/${porch.version}`), revision: tagRevision(porch.version), ref, commit, deletionProposed: false });
    } else add(porch.pkgpath, { lifecycle: porch.kind, workspace: porch.workspace, revision: 0, ref, commit, deletionProposed: false });
  }
  const head = reader.refs.get(`refs/heads/${repository.branch}`);
  const all = [...byPackage.entries()];
  const revisions = all.flatMap(([pkgpath, found]) => found.map((f) => ({ pkgpath, f })));
  // Packages on the branch are looked for too: a package there without a revision is still a package.
  const onBranchCandidates = [...new Set([...all.map(([pkgpath]) => pkgpath), ...candidates])];
  const [kptfiles, bySync] = await Promise.all([
    reader.files([
      ...revisions.map(({ pkgpath, f }) => ({ commit: f.commit, path: `${pkgpath}/Kptfile` })),
      ...(head ? onBranchCandidates.map((pkgpath) => ({ commit: head, path: `${pkgpath}/Kptfile` })) : []),
    ]),
    madeBySyncOf(reader, head, revisions.filter(({ f }) => f.lifecycle !== 'published')),
  ]);
  const states = new Map<string, Building>();
  revisions.forEach(({ pkgpath, f }, i) => {
    const facts = kptfileFacts(kptfiles[i]);
    // A tag without a Kptfile at its path is a release tag, not a package revision (Porch's listing).
    if (f.lifecycle === 'published' && facts === undefined && kptfiles[i] === undefined) return;
    const state = states.get(pkgpath) ?? states.set(pkgpath, { pkgpath, revisions: [] }).get(pkgpath)!;
    if (f.revision === undefined) {
      const tag = f.ref.slice('refs/tags/'.length);
      state.unreadable ??= `tag ${tag} of Repository ${repository.name} names revision ${tag.slice(pkgpath.length + 1).replace(/^v/, '')}, past the largest Porch can read (${MAX_REVISION}): the package is left alone until the tag is removed`;
      return;
    }
    state.revisions.push({ ...f, revision: f.revision, deletionProposed: f.lifecycle === 'published' && proposedDeletions.has(`${pkgpath}/v${f.revision}`), ...(facts ? { kptfile: facts } : {}), ...(bySync.has(f) ? { madeBySync: true as const } : {}) });
  });
  if (head) {
    onBranchCandidates.forEach((pkgpath, i) => {
      const kptfile = kptfiles[revisions.length + i];
      if (kptfile === undefined) return;
      const facts = kptfileFacts(kptfile);
      const branch: RevisionState = { lifecycle: 'published', workspace: repository.branch, revision: -1, ref: `refs/heads/${repository.branch}`, commit: head, deletionProposed: false, ...(facts ? { kptfile: facts } : {}) };
      states.set(pkgpath, { ...(states.get(pkgpath) ?? { pkgpath, revisions: [] }), branch });
    });
  }
  return { head, states };
}
