/** Types of mirrored-rule-fixture.cjs for the TypeScript tests; the format is in test/fixtures/differential/README.md. */
export type Files = Record<string, string>;
export interface MirroredVersion {
  ref: string;
  commit: string;
}
export interface MirroredRecipe {
  repo: string;
  directory: string;
  files: string[];
  origin: MirroredVersion;
  upstream: MirroredVersion;
}
export interface FileEdit {
  file: string;
  replace: string;
  with: string;
}
export interface MirroredRuleCase {
  mirrored: MirroredRecipe;
  local: { residue: string; edits: FileEdit[]; manifest: string };
  kpt: { exitCode: number; error?: string; base?: 'local' | 'updated'; patch?: string; manifest?: string };
}
export interface RebuiltCase {
  origin: Files;
  upstream: Files;
  local: Files;
  kpt: { exitCode: number; files?: Files; error?: string };
}
export declare function missingMirror(fixture: MirroredRuleCase, mirrors: string): string | undefined;
export declare function rebuildMirroredCase(fixture: MirroredRuleCase, mirrors: string): RebuiltCase;
