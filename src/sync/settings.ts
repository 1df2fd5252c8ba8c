/** What a sync is told, and what it asks of a repository: the settings of a run and the remote repositories it works on. */
import type { ConfigObject } from '../config/function-config';
import type { NewCommit } from '../git/fast-import';
import { PackageTree } from '../package/tree';
import type { RepositoryReader } from './repository-state';
import type { SyncRepository } from './repositories';
import type { Shard } from './shard';
import type { Lifecycle } from './state';

export interface RemoteRepository extends RepositoryReader {
  /** Makes the commits (in order; parents may name earlier ones by index) and answers their names. */
  write(commits: readonly NewCommit[]): Promise<string[]>;
  /** One atomic push: every ref moved to its target (null: deleted) only if it still has its expected value. */
  push(updates: readonly { readonly ref: string; readonly expected: string | undefined; readonly target: string | null }[]): Promise<void>;
  /** Nothing more is read for now: what reads the repository ends (a later read starts it again). */
  close(): Promise<void>;
}

export interface SyncSettings {
  readonly lifecycle: Lifecycle;
  readonly diff: boolean;
  /** kpt fn render, or undefined with --no-render. */
  readonly render?: (tree: PackageTree, about: string) => Promise<PackageTree>;
  /** Record the ownership of an adopted package in a revision of its own, even when nothing else changes. */
  readonly adoptNow?: boolean;
  /** Carry out the deletion policy of packages their variants no longer ask for (else the plan only lists them). */
  readonly allowDelete?: boolean;
  /** Finish proposed deletions: tags, their branches and the package's directory removed. */
  readonly approveDeletions?: boolean;
  /** Only the downstream repositories of this shard (shard.ts). */
  readonly shard?: Shard;
  /** Only these downstreams: a Repository by name, or one package in it (`--only`). */
  readonly only?: readonly DownstreamSelector[];
  /** Told as the run goes: a repository fetched, a repository planned (with its downstreams), a repository pushed. */
  readonly progress?: (event: 'fetched' | 'planned' | 'pushed', downstreams?: number) => void;
  /** The repository, fetched: once per run however often it is asked for. */
  readonly open: (repository: SyncRepository) => Promise<FetchedRepository>;
  /**
   * The environment that names the user's state directory, where the repositories a run found
   * settled are recorded and looked up (settled.ts); none: every repository is planned from its content.
   */
  readonly settledRecords?: NodeJS.ProcessEnv;
}

/** A repository fetched, nothing read from it yet. */
export interface FetchedRepository {
  /** Every ref as the fetch left it, by full name: what each names, tags not peeled. */
  readonly fetched: ReadonlyMap<string, string>;
  /** What reads it (its tags peeled first), started on the first call. */
  read(): Promise<RemoteRepository>;
}

/** `--only REPOSITORY[/PACKAGE]`: one Repository's downstreams, or one downstream. */
export interface DownstreamSelector {
  readonly repository: string;
  readonly pkg?: string;
}

/** Whether `selectors` (none: every downstream) take the package `pkg` of Repository `repository`. */
export const selects = (selectors: readonly DownstreamSelector[] | undefined, repository: string, pkg?: string): boolean =>
  !selectors || selectors.some((s) => s.repository === repository && (s.pkg === undefined || pkg === undefined || s.pkg === pkg));

/** A repository that cannot be fetched, read or written: the message names it. */
export class RepositoryAccessError extends Error {}

/** Settings with what every downstream's mutations read: the objects standing in for the cluster. */
export interface PlanSettings extends SyncSettings {
  readonly candidates: readonly ConfigObject[];
  /** The namespaces of the run's PackageVariants and sets: the owners whose packages it may delete. */
  readonly namespaces: ReadonlySet<string>;
}
