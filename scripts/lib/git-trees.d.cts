/** Types of git-trees.cjs for the TypeScript tests. */
export interface Repository {
  url: string;
  mirror: string;
}
export interface TreeFile {
  mode: string;
  bytes: Buffer;
}
export declare const REPOSITORIES: readonly Repository[];
export declare const BENCH_REPOSITORIES: readonly Repository[];
export declare const MIRROR_HINT: string;
export declare function mirrorRoot(env?: NodeJS.ProcessEnv): string;
export declare function mirrorGitDir(root: string, repo: Repository): string;
export declare function repositoryOf(url: string): Repository;
export declare function hermeticGitEnv(scratch: string, root?: string, base?: NodeJS.ProcessEnv, more?: readonly Repository[]): NodeJS.ProcessEnv;
export declare function readTree(root: string): Map<string, TreeFile>;
export declare function manifest(files: Map<string, TreeFile>): string;
