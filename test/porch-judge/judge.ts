/**
 * Porch's own code as the judge: the Go module judge/porch (Porch's engine, repository cache and
 * git backend, from the Porch module as the Go module proxy serves it) built once, then asked to list
 * or write the package revisions of local bare repositories.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers';

export const JUDGE_MODULE = join(REPO_ROOT, 'judge', 'porch');
export const JUDGE_BINARY = join(JUDGE_MODULE, 'bin', 'porch-judge');

/**
 * A describe block whose tests run the judge: built first (Go reuses its module and build caches, so
 * a second build only checks them; a first one on a machine without them takes minutes), and
 * skipped, saying so in one line, where Go is not on PATH.
 */
export function describeWithJudge(title: string, skipping: string, body: () => void): void {
  if (spawnSync('go', ['version']).status !== 0) {
    console.log(`go is not on PATH: skipping ${skipping}; it needs Go 1.26 (README Set-up)`);
    describe['skip'](title, body);
    return;
  }
  describe(title, () => {
    beforeAll(() => {
      const run = spawnSync('go', ['build', '-o', JUDGE_BINARY, '.'], { cwd: JUDGE_MODULE, encoding: 'utf8' });
      if (run.status !== 0) throw new Error(`go build in ${JUDGE_MODULE} failed:\n${run.stderr}`);
    }, 45 * 60_000);
    body();
  });
}

/** A Repository as Porch is given it. */
export interface JudgedRepository {
  readonly name: string;
  /** The bare repository's path. */
  readonly path: string;
  readonly branch?: string;
  readonly directory?: string;
  readonly deployment?: boolean;
  /** A repository the scenario only reads (a mirror): checked once. */
  readonly readOnly?: boolean;
}

/** A task as Porch's API shows it. */
export interface PorchTask {
  readonly type: string;
  readonly clone?: { readonly upstreamRef?: { readonly upstreamRef?: { readonly name: string } } };
  readonly edit?: { readonly sourceRef?: { readonly name: string } };
  readonly upgrade?: unknown;
  readonly init?: unknown;
}

export interface PorchLock {
  readonly repo?: string;
  readonly directory?: string;
  readonly ref?: string;
  readonly commit?: string;
}

/** A PackageRevision as the judge prints what Porch lists. */
export interface PorchRevision {
  readonly name: string;
  readonly repository: string;
  readonly package: string;
  readonly workspace: string;
  readonly revision: number;
  readonly lifecycle: 'Draft' | 'Proposed' | 'Published' | 'DeletionProposed';
  readonly latest: boolean;
  readonly commit: string;
  readonly tasks: readonly PorchTask[];
  readonly upstreamLock?: PorchLock;
  readonly kptfile: string;
  readonly resources?: Readonly<Record<string, string>>;
}

export interface PorchListing {
  readonly repositories: readonly { readonly name: string; readonly packageRevisions: readonly PorchRevision[] }[];
}

/** Porch's Repository objects for `repositories`, written to `dir/porch-repositories.yaml`; the file. */
export function writeRepositories(dir: string, repositories: readonly JudgedRepository[]): string {
  const file = join(dir, 'porch-repositories.yaml');
  const objects = repositories.map((r) => ({
    apiVersion: 'config.porch.kpt.dev/v1alpha1',
    kind: 'Repository',
    metadata: { name: r.name, namespace: 'default' },
    spec: { type: 'git', deployment: r.deployment ?? false, git: { repo: r.path, branch: r.branch ?? 'main', directory: r.directory ?? '' } },
  }));
  writeFileSync(file, objects.map((o) => JSON.stringify(o)).join('\n'));
  return file;
}

/** A call of the judge: stdout, or an error naming the command and what Porch said. */
export function porch(repositoriesFile: string, cacheDir: string, args: readonly string[]): string {
  const run = spawnSync(JUDGE_BINARY, ['-repositories', repositoriesFile, '-cache', cacheDir, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`porch-judge ${args.join(' ')}: ${run.stderr || run.error?.message}`);
  return run.stdout;
}

/** Every PackageRevision Porch lists in each of the file's Repositories (or only those named). */
export function porchList(repositoriesFile: string, cacheDir: string, withResources = false, only: readonly string[] = []): PorchListing {
  return JSON.parse(porch(repositoriesFile, cacheDir, ['list', ...(withResources ? ['-resources'] : []), ...only])) as PorchListing;
}

/** A write of the judge's: the PackageRevision Porch leaves. */
export function porchWrite(repositoriesFile: string, cacheDir: string, args: readonly string[]): PorchRevision {
  return JSON.parse(porch(repositoriesFile, cacheDir, args)) as PorchRevision;
}
