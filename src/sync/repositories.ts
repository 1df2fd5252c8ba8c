/**
 * Porch's Repository objects as sync uses them: where the repository is, the branch and directory
 * its packages live on, and whether it is a deployment repository. Their fields come from files a
 * user may not have written, so names that would reach git or a path are checked here, once. A
 * Repository sync cannot work on is refused alone: the downstreams in it are invalid, the others go on.
 */
import { dirname, resolve } from 'node:path';
import { refPathProblem } from '../git/ref-names';
import { pathProblem } from '../krm/package-paths';
import type { InputObject } from './inputs';

export interface SyncRepository {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  /** `spec.git.repo` as written: a URL git accepts, `file://`, or a local path. */
  readonly url: string;
  readonly branch: string;
  /** `spec.git.directory` without slashes at either end; '' for the whole repository. */
  readonly directory: string;
  readonly deployment: boolean;
  /** `spec.git.createBranch`: Porch makes a missing branch; sync says it does not. */
  readonly createBranch: boolean;
  readonly where: string;
  /** The directory a relative `spec.git.repo` is taken from: the one of the file it was read from. */
  readonly base: string;
  /** Why sync cannot work on the Repository, naming it and the field; it is then never fetched. */
  readonly refused?: string;
}

export class RepositoryObjectError extends Error {}

/** A branch name git accepts and no one can take for an option or a path outside refs/heads. */
const BRANCH = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)(?!.*\/\.)(?!\.)[A-Za-z0-9._/@+-]+(?<!\.lock)(?<![./])$/;
/**
 * Why `path` cannot be a package's path, or the directory of a Repository's packages: it becomes a
 * path in every revision's tree and part of its refs, so it takes the one path check of every path
 * from data (krm/package-paths.ts: no `..`, no `.git` in any spelling a file system takes for it, no
 * name of the update's own) and git's rules for ref names.
 */
export function packagePathProblem(path: string): string | undefined {
  return pathProblem(path) ?? refPathProblem(path);
}

export const namespaceOf = (object: { metadata: { namespace?: string } }): string => object.metadata.namespace || 'default';
export const repositoryKey = (namespace: string, name: string): string => `${namespace}/${name}`;

/** Why sync cannot work on the Repository described by `spec`, or undefined. */
function specProblem(spec: RepositorySpec, branch: string, directory: string): string | undefined {
  if (spec.type === 'oci' || (!spec.git && spec.type !== 'git')) return 'sync works on git repositories; spec.git is missing';
  if (!BRANCH.test(branch)) return `spec.git.branch ${JSON.stringify(branch)} is not a branch name sync writes to`;
  const why = directory === '' ? undefined : packagePathProblem(directory);
  return why && `spec.git.directory ${JSON.stringify(spec.git?.directory)} cannot be the directory of its packages: ${why}`;
}

interface RepositorySpec {
  type?: string;
  deployment?: boolean;
  git?: { repo?: string; branch?: string; directory?: string; createBranch?: boolean };
}

function readRepository({ object, where, file }: InputObject): SyncRepository {
  const spec = (object.spec ?? {}) as RepositorySpec;
  const name = object.metadata.name;
  const git = spec.git ?? {};
  const branch = git.branch ?? 'main';
  const directory = (git.directory ?? '').replace(/^\/+|\/+$/g, '');
  const problem = specProblem(spec, branch, directory);
  return {
    name,
    namespace: namespaceOf(object),
    labels: (object.metadata.labels ?? {}) as Record<string, string>,
    url: git.repo ?? '',
    branch,
    directory,
    deployment: spec.deployment === true,
    createBranch: git.createBranch === true,
    where,
    base: dirname(resolve(file)),
    ...(problem ? { refused: `Repository ${name} (${where}): ${problem}` } : {}),
  };
}

/** The Repositories by namespace and name, those sync refuses among them; two of one name in one namespace are an error. */
export function readRepositories(inputs: readonly InputObject[]): Map<string, SyncRepository> {
  const found = new Map<string, SyncRepository>();
  const problems: string[] = [];
  for (const input of inputs) {
    const repository = readRepository(input);
    const key = repositoryKey(repository.namespace, repository.name);
    const earlier = found.get(key);
    if (earlier) problems.push(`Repository ${repository.name} is given twice in namespace ${repository.namespace}: ${earlier.where} and ${repository.where}`);
    else found.set(key, repository);
  }
  if (problems.length) throw new RepositoryObjectError(problems.join('\n'));
  return found;
}

/** A package's path in its repository: the Repository's directory, then the package. */
export function packagePath(repository: SyncRepository, pkg: string): string {
  return repository.directory ? `${repository.directory}/${pkg}` : pkg;
}

