/** Runs the `git` command line, as kpt does; its failures become errors that quote git's own message. */
import { spawnSync } from 'node:child_process';

export class GitError extends Error {
  /** True when git ran and exited non-zero; false when it could not run at all. */
  constructor(
    message: string,
    readonly exited: boolean,
  ) {
    super(message);
  }
}

export interface GitRun {
  /** Working directory. */
  readonly cwd?: string;
  /** The environment git sees (tests set `GIT_CONFIG_*` here). */
  readonly env: NodeJS.ProcessEnv;
  readonly input?: Buffer | string;
}

function gitMessage(stderr: Buffer): string {
  return stderr.toString('utf8').trim().split('\n').filter(Boolean).slice(-4).join('\n');
}

/** git's stdout; throws GitError naming the command and quoting git on failure. */
export function git(args: readonly string[], run: GitRun): Buffer {
  const result = spawnSync('git', args, {
    cwd: run.cwd,
    env: { ...run.env, GIT_TERMINAL_PROMPT: '0' },
    input: run.input,
    maxBuffer: 1 << 30,
  });
  if (result.error) {
    const code = (result.error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new GitError('git was not found on PATH; update needs the git command line to fetch the upstream package', false);
    throw new GitError(`git ${args[0]} could not run: ${result.error.message}`, false);
  }
  if (result.status !== 0) throw new GitError(`git ${args.join(' ')} failed: ${gitMessage(result.stderr) || `exit code ${result.status}`}`, true);
  return result.stdout;
}

/** Like `git`, but answers undefined where git exits non-zero (a question, not a command). */
export function gitQuery(args: readonly string[], run: GitRun): Buffer | undefined {
  try {
    return git(args, run);
  } catch (error) {
    if (error instanceof GitError && error.exited) return undefined;
    throw error;
  }
}
