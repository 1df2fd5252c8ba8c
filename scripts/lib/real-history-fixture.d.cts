/** Types of real-history-fixture.cjs for the TypeScript tests; the format is in test/fixtures/real-history/README.md. */
export interface VersionTree {
  ref: string;
  version: string;
  commit: string;
  tree: string;
  residue?: string;
}
export interface IndependentSubpackage {
  path: string;
  repo: string;
  directory: string;
  ref: string;
  commit: string;
  tree: string;
  residue?: string;
  base: 'upstream' | 'parent';
}
export interface RealHistoryCase {
  id: string;
  repo: string;
  directory: string;
  from: VersionTree;
  to: VersionTree;
  independent?: IndependentSubpackage[];
  seed: number;
  strategy: 'resource-merge' | 'fast-forward' | 'force-delete-replace';
  edits: Record<string, unknown>[];
  local: { manifest: string; patch: string };
  kpt: { exitCode: number; error?: string; base: 'updated' | 'local'; files: string; patch: string };
}
export interface CasePaths {
  origin?: string;
  upstream?: string;
  local?: string;
  kpt?: string;
}
export declare function rebuildCase(fixture: RealHistoryCase, fixtureDir: string, mirrors: string, paths: CasePaths, env: NodeJS.ProcessEnv, cache?: string): void;
export declare function missingMirrors(fixture: RealHistoryCase, mirrors: string): string[];
