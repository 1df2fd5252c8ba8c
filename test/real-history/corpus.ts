/**
 * The real-history corpus (test/fixtures/real-history, recorded by
 * scripts/gen-real-history-fixtures.mjs): loading the cases, and rebuilding a case's directories
 * from the local mirrors of the public repositories it came from.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { hermeticGitEnv, mirrorRoot, readTree, type TreeFile } from '../../scripts/lib/git-trees.cjs';
import { missingMirrors, rebuildCase, type RealHistoryCase } from '../../scripts/lib/real-history-fixture.cjs';
import { REPO_ROOT } from '../helpers';

export type { RealHistoryCase };
export type Tree = Map<string, TreeFile>;

export const FIXTURE_DIR = join(REPO_ROOT, 'test', 'fixtures', 'real-history');
export const GENERATOR = join(REPO_ROOT, 'scripts', 'gen-real-history-fixtures.mjs');
export const MIRRORS = mirrorRoot();

export function loadCases(dir = FIXTURE_DIR): RealHistoryCase[] {
  const cases = join(dir, 'cases');
  if (!existsSync(cases)) return [];
  return readdirSync(cases)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => parse(readFileSync(join(cases, f), 'utf8'), { maxAliasCount: -1 }) as RealHistoryCase);
}

/** The mirrors missing for any of the cases (empty when every case can be rebuilt). */
export function absentMirrors(cases: readonly RealHistoryCase[]): string[] {
  return [...new Set(cases.flatMap((c) => missingMirrors(c, MIRRORS)))].sort();
}

/**
 * One case laid out on disk. `pkg` is the package as the user has it (fetched with `kpt pkg get`
 * into `downstream/pkg`, then edited); `origin` and `upstream` are the older and newer version as
 * the mirror holds them; `kpt` is kpt's output.
 */
export interface CaseDir {
  root: string;
  fixture: RealHistoryCase;
  downstream: string;
  pkg: string;
  origin: string;
  upstream: string;
  kpt: string;
  /** git's (and kpt's) environment: the https URLs the Kptfiles record resolve to the mirrors. */
  gitEnv: NodeJS.ProcessEnv;
}

/** Writes a case's directories below `root`; `cache` keeps the mirror's trees between cases. */
export function buildCaseDir(fixture: RealHistoryCase, root: string, cache: string): CaseDir {
  const dir: CaseDir = {
    root,
    fixture,
    downstream: join(root, 'downstream'),
    pkg: join(root, 'downstream', 'pkg'),
    origin: join(root, 'origin'),
    upstream: join(root, 'upstream'),
    kpt: join(root, 'kpt'),
    gitEnv: hermeticGitEnv(root, MIRRORS),
  };
  mkdirSync(dir.downstream, { recursive: true });
  mkdirSync(cache, { recursive: true });
  rebuildCase(fixture, FIXTURE_DIR, MIRRORS, { origin: dir.origin, upstream: dir.upstream, local: dir.pkg, kpt: dir.kpt }, dir.gitEnv, cache);
  return dir;
}

export { readTree };
