/**
 * kpt's documentation asks for a package's changes to be committed before an update: the update
 * then shows as a diff of its own, and what it replaced can be restored. A package inside a git
 * work tree with uncommitted changes is refused (unless the caller allows it).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gitQuery, type GitRun } from './run-git';

/** Whether git could find a repository from `dir`: a `.git` above it, or one named by GIT_DIR. */
function mayBeInRepository(dir: string, env: NodeJS.ProcessEnv): boolean {
  if (env.GIT_DIR) return true;
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return true;
    if (dirname(at) === at) return false;
  }
}

/** The package's uncommitted paths (`git status --porcelain`), or none when it is not in a work tree (git status then fails). */
export function uncommittedChanges(packageDir: string, env: NodeJS.ProcessEnv): string[] {
  if (!mayBeInRepository(packageDir, env)) return [];
  const run: GitRun = { cwd: packageDir, env };
  const status = gitQuery(['status', '--porcelain', '--untracked-files=all', '--', '.'], run)?.toString('utf8') ?? '';
  return status
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.slice(3));
}
