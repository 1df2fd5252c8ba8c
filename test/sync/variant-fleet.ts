/**
 * A fleet of single PackageVariants for sync's tests: the repositories of catalogAndEdges
 * (porch-repos.ts) in a directory of each test's own, a fleet file with their Repositories and one
 * PackageVariant per entry, each from catalog's `app` (v1 unless it says), and commits made on a
 * repository's main by hand. Names and packages are written as JSON strings, so any character
 * reaches sync as given.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../pkg/git-repos';
import { catalogAndEdges } from './porch-repos';

/** A directory made for each test, holding catalog, edge1 and edge2; the directory and a repository's path in it. */
export function catalogPerTest(): { dir: () => string; repo: (name: string) => string } {
  let dir: string | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pv-sync-fleet-'));
    catalogAndEdges(dir);
  });
  afterEach(() => rmSync(dir!, { recursive: true, force: true }));
  return { dir: () => dir!, repo: (name) => join(dir!, `${name}.git`) };
}

/** A commit on main of the bare repository `repository`, of what `change` does in a clone of it, pushed with the tags given. */
export function commitOnMain(repository: string, message: string, change: (work: string) => void, tags: readonly string[] = []): void {
  const work = mkdtempSync(join(tmpdir(), 'pv-sync-commit-'));
  try {
    git(['clone', '-q', repository, work]);
    change(work);
    git(['add', '-A'], work);
    git(['commit', '-q', '-m', message], work);
    for (const tag of tags) git(['tag', tag], work);
    git(['push', '-q', 'origin', 'HEAD:refs/heads/main', ...tags.map((tag) => `refs/tags/${tag}`)], work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export interface VariantEntry {
  readonly name: string;
  readonly repo: string;
  readonly pkg: string;
  readonly revision?: number;
}

/** `variants.yaml` in `dir`, with `more` (YAML documents) after the variants; `directories` gives a Repository its `spec.git.directory`. */
export function writeVariants(dir: string, variants: readonly VariantEntry[], directories: Readonly<Record<string, string>> = {}, more: readonly string[] = []): string {
  const q = JSON.stringify;
  const repositories = ['catalog', 'edge1', 'edge2'].map((name) => {
    const directory = directories[name] === undefined ? '' : `\n    directory: ${q(directories[name])}`;
    return `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: ${name}\nspec:\n  type: git\n  deployment: ${name !== 'catalog'}\n  git:\n    repo: ./${name}.git${directory}\n`;
  });
  const pvs = variants.map(
    (v) => `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: ${q(v.name)}\nspec:\n  upstream: {repo: catalog, package: app, revision: ${v.revision ?? 1}}\n  downstream: {repo: ${v.repo}, package: ${q(v.pkg)}}\n`,
  );
  const file = join(dir, 'variants.yaml');
  writeFileSync(file, [...repositories, ...pvs, ...more].join('---\n'));
  return file;
}
