/** Carries out an update plan on disk: the one module of an update that writes. */
import { chmodSync, existsSync, mkdirSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { UpdatePlan } from './plan';

export function executePlan(plan: UpdatePlan): void {
  const at = (path: string) => join(plan.root, path);
  for (const dir of plan.createDirs) mkdirSync(at(dir), { recursive: true });
  for (const write of plan.writes) {
    const full = at(write.path);
    writeFileSync(full, write.bytes, { mode: write.mode });
    if ((statSync(full).mode & 0o7777) !== write.mode) chmodSync(full, write.mode);
  }
  for (const path of plan.removes) rmSync(at(path), { force: true });
  for (const dir of plan.removeDirs) if (existsSync(at(dir))) rmdirSync(at(dir));
}
