/**
 * Porch's Repository objects as sync uses them: where the repository is, the branch and directory
 * its packages live on, and whether it is a deployment repository. Their fields come from files a
 * user may not have written, so names that would reach git or a path are checked here, once.
 */
import { dirname, resolve } from 'node:path';
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
}

export class RepositoryObjectError extends Error {}

/** A branch name git accepts and no one can take for an option or a path outside refs/heads. */
const BRANCH = /^(?!-)(?!.*\.\.)(?!.*\/\/)(?!.*@\{)(?!.*\/\.)(?!\.)[A-Za-z0-9._/@+-]+(?<!\.lock)(?<![./])$/;
/** A directory inside the repository: plain segments, no `.`, `..` or `.git` in any case, nothing hidden from Porch's listing. */
const SEGMENT = /^(?!\.{1,2}$)(?!\.git$)[^\u0000-\u001f\u007f/\\]+$/i;

export const namespaceOf = (object: { metadata: { namespace?: string } }): string => object.metadata.namespace || 'default';
export const repositoryKey = (namespace: string, name: string): string => `${namespace}/${name}`;

function readRepository({ object, where, file }: InputObject): SyncRepository {
  const spec = (object.spec ?? {}) as { type?: string; deployment?: boolean; git?: { repo?: string; branch?: string; directory?: string; createBranch?: boolean } };
  const name = object.metadata.name;
  const at = `Repository ${name} (${where})`;
  if (spec.type === 'oci' || (!spec.git && spec.type !== 'git')) throw new RepositoryObjectError(`${at}: sync works on git repositories; spec.git is missing`);
  const git = spec.git ?? {};
  const branch = git.branch ?? 'main';
  if (!BRANCH.test(branch)) throw new RepositoryObjectError(`${at}: spec.git.branch ${JSON.stringify(branch)} is not a branch name sync writes to`);
  const directory = (git.directory ?? '').replace(/^\/+|\/+$/g, '');
  if (directory !== '' && !directory.split('/').every((segment) => SEGMENT.test(segment))) {
    throw new RepositoryObjectError(`${at}: spec.git.directory ${JSON.stringify(git.directory)} is not a directory inside the repository`);
  }
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
  };
}

/** The Repositories by namespace and name; two of one name in one namespace are an error. */
export function readRepositories(inputs: readonly InputObject[]): Map<string, SyncRepository> {
  const found = new Map<string, SyncRepository>();
  const problems: string[] = [];
  for (const input of inputs) {
    try {
      const repository = readRepository(input);
      const key = repositoryKey(repository.namespace, repository.name);
      const earlier = found.get(key);
      if (earlier) problems.push(`Repository ${repository.name} is given twice in namespace ${repository.namespace}: ${earlier.where} and ${repository.where}`);
      else found.set(key, repository);
    } catch (error) {
      if (!(error instanceof RepositoryObjectError)) throw error;
      problems.push(error.message);
    }
  }
  if (problems.length) throw new RepositoryObjectError(problems.join('\n'));
  return found;
}

/** A package's path in its repository: the Repository's directory, then the package. */
export function packagePath(repository: SyncRepository, pkg: string): string {
  return repository.directory ? `${repository.directory}/${pkg}` : pkg;
}

/** A package name as a path inside the Repository's directory: the same rule as the directory's segments. */
export function isPackageName(pkg: string): boolean {
  return pkg !== '' && pkg.split('/').every((segment) => SEGMENT.test(segment));
}
