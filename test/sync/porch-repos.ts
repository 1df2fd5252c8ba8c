/**
 * Repositories in Porch's layout for sync's tests, built with plain git: a catalog whose packages
 * are published as Porch publishes them (a commit on main holding the package, annotated with the
 * approval's `kpt:` line, and the tag `<package>/v<N>`), and empty deployment repositories. Fixed
 * identities and dates: the same test makes the same objects.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers';
import { git, GIT_ENV } from '../pkg/git-repos';
import { DEFAULT_TIMEOUTS } from '../../src/git/run-git';
import { readSyncInputs, type SyncInputs } from '../../src/sync/inputs';
import type { SyncPlan } from '../../src/sync/plan';
import { gitRemotes } from '../../src/sync/remotes';
import { planSync, writePlan } from '../../src/sync/run';
import type { SyncSettings } from '../../src/sync/settings';
import { configMap, kptfile, writeFiles, type Files } from '../pkg/trees';

/** A bare repository whose main holds one commit with README.md. */
export function emptyRepository(path: string): string {
  const work = mkdtempSync(join(tmpdir(), 'pv-porch-src-'));
  try {
    git(['init', '-q', work]);
    writeFiles(work, { 'README.md': 'Created by a test\n' });
    git(['add', '-A'], work);
    git(['commit', '-q', '-m', 'Initial commit'], work);
    git(['clone', '-q', '--bare', work, path]);
    return git(['rev-parse', 'HEAD'], work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Publishes `files` as revision `revision` of `pkgpath` on main of the bare repository `repo`, as Porch's approval does; the commit. */
export function publish(repo: string, pkgpath: string, revision: number, files: Files, workspace = `v${revision}`): string {
  const work = mkdtempSync(join(tmpdir(), 'pv-porch-pub-'));
  try {
    git(['clone', '-q', repo, work]);
    git(['rm', '-rq', '--ignore-unmatch', pkgpath], work);
    writeFiles(join(work, pkgpath), files);
    git(['add', '-A'], work);
    const annotation = JSON.stringify({ package: pkgpath, workspaceName: workspace, revision: String(revision) });
    git(['commit', '-q', '-m', `Approving package revision ${pkgpath}/${revision}\n\nkpt:${annotation}`], work);
    git(['tag', `${pkgpath}/v${revision}`], work);
    git(['push', '-q', 'origin', 'HEAD:refs/heads/main', `refs/tags/${pkgpath}/v${revision}`], work);
    return git(['rev-parse', 'HEAD'], work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Every ref of a bare repository with what it names, one `name commit` line each. */
export function refsOf(repo: string): string {
  return git(['--git-dir', repo, 'for-each-ref', '--format=%(refname) %(objectname)']);
}

export const show = (repo: string, spec: string): string => git(['--git-dir', repo, 'show', spec]);
export const messageOf = (repo: string, commit: string): string => git(['--git-dir', repo, 'log', '-1', '--format=%B', commit]);
export const parentsOf = (repo: string, commit: string): string[] => git(['--git-dir', repo, 'log', '-1', '--format=%P', commit]).split(' ').filter(Boolean);

export { GIT_ENV };

/** Settings of a run in `dir`: its repositories through git, cached in `dir/cache`, a draft's lifecycle, no render. */
export function syncSettings(dir: string, over: Partial<SyncSettings> = {}): SyncSettings {
  return {
    lifecycle: 'draft',
    diff: false,
    open: gitRemotes({ env: { ...GIT_ENV, PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache') }, timeouts: DEFAULT_TIMEOUTS, notify: () => undefined }),
    ...over,
  };
}

const MAIN = join(REPO_ROOT, 'dist/main.js');

/** `package-variant ARGS` run in `dir`, with its own cache and state there; what it printed and its exit code. */
export function packageVariant(dir: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): { code: number | null; stdout: string; stderr: string } {
  if (!existsSync(MAIN)) throw new Error('dist/main.js is missing: run `npm run build` (npm test builds first)');
  const run = spawnSync(process.execPath, [MAIN, ...args], { cwd: dir, env: { ...GIT_ENV, PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache'), PACKAGE_VARIANT_STATE_DIR: join(dir, 'state'), ...env }, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** `dir` with a catalog publishing `app` v1 and empty deployment repositories `edges`. */
export function catalogAndEdges(dir: string, edges: readonly string[] = ['edge1', 'edge2']): void {
  emptyRepository(join(dir, 'catalog.git'));
  publish(join(dir, 'catalog.git'), 'app', 1, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '1' }) });
  for (const edge of edges) emptyRepository(join(dir, `${edge}.git`));
}

export interface FleetOptions {
  /** The upstream revision the set asks for, by workspace. */
  readonly workspace?: string;
  /** The edge repositories, labelled `tier: edge`. */
  readonly edges?: readonly string[];
  /** More of the set's template, indented as its fields. */
  readonly template?: string;
}

/**
 * `fleet.yaml` in `dir`: Repositories for the catalog and the edges (deployment repositories, as
 * relative paths from the file) and the PackageVariantSet `fleet` that sends `app` to every edge
 * with `region: eu` in its package context.
 */
export function writeFleet(dir: string, { workspace = 'v1', edges = ['edge1', 'edge2'], template = '' }: FleetOptions = {}): string {
  const file = `${dir}/fleet.yaml`;
  const repositories = ['catalog', ...edges]
    .map((name) => `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: ${name}\n  labels:\n    tier: ${name === 'catalog' ? 'catalog' : 'edge'}\nspec:\n  type: git\n  deployment: ${name !== 'catalog'}\n  git:\n    repo: ./${name}.git\n`)
    .join('---\n');
  const set = `apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata:\n  name: fleet\nspec:\n  upstream:\n    repo: catalog\n    package: app\n    workspaceName: ${workspace}\n  targets:\n  - repositorySelector:\n      matchLabels:\n        tier: edge\n    template:\n      packageContext:\n        data:\n          region: eu\n${template}`;
  writeFileSync(file, `${repositories}---\n${set}`);
  return file;
}

/** The inputs of the fleet file in `dir` (writeFleet), its text edited by `edit` (labels moved, the template changed). */
export function fleetInputs(dir: string, options: FleetOptions = {}, edit: (text: string) => string = (t) => t): SyncInputs {
  const file = writeFleet(dir, options);
  writeFileSync(file, edit(readFileSync(file, 'utf8')));
  return readSyncInputs([file]);
}

/** One sync of that fleet in `dir`, planned and written; its plan. A push that fails is an error. */
export async function syncFleet(dir: string, over: Partial<SyncSettings> = {}, options: FleetOptions = {}, edit?: (text: string) => string): Promise<SyncPlan> {
  const planned = await planSync(fleetInputs(dir, options, edit), syncSettings(dir, over));
  const failures = await writePlan(planned.plan, planned.remotes);
  if (failures.length > 0) throw new Error(`the push failed: ${JSON.stringify(failures)}`);
  return planned.plan;
}

/** A second document whose nine anchors, each nine aliases of the one before, expand to 9^9 strings (line 6 of the text starts it). */
export function aliasBomb(): string {
  const levels = ['a: &a [x, x, x, x, x, x, x, x, x]', ...'bcdefghi'.split('').map((name, i) => `${name}: &${name} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(', ')}]`)];
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\n---\n# laughs\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lol\ndata:\n${levels.map((l) => `  ${l}`).join('\n')}\n`;
}
