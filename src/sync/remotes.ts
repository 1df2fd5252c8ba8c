/**
 * The repositories of a sync, from git: each Repository's `spec.git.repo` checked as every
 * repository from data is (git/remote-url.ts: git's own transports only, nothing git could take
 * for an option; a relative path taken from the directory of the file that holds the Repository),
 * fetched whole into its cache entry, and its failures named after the Repository.
 */
import { CachedRemote } from '../git/cached-remote';
import type { CacheOptions } from '../git/cache-entry';
import { locateRepository, RepositoryError, withoutCredentials } from '../git/remote-url';
import { GitError } from '../git/run-git';
import type { SyncRepository } from './repositories';
import { RepositoryAccessError, type FetchedRepository, type RemoteRepository } from './settings';

async function named<T>(repository: SyncRepository, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof GitError || error instanceof RepositoryError) throw new RepositoryAccessError(withoutCredentials(`Repository ${repository.name} (${repository.where}): ${error.message}`));
    throw error;
  }
}

export function gitRemotes(options: CacheOptions): (repository: SyncRepository) => Promise<FetchedRepository> {
  return (repository) =>
    named(repository, async () => {
      const remote = await CachedRemote.open(repository.url, locateRepository(repository.url, repository.base), options);
      let reading: Promise<RemoteRepository> | undefined;
      const read = async (): Promise<RemoteRepository> => ({
        refs: await named(repository, () => remote.refs()),
        messages: (commits) => named(repository, () => remote.messages(commits)),
        firstParentChains: (tips, stops, ends) => named(repository, () => remote.firstParentChains(tips, stops, ends)),
        files: (specs) => named(repository, () => remote.files(specs)),
        readTrees: (versions) => named(repository, () => remote.readTrees(versions)),
        listPaths: (versions) => named(repository, () => remote.listPaths(versions)),
        write: (commits) => named(repository, () => remote.write(commits)),
        push: (moves) => named(repository, () => remote.push(moves)),
        close: () => remote.close(),
      });
      return { fetched: remote.fetched, read: () => (reading ??= read()) };
    });
}
