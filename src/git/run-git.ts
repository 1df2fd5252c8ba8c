/**
 * Every git process of package-variant runs through here. What comes from data (a repository, a
 * ref, a path) is an operand: it goes after `--`, and one that begins with `-` is refused before git
 * runs, so nothing a Kptfile or a Repository object says can reach git as an option. Each process
 * runs detached, in a process group of its own, with a time bound: the whole run (`total`), and for
 * a transfer the longest it may go without a byte from git (`stall`); past either, the group (git
 * and whatever it started: ssh, a remote helper, upload-pack) is killed and the error names the
 * repository. A signal that ends this process (Ctrl-C) ends the groups too, since they no longer
 * share its terminal. A long-lived process (`startGit`: one that answers requests on its stdin) is
 * bounded the same way while a request waits for its answer, and does not keep this process alive.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export class GitError extends Error {
  /** True when git ran and exited non-zero; false when it could not run, was refused or stopped. */
  constructor(
    message: string,
    readonly exited: boolean,
    /** git's own message. */
    readonly gitMessage = '',
  ) {
    super(message);
  }
}

export interface GitTimeouts {
  /** The longest any git process may run, in milliseconds. */
  readonly totalMs: number;
  /** The longest a transfer (ls-remote, fetch) may go without output, in milliseconds. */
  readonly stallMs: number;
}

/** Ten minutes for a process, one without a byte during a transfer: a stalled server, not a slow one. */
export const DEFAULT_TIMEOUTS: GitTimeouts = { totalMs: 600_000, stallMs: 60_000 };

export interface GitCall {
  /** git's options, the subcommand and its options: all of the program's own making. */
  readonly args: readonly string[];
  /** Repositories, refs and paths: what may come from data. */
  readonly operands?: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly cwd?: string;
  readonly input?: Buffer | string;
  /** What a failure names: the repository, and where it is kept. */
  readonly about: string;
  /** A transfer from a remote: the stall bound applies. */
  readonly transfer?: boolean;
  readonly timeouts: GitTimeouts;
}

/** git's answer on stdout is kept whole up to this; more is an error (the read bounds are far below). */
const MAX_STDOUT = 1 << 30;
/** Of stderr only the end is kept: git's message is its last lines. */
const MAX_STDERR = 64 * 1024;

const PROGRESS = /^(?:remote: )?(?:Enumerating|Counting|Compressing|Receiving|Resolving|Unpacking|Total|Finding|Checking) /;

/** git's message: its last few lines, without transfer progress. */
function messageOf(stderr: string): string {
  return stderr
    .split(/[\r\n]+/)
    .filter((line) => line.trim() !== '' && !PROGRESS.test(line))
    .slice(-4)
    .join('\n');
}

/** Process groups of git still running, killed when this process ends. */
const running = new Set<number>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function killAll(): void {
  for (const pid of running) killGroup(pid);
}

function onSignal(signal: NodeJS.Signals): void {
  killAll();
  stopForwarding();
  // Without a handler left, the signal now does what it would have done: end this process.
  process.kill(process.pid, signal);
}

function startForwarding(): void {
  for (const signal of SIGNALS) process.on(signal, onSignal);
  process.on('exit', killAll);
}

function stopForwarding(): void {
  for (const signal of SIGNALS) process.off(signal, onSignal);
  process.off('exit', killAll);
}

function track(pid: number): void {
  if (running.size === 0) startForwarding();
  running.add(pid);
}

function untrack(pid: number): void {
  if (!running.delete(pid)) return;
  if (running.size === 0) stopForwarding();
}

/** The subcommand among git's own options (`-c name=value`, `--git-dir DIR`), for messages. */
function subcommand(args: readonly string[]): string {
  for (let i = 0; i < args.length; i += 1) {
    if (args[i] === '-c' || args[i] === '--git-dir') i += 1;
    else if (!args[i]!.startsWith('-')) return args[i]!;
  }
  return '';
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** A stopped process's error: what it was about and which bound stopped it. */
const stoppedError = (command: string, about: string, why: string) => new GitError(`${command} of ${about} ${why}; it was stopped`, false);

const notFound = () => new GitError('git was not found on PATH; update needs the git command line to fetch the upstream package', false);

/** git started in a process group of its own, tracked until it ends; a refused operand is an error before it starts. */
function spawnGit(call: Omit<GitCall, 'input'>, stdin: boolean): { child: ChildProcess; command: string } {
  const operands = call.operands ?? [];
  const optionLike = operands.find((operand) => operand.startsWith('-'));
  if (optionLike !== undefined) throw new GitError(`${call.about}: ${JSON.stringify(optionLike)} begins with "-", which git would take for an option; refused`, false);
  const args = operands.length ? [...call.args, '--', ...operands] : [...call.args];
  const child = spawn('git', args, {
    cwd: call.cwd,
    env: { ...call.env, GIT_TERMINAL_PROMPT: '0' },
    detached: true,
    stdio: [stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  if (child.pid !== undefined) track(child.pid);
  return { child, command: `git ${subcommand(call.args)}` };
}

const totalBound = (timeouts: GitTimeouts) => `ran longer than ${seconds(timeouts.totalMs)} (the time bound: --git-timeout, PACKAGE_VARIANT_GIT_TIMEOUT)`;
const stallBound = (timeouts: GitTimeouts) =>
  `got nothing from the repository for ${seconds(timeouts.stallMs)} (the stall bound: --git-stall-timeout, PACKAGE_VARIANT_GIT_STALL_TIMEOUT)`;

/** Runs git; its stdout, or a GitError naming what it was about and quoting git. */
export function runGit(call: GitCall): Promise<Buffer> {
  let started: ReturnType<typeof spawnGit>;
  try {
    started = spawnGit(call, call.input !== undefined);
  } catch (error) {
    return Promise.reject(error);
  }
  const { child, command } = started;
  return new Promise((resolve, reject) => {
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let stopped: string | undefined;
    let settled = false;
    const stop = (why: string) => {
      if (stopped !== undefined) return;
      stopped = why;
      if (child.pid !== undefined) killGroup(child.pid);
    };
    const total = setTimeout(() => stop(totalBound(call.timeouts)), call.timeouts.totalMs);
    let stall: NodeJS.Timeout | undefined;
    const heard = () => {
      if (!call.transfer) return;
      if (stall) clearTimeout(stall);
      stall = setTimeout(() => stop(stallBound(call.timeouts)), call.timeouts.stallMs);
    };
    heard();
    const finish = (error: GitError | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(total);
      if (stall) clearTimeout(stall);
      if (child.pid !== undefined) untrack(child.pid);
      if (error) reject(error);
      else resolve(Buffer.concat(stdout, stdoutBytes));
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      heard();
      stdoutBytes += chunk.length;
      if (stdoutBytes > MAX_STDOUT) stop(`answered with more than ${MAX_STDOUT} bytes`);
      else stdout.push(chunk);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      heard();
      stderr = (stderr + chunk.toString('utf8')).slice(-MAX_STDERR);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') finish(notFound());
      else finish(new GitError(`${command} could not run for ${call.about}: ${error.message}`, false));
    });
    child.on('close', (code, signal) => {
      if (stopped !== undefined) return finish(stoppedError(command, call.about, stopped));
      if (code === 0) return finish(undefined);
      const message = messageOf(stderr);
      finish(new GitError(`${command} failed for ${call.about}: ${message || (signal ? `killed by ${signal}` : `exit code ${code}`)}`, code !== null, message));
    });
    if (call.input !== undefined) {
      // git may exit before reading it all (a failure): its own message says why.
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(call.input);
    }
  });
}

/**
 * A git process that stays, answering what is written to its stdin (`git cat-file --batch-command`).
 * Between `waiting()` and `answered()` the bounds hold: no byte for the stall bound, or no answer
 * for the time bound, and the group is killed; `ended` then says why. Idle, it keeps nothing of this
 * process alive: a run that forgets to `end()` it still exits, and the group is killed as it does.
 */
export interface LongGit {
  write(input: string): void;
  /** Output, chunk by chunk. */
  onOutput(listener: (chunk: Buffer) => void): void;
  /** A request awaits its answer: the bounds run (again) from now. */
  waiting(): void;
  /** Nothing awaits an answer: no bound runs. */
  answered(): void;
  /** Kills the group: the answer read is not one git can have given, or is past a bound of the reader's own. */
  stop(why: string): void;
  /** Closes stdin: git ends once it has answered, within the bounds. */
  end(): void;
  /** Settles when the process has ended: undefined when it ended of itself after `end()`, else why it ended. */
  readonly ended: Promise<GitError | undefined>;
}

export function startGit(call: Omit<GitCall, 'input' | 'transfer'>): LongGit {
  const { child, command } = spawnGit(call, true);
  const handles = [child, child.stdin, child.stdout, child.stderr] as unknown as { ref(): void; unref(): void }[];
  for (const handle of handles) handle.unref();
  // Once it is to end (closed or killed), this process waits for it: `ended` settles.
  const awaitEnd = () => {
    for (const handle of handles) handle.ref();
  };
  let stderr = '';
  let stopped: string | undefined;
  let ending = false;
  let total: NodeJS.Timeout | undefined;
  let stall: NodeJS.Timeout | undefined;
  const clear = () => {
    if (total) clearTimeout(total);
    if (stall) clearTimeout(stall);
    total = stall = undefined;
  };
  const stop = (why: string) => {
    if (stopped !== undefined) return;
    stopped = why;
    clear();
    awaitEnd();
    if (child.pid !== undefined) killGroup(child.pid);
  };
  const heard = () => {
    if (total === undefined) return;
    if (stall) clearTimeout(stall);
    stall = setTimeout(() => stop(stallBound(call.timeouts)), call.timeouts.stallMs);
  };
  child.stdout!.on('data', heard);
  child.stderr!.on('data', (chunk: Buffer) => {
    heard();
    stderr = (stderr + chunk.toString('utf8')).slice(-MAX_STDERR);
  });
  child.stdin!.on('error', () => undefined);
  const waiting = () => {
    clear();
    // Ref'd: while an answer (or the end) is awaited, this process stays alive for it.
    total = setTimeout(() => stop(totalBound(call.timeouts)), call.timeouts.totalMs);
    heard();
  };
  const ended = new Promise<GitError | undefined>((resolve) => {
    const finish = (error: GitError | undefined) => {
      clear();
      if (child.pid !== undefined) untrack(child.pid);
      resolve(error);
    };
    child.on('error', (error: NodeJS.ErrnoException) => finish(error.code === 'ENOENT' ? notFound() : new GitError(`${command} could not run for ${call.about}: ${error.message}`, false)));
    child.on('close', (code, signal) => {
      if (stopped !== undefined) return finish(stoppedError(command, call.about, stopped));
      if (code === 0 && ending) return finish(undefined);
      const message = messageOf(stderr);
      finish(new GitError(`${command} ended for ${call.about}: ${message || (signal ? `killed by ${signal}` : `exit code ${code}`)}`, code !== null, message));
    });
  });
  return {
    write: (input) => {
      if (stopped === undefined && !ending) child.stdin!.write(input);
    },
    onOutput: (listener) => child.stdout!.on('data', listener),
    waiting,
    answered: clear,
    stop,
    end: () => {
      ending = true;
      waiting();
      awaitEnd();
      child.stdin!.end();
    },
    ended,
  };
}
