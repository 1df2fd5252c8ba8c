/**
 * kpt's documentation asks for a package's changes to be committed before an update: the update
 * then shows as a diff of its own, and what it replaced can be restored. A package inside a git
 * work tree with uncommitted changes is refused (unless the caller allows it). This is git on the
 * user's own repository, so the user's environment (GIT_DIR in a hook) holds here; only the
 * repository's fsmonitor is not run, since a package may hold a `.git` that came with its content.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { GitError, runGit, type GitTimeouts } from './run-git';

/** Whether git could find a repository from `dir`: a `.git` above it, or one named by GIT_DIR. */
function mayBeInRepository(dir: string, env: NodeJS.ProcessEnv): boolean {
  if (env.GIT_DIR) return true;
  for (let at = resolve(dir); ; at = dirname(at)) {
    if (existsSync(join(at, '.git'))) return true;
    if (dirname(at) === at) return false;
  }
}

/** The package's uncommitted paths (`git status --porcelain`), or none when it is not in a work tree (git status then fails). */
export async function uncommittedChanges(packageDir: string, env: NodeJS.ProcessEnv, timeouts: GitTimeouts): Promise<string[]> {
  if (!mayBeInRepository(packageDir, env)) return [];
  let status: string;
  try {
    const out = await runGit({
      args: ['-c', 'core.fsmonitor=false', 'status', '--porcelain', '--untracked-files=all'],
      operands: ['.'],
      env,
      cwd: packageDir,
      about: `the repository of ${packageDir}`,
      timeouts,
    });
    status = out.toString('utf8');
  } catch (error) {
    if (error instanceof GitError && error.exited) return [];
    throw error;
  }
  return status
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.slice(3));
}
