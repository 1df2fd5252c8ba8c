/**
 * An update as data: what to write, remove and create below a package directory, computed whole
 * before anything is touched (a failed update writes nothing). src/disk/plan-writer.ts carries it out;
 * a dry run prints it (src/disk/plan-diff.ts for `--diff`).
 */
import { sameFile, type PackageTree } from '../package/tree';

export interface PlannedWrite {
  /** Relative to the package directory, with `/`. */
  readonly path: string;
  readonly bytes: Buffer;
  readonly mode: number;
  /** The file did not exist before. */
  readonly created: boolean;
}

export interface UpdatePlan {
  /** The package directory the paths are relative to. */
  readonly root: string;
  /** Directories to create, parents first. */
  readonly createDirs: readonly string[];
  readonly writes: readonly PlannedWrite[];
  /** Files to remove. */
  readonly removes: readonly string[];
  /** Directories to remove once empty, deepest first. */
  readonly removeDirs: readonly string[];
  /** The package as it was read: the old side of a diff. */
  readonly before: PackageTree;
}

const byDepth = (a: string, b: string) => a.split('/').length - b.split('/').length || (a < b ? -1 : a > b ? 1 : 0);

/** The plan that turns `before` (the package as read) into `after` (the updated package). */
export function planUpdate(root: string, before: PackageTree, after: PackageTree): UpdatePlan {
  const writes: PlannedWrite[] = [];
  for (const [path, file] of after.files) {
    const old = before.files.get(path);
    if (old && sameFile(old, file) && old.mode === file.mode) continue;
    writes.push({ path, bytes: file.bytes, mode: file.mode, created: old === undefined });
  }
  writes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    root,
    createDirs: [...after.dirs].filter((d) => !before.dirs.has(d)).sort(byDepth),
    writes,
    removes: [...before.files.keys()].filter((p) => !after.files.has(p)).sort(),
    removeDirs: [...before.dirs].filter((d) => !after.dirs.has(d)).sort(byDepth).reverse(),
    before,
  };
}

/** Whether the plan changes nothing. */
export function planIsEmpty(plan: UpdatePlan): boolean {
  return plan.createDirs.length + plan.writes.length + plan.removes.length + plan.removeDirs.length === 0;
}
