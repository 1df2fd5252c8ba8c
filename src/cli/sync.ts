/**
 * `package-variant sync PATH...`: the PackageVariant lifecycle over git repositories. Arguments
 * in; the plan, the diffs and what was pushed printed; the exit code a CI job acts on.
 */
import { RenderError, renderWithKpt, type RenderSettings } from '../disk/kpt-render';
import type { GitTimeouts } from '../git/run-git';
import { InputError, readSyncInputs } from '../sync/inputs';
import { diffSections, planOutcome, planText, type SyncPlan } from '../sync/plan';
import { gitRemotes } from '../sync/remotes';
import type { DownstreamSelector } from '../sync/settings';
import { RepositoryObjectError } from '../sync/repositories';
import { planSync, writePlan, type WriteFailure } from '../sync/run';
import type { Lifecycle } from '../sync/state';
import { accessSync, closeSync, constants, fstatSync, lstatSync, openSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { readShard } from '../sync/shard';
import { statusText } from '../sync/status';
import { gitTimeouts } from './git-options';
import { Report } from './report';

export interface SyncArguments {
  paths: string[];
  dryRun?: boolean;
  diff?: boolean;
  lifecycle?: string;
  noRender?: boolean;
  allowExec?: boolean;
  allowDelete?: boolean;
  approveDeletions?: boolean;
  adoptNow?: boolean;
  /** Plan every repository from its content, whatever an earlier run recorded. */
  recheck?: boolean;
  imagePullPolicy?: string;
  gitTimeout?: string;
  gitStallTimeout?: string;
  /** Where to write every variant's and set's status. */
  statusOut?: string;
  /** `I/N`: only the downstream repositories of shard I of N. */
  shard?: string;
  /** `REPOSITORY[/PACKAGE]`, each: only these downstreams. */
  only?: string[];
}

/** `--only REPOSITORY[/PACKAGE]`; undefined when it is not one. */
function readOnly(text: string): DownstreamSelector | undefined {
  const slash = text.indexOf('/');
  const [repository, pkg] = slash < 0 ? [text, undefined] : [text.slice(0, slash), text.slice(slash + 1)];
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(repository) || pkg === '') return undefined;
  return pkg === undefined ? { repository } : { repository, pkg };
}

const LIFECYCLES: readonly string[] = ['draft', 'proposed', 'published'];
const PULL_POLICIES: readonly string[] = ['Always', 'IfNotPresent', 'Never'];
/** The longest one render may take: functions pulled as images on a cold machine take minutes. */
const RENDER_TIMEOUT_MS = 600_000;

/** Exit codes a CI job acts on (README "Fleet lifecycle"). */
export const SYNC_EXIT = { nothingToDo: 0, error: 1, usage: 2, unreported: 3, changes: 4, attention: 5 } as const;

/** A usage problem in the arguments, or undefined. */
export function checkSyncArguments(args: SyncArguments): string | undefined {
  if (args.paths.length === 0) return 'name the files or directories that hold the Repository, PackageVariant and PackageVariantSet objects';
  if (args.lifecycle !== undefined && !LIFECYCLES.includes(args.lifecycle)) return `--lifecycle must be one of ${LIFECYCLES.join(', ')}, not "${args.lifecycle}"`;
  if (args.imagePullPolicy !== undefined && !PULL_POLICIES.includes(args.imagePullPolicy)) return `--image-pull-policy must be one of ${PULL_POLICIES.join(', ')}, not "${args.imagePullPolicy}"`;
  if (args.noRender && (args.allowExec || args.imagePullPolicy !== undefined)) return '--allow-exec and --image-pull-policy go with a render; they mean nothing with --no-render';
  const badOnly = args.only?.find((text) => !readOnly(text));
  if (badOnly !== undefined) return `--only takes a Repository's name, or a Repository and a package (edge1/app), not "${badOnly}"`;
  if (args.shard !== undefined && !readShard(args.shard)) return `--shard must be I/N, a shard index from 0 to N-1 and the number of shards (as JOB_COMPLETION_INDEX of a Job with N completions), not "${args.shard}"`;
  const timeouts = gitTimeouts(args, process.env);
  return typeof timeouts === 'string' ? timeouts : undefined;
}

function render(args: SyncArguments): ((tree: Parameters<typeof renderWithKpt>[0], about: string) => ReturnType<typeof renderWithKpt>) | undefined {
  if (args.noRender) return undefined;
  const settings: RenderSettings = { allowExec: args.allowExec === true, ...(args.imagePullPolicy ? { imagePullPolicy: args.imagePullPolicy } : {}), env: process.env, timeoutMs: RENDER_TIMEOUT_MS };
  return (tree, about) => renderWithKpt(tree, settings, about);
}

/** The plan, and with `--diff` each new revision's diff under its repository and entry. */
export function printPlan(report: Report, plan: SyncPlan, urls: ReadonlyMap<string, string>, args: { readonly diff?: boolean }): void {
  for (const line of planText(plan, urls).trimEnd().split('\n')) report.line(1, line);
  if (!args.diff) return;
  for (const { heading, diffs } of diffSections(plan, urls)) {
    report.line(1, heading);
    for (const { line, diff } of diffs) {
      report.line(1, line);
      report.text(1, diff);
    }
  }
}

/** A line on a terminal's stderr, rewritten in place as the run goes; nothing when stderr is not a terminal. */
class Progress {
  private fetched = 0;
  private planned = 0;
  private downstreams = 0;
  private pushed = 0;
  private shown = false;

  event = (event: 'fetched' | 'planned' | 'pushed', downstreams = 0): void => {
    if (event === 'fetched') this.fetched += 1;
    else if (event === 'planned') {
      this.planned += 1;
      this.downstreams += downstreams;
    } else this.pushed += 1;
    this.shown = true;
    process.stderr.write(`\rsync: ${this.fetched} repositories fetched, ${this.planned} planned (${this.downstreams} downstreams), ${this.pushed} pushed\u001b[K`);
  };

  /** Clears the line, so what follows starts on its own. */
  done(): void {
    if (this.shown) process.stderr.write('\r\u001b[K');
    this.shown = false;
  }
}

/**
 * How the status reaches its file: renamed into place over a regular file (or a new one), written
 * through whatever else is there, or, for this process's own stdout or stderr (`/dev/stdout`, which
 * may be a socket no path opens), written to that stream.
 */
type StatusTarget = 'replace' | 'in-place' | 1 | 2;

/**
 * The status file must be writable before anything is fetched or pushed: the status is written
 * after the push, and a run that pushed should not end unable to say so. A device, a pipe or a link
 * (`/dev/null`, `/dev/stdout`) is written in place, never renamed over; a directory is refused.
 */
function checkStatusFile(file: string): StatusTarget {
  const refuse = (why: string) => new StatusWriteError(`cannot write the status to ${file}: ${why}`);
  let found: Stats | undefined;
  try {
    found = lstatSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw refuse((error as Error).message);
  }
  if (found && !found.isFile()) {
    const target = statSync(file, { throwIfNoEntry: false });
    if (!target) throw refuse('it is a link to nothing');
    if (target.isDirectory()) throw refuse('it is a directory');
    for (const fd of [1, 2] as const) {
      const stream = fstatSync(fd, { bigint: true });
      if (stream.dev === BigInt(target.dev) && stream.ino === BigInt(target.ino)) return fd;
    }
    // Opened once without waiting, now: a pipe nobody reads would hold the write for ever, and what
    // cannot be opened should stop the run before it pushes.
    try {
      closeSync(openSync(file, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch (error) {
      throw refuse((error as NodeJS.ErrnoException).code === 'ENXIO' && target.isFIFO() ? 'it is a pipe nobody reads' : (error as Error).message);
    }
    return 'in-place';
  }
  try {
    accessSync(dirname(resolve(file)), constants.W_OK);
  } catch (error) {
    throw refuse((error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : (error as Error).message);
  }
  return 'replace';
}

/** The status file, written whole (a temporary file beside it, then renamed over it) or in place; false when it could not be. */
function writeStatus(report: Report, file: string, text: string, target: StatusTarget): boolean {
  const draft = `${file}.${process.pid}.tmp`;
  try {
    if (target === 1 || target === 2) report.text(target, text);
    else if (target === 'in-place') writeFileSync(file, text);
    else {
      writeFileSync(draft, text);
      renameSync(draft, file);
    }
    return true;
  } catch (error) {
    if (target === 'replace') rmSync(draft, { force: true });
    report.say(`could not write the status to ${file}: ${(error as Error).message}`);
    return false;
  }
}

class StatusWriteError extends Error {}

export async function runSyncCommand(args: SyncArguments): Promise<number> {
  const report = new Report('package-variant sync');
  const dryRun = args.dryRun === true || args.diff === true;
  const progress = process.stderr.isTTY ? new Progress() : undefined;
  let code: number;
  /** What the run did to the repositories, said again when stdout could not take the plan. */
  let pushedText: string | undefined;
  try {
    const statusTarget = args.statusOut ? checkStatusFile(args.statusOut) : undefined;
    const inputs = readSyncInputs(args.paths);
    const renderer = render(args);
    const { plan, urls, remotes, variants, sets } = await planSync(inputs, {
      lifecycle: (args.lifecycle ?? 'draft') as Lifecycle,
      diff: args.diff === true,
      ...(renderer ? { render: renderer } : {}),
      allowDelete: args.allowDelete === true,
      approveDeletions: args.approveDeletions === true,
      adoptNow: args.adoptNow === true,
      ...(args.shard ? { shard: readShard(args.shard)! } : {}),
      ...(args.only?.length ? { only: args.only.map((text) => readOnly(text)!) } : {}),
      ...(progress ? { progress: progress.event } : {}),
      open: gitRemotes({ env: process.env, timeouts: gitTimeouts(args, process.env) as GitTimeouts, notify: report.say }),
      ...(args.recheck ? {} : { settledRecords: process.env }),
    });
    progress?.done();
    printPlan(report, plan, urls, args);
    if (!renderer) {
      report.say('--no-render: drafts are written as the mutations leave them; run kpt fn render on them before they deploy');
      // A published revision is on the branch deployment tools read: unrendered, it deploys as it is.
      const unrendered = plan.downstreams.filter((d) => d.refs.some((ref) => ref.startsWith('tag ')));
      if (unrendered.length) report.line(1, `warning: --no-render: ${unrendered.map((d) => `${d.repository}/${d.pkg}`).join(', ')} published unrendered, on the branch that deploys`);
    }
    code = { attention: SYNC_EXIT.attention, changes: SYNC_EXIT.changes, 'nothing-to-do': SYNC_EXIT.nothingToDo }[planOutcome(plan)];
    let failures: WriteFailure[] = [];
    if (dryRun) {
      pushedText = 'dry run: nothing was pushed';
      report.say(pushedText);
    } else {
      failures = await writePlan(plan, remotes, progress?.event);
      progress?.done();
      for (const failure of failures) report.say(failure.message);
      const pushed = plan.writes.length - failures.length;
      if (plan.writes.length > 0) {
        pushedText = `pushed ${pushed} of ${plan.writes.length} ${plan.writes.length === 1 ? 'repository' : 'repositories'}`;
        report.say(pushedText);
      }
      if (failures.length > 0) code = SYNC_EXIT.error;
    }
    // After the push, so that it says what the repositories hold (with --dry-run, what they would).
    if (args.statusOut) {
      const status = statusText(variants, sets, plan.downstreams, new Map(failures.map((f) => [f.repository, `not pushed: ${f.message}`])));
      if (!writeStatus(report, args.statusOut, status, statusTarget!)) code = SYNC_EXIT.error;
    }
  } catch (error) {
    if (error instanceof InputError || error instanceof RepositoryObjectError || error instanceof RenderError || error instanceof StatusWriteError) {
      report.say(error.message);
      report.say('nothing was pushed');
    } else {
      const message = error instanceof Error ? error.message : String(error);
      if (process.env.PACKAGE_VARIANT_DEBUG && error instanceof Error && error.stack) report.text(2, `${error.stack}\n`);
      report.say(`internal error: ${message} (set PACKAGE_VARIANT_DEBUG=1 for details)`);
    }
    return SYNC_EXIT.error;
  }
  if (report.failed.size === 0) return code;
  const stdout = report.failed.get(1);
  // stdout's failure is said on stderr, with what the run did; stderr's, only by the exit code.
  if (stdout) report.say(`could not write to stdout (${stdout}): the plan printed is incomplete; ${pushedText ?? 'nothing needed pushing'}`);
  return SYNC_EXIT.unreported;
}
