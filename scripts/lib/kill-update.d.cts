/** Types of kill-update.cjs for the TypeScript tests. */
export interface PackageDirs {
  readonly origin: string;
  readonly upstream: string;
  readonly local: string;
}
export interface Snapshot {
  readonly files: Map<string, Buffer>;
  readonly reserved: string[];
}
export interface Comparison {
  readonly old: number;
  readonly updated: number;
  readonly neither: string[];
  readonly missing: string[];
  readonly equalsBefore: boolean;
  readonly equalsAfter: boolean;
}
export interface UpdateRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  /** When each watched path first appeared. */
  readonly seen: Record<string, number | undefined>;
  readonly journalAt?: number;
  readonly killedAt?: number;
  readonly endedAt: number;
}
export declare function writeMovedPackage(dir: string, options: { resources: number; large?: number; largeBytes?: number }): PackageDirs;
export declare function snapshot(root: string): Snapshot;
export declare function compare(now: Snapshot, before: Snapshot, after: Snapshot): Comparison;
export declare function runUpdate(mainJs: string, dirs: PackageDirs, options?: { killAfterMs?: number; killOn?: string; watch?: string[] }): Promise<UpdateRun>;
export declare function isReserved(name: string): boolean;
