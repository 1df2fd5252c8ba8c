/**
 * Before the first change: does the disk still look as the plan expects? Every directory the update
 * writes in is a real directory (not a symbolic link, not a file), every file it replaces or removes
 * is a regular file, and nothing stands where it creates a file. A problem here means nothing is
 * written at all.
 */
import { join } from 'node:path';
import type { UpdatePlan } from '../plan';
import { dirOf, ROOT } from '../../package/scopes';
import type { FileOps, PathKind } from './file-ops';
import { journalAt } from './journal';
import { COMMITTED_FILE, JOURNAL_FILE } from './reserved';

export class PlanConflict extends Error {}

export interface CheckedPlan {
  /** The plan's directories that do not exist yet, parents first. */
  readonly createDirs: readonly string[];
  /** Files the plan replaces or removes that exist now. */
  readonly existing: ReadonlySet<string>;
}

function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let dir = dirOf(path); dir !== ROOT; dir = dirOf(dir)) out.unshift(dir);
  return out;
}

const notAFile: Partial<Record<PathKind, string>> = {
  link: 'is a symbolic link, and the update never writes through one',
  dir: 'is a directory where the update writes a file',
  other: 'is not a regular file',
};

export function checkPlan(plan: UpdatePlan, ops: FileOps): CheckedPlan {
  const kinds = new Map<string, PathKind>();
  const kindOf = (path: string) => {
    if (!kinds.has(path)) kinds.set(path, ops.kind(join(plan.root, path)));
    return kinds.get(path)!;
  };
  // One that came with the package's content is no update of this package: the writer's own replaces it.
  for (const file of [JOURNAL_FILE, COMMITTED_FILE]) {
    const found = journalAt(ops, plan.root, file);
    if (found && 'journal' in found) throw new PlanConflict(`${file} holds an earlier update that was interrupted; it must be dealt with first (src/disk/safe-write/recovery.ts)`);
  }
  const planned = new Set(plan.createDirs);
  const createDirs: string[] = [];
  const dirs = new Set([...plan.writes.map((w) => w.path), ...plan.removes, ...plan.createDirs.map((d) => `${d}/-`)].flatMap(ancestors));
  for (const dir of [...dirs].sort((a, b) => a.split('/').length - b.split('/').length || (a < b ? -1 : 1))) {
    const kind = kindOf(dir);
    if (kind === 'dir') continue;
    if (kind === 'missing' && planned.has(dir)) createDirs.push(dir);
    else if (kind === 'missing') throw new PlanConflict(`the directory ${dir} is gone since the package was read`);
    else if (kind === 'link') throw new PlanConflict(`${dir} is a symbolic link, and the update never writes through one`);
    else throw new PlanConflict(`${dir} is a file where the update needs a directory (upstream made it one): move the file away and update again`);
  }
  const existing = new Set<string>();
  for (const { path } of plan.writes) {
    const kind = kindOf(path);
    if (kind === 'file') existing.add(path);
    else if (kind !== 'missing') throw new PlanConflict(`${path} ${notAFile[kind]}`);
  }
  for (const path of plan.removes) {
    const kind = kindOf(path);
    if (kind === 'file') existing.add(path);
    else if (kind !== 'missing') throw new PlanConflict(`${path} ${notAFile[kind]}`);
  }
  return { createDirs, existing };
}
