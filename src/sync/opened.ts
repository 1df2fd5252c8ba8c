/**
 * The repositories of a run, each fetched once however often it is asked for, and read only when
 * something of it is wanted (a repository found settled is not: settled.ts): its tags' listing and
 * the packages read from it, each read once and, where many are wanted, read together.
 */
import { PackageTree } from '../package/tree';
import { tagListing } from './repository-state';
import { repositoryKey, type SyncRepository } from './repositories';
import { RepositoryAccessError, type FetchedRepository, type RemoteRepository, type SyncSettings } from './settings';
import type { TagListing } from './upstream';

export interface Version {
  readonly commit: string;
  readonly directory: string;
}

export interface Opened {
  readonly remote: RemoteRepository;
  readonly listing: TagListing;
  /** A package at a commit, read once however many downstreams derive from it. */
  tree(version: Version): Promise<PackageTree>;
  /** Reads the packages not read yet, all in one go (a few git processes, however many). */
  prefetch(versions: readonly Version[]): Promise<void>;
}

function opened(remote: RemoteRepository, listing: TagListing): Opened {
  const trees = new Map<string, Promise<PackageTree>>();
  const key = ({ commit, directory }: Version) => `${commit}:${directory}`;
  const readOne = (version: Version) => {
    const read = remote.readTrees([version]).then(([tree]) => tree!);
    // Awaited when its downstream is computed; until then a failure must not count as unhandled.
    read.catch(() => undefined);
    return read;
  };
  return {
    remote,
    listing,
    tree: (version) => {
      if (!trees.has(key(version))) trees.set(key(version), readOne(version));
      return trees.get(key(version))!;
    },
    prefetch: async (versions) => {
      const missing = [...new Map(versions.filter((v) => !trees.has(key(v))).map((v) => [key(v), v])).values()];
      if (missing.length === 0) return;
      const batch = remote.readTrees(missing);
      // One version that cannot be read (a hostile tree) is its own downstream's problem: then each is read alone.
      missing.forEach((version, i) => {
        const read = batch.then((all) => all[i]!, () => readOne(version));
        read.catch(() => undefined);
        trees.set(key(version), read);
      });
      await Promise.all(missing.map((version) => trees.get(key(version))!.catch(() => undefined)));
    },
  };
}

export class Repositories {
  private readonly fetches = new Map<string, Promise<FetchedRepository>>();
  private readonly opened = new Map<string, Promise<Opened>>();

  constructor(private readonly settings: SyncSettings) {}

  /** The repository, fetched once, nothing read from it yet; a Repository sync refuses is never fetched, and answers why. */
  fetched(repository: SyncRepository): Promise<FetchedRepository> {
    const key = repositoryKey(repository.namespace, repository.name);
    if (!this.fetches.has(key)) {
      const fetching = repository.refused === undefined ? this.settings.open(repository) : Promise.reject(new RepositoryAccessError(repository.refused));
      this.fetches.set(
        key,
        fetching.then((fetched) => {
          this.settings.progress?.('fetched');
          return fetched;
        }),
      );
    }
    return this.fetches.get(key)!;
  }

  /** The repository, fetched once, with its tags' listing: what reads it is started. */
  get(repository: SyncRepository): Promise<Opened> {
    const key = repositoryKey(repository.namespace, repository.name);
    if (!this.opened.has(key)) {
      this.opened.set(
        key,
        this.fetched(repository).then(async (fetched) => {
          const remote = await fetched.read();
          return opened(remote, await tagListing(remote));
        }),
      );
    }
    return this.opened.get(key)!;
  }

  /** Ends the reading of a repository whose plan is made; read again, it starts again. */
  async release(repository: SyncRepository): Promise<void> {
    const opening = this.opened.get(repositoryKey(repository.namespace, repository.name));
    await opening?.then(({ remote }) => remote.close(), () => undefined);
  }

  /** Ends the reading of every repository: the plan is made. */
  async close(): Promise<void> {
    await Promise.all([...this.opened.values()].map((opening) => opening.then(({ remote }) => remote.close(), () => undefined)));
  }

  /** Every repository opened without error, by namespace/name. */
  async all(): Promise<Map<string, RemoteRepository>> {
    const out = new Map<string, RemoteRepository>();
    for (const [key, opening] of this.opened) {
      try {
        out.set(key, (await opening).remote);
      } catch {
        // Its downstreams already say why.
      }
    }
    return out;
  }
}
