/**
 * `package-variant update`: arguments in, the update (src/update) run, its results and plan printed.
 * Git mode (`PKG[@REF]`, as `kpt pkg update`) reads the upstream the Kptfile records; directory
 * mode (`LOCAL --origin DIR --upstream DIR`) is given both versions.
 */
import type { MergeStrategy } from '../config/function-config';
import { PackageReadError } from '../disk/disk-tree';
import { UpdateError, updateFromGit } from '../update/git-update';
import { planIsEmpty, type UpdatePlan } from '../disk/plan';
import { planDiff } from '../disk/plan-diff';
import { WriteError } from '../disk/plan-writer';
import { LockError } from '../disk/safe-write/lock';
import { RecoveryError } from '../disk/safe-write/recovery';
import type { GitTimeouts } from '../git/run-git';
import { quotePath } from '../package/path-text';
import { updateFromDirectories } from '../update/update';
import type { UpdateOutcome } from '../update/locked-update';
import { gitTimeouts } from './git-options';
import { Report } from './report';
import { formatResult } from './results-text';

export interface UpdateArguments {
  /** PKG[@REF] in git mode, LOCAL_DIR in directory mode. */
  package?: string;
  origin?: string;
  upstream?: string;
  strategy?: string;
  conflicts?: string;
  upstreamRef?: string;
  upstreamCommit?: string;
  allowDirty?: boolean;
  /** Fetch from a repository on this machine that an upstream version brought in. */
  allowLocalUpstreams?: boolean;
  /** Seconds: the bound on every git process, and on a transfer without a byte. */
  gitTimeout?: string;
  gitStallTimeout?: string;
  /** Print what would change, write nothing. */
  dryRun?: boolean;
  /** Print what would change as a unified diff, write nothing. */
  diff?: boolean;
}

const STRATEGIES: readonly string[] = ['resource-merge', 'fast-forward', 'force-delete-replace'];
const CONFLICTS: readonly string[] = ['upstream-wins', 'error'];

const isGitMode = (args: UpdateArguments) => args.origin === undefined && args.upstream === undefined;

/** A usage problem in the arguments, or undefined. */
export function checkUpdateArguments(args: UpdateArguments): string | undefined {
  if (args.strategy !== undefined && !STRATEGIES.includes(args.strategy)) return `--strategy must be one of ${STRATEGIES.join(', ')}, not "${args.strategy}"`;
  if (args.conflicts !== undefined && !CONFLICTS.includes(args.conflicts)) return `--conflicts must be one of ${CONFLICTS.join(', ')}, not "${args.conflicts}"`;
  if (isGitMode(args)) {
    if (args.upstreamRef !== undefined || args.upstreamCommit !== undefined) return '--upstream-ref and --upstream-commit go with --origin and --upstream; in git mode the version is PKG@REF';
    if ((args.package ?? '').split('@').length > 2) return `"${args.package}" holds more than one @: use PKG@REF`;
    const timeouts = gitTimeouts(args, process.env);
    return typeof timeouts === 'string' ? timeouts : undefined;
  }
  if (!args.package || !args.origin || !args.upstream) return 'update needs LOCAL_DIR, --origin DIR and --upstream DIR (or PKG[@REF] alone, for the git upstream its Kptfile records)';
  if (args.package.includes('@')) return `with --origin and --upstream, LOCAL_DIR is a directory: "${args.package}" names a version; use --upstream-ref`;
  if (args.allowDirty) return '--allow-dirty goes with git mode (PKG[@REF])';
  if (args.allowLocalUpstreams || args.gitTimeout !== undefined || args.gitStallTimeout !== undefined) return '--allow-local-upstreams, --git-timeout and --git-stall-timeout go with git mode (PKG[@REF])';
  return undefined;
}

/**
 * What the plan does, one line each, in one vocabulary for a run and its dry run (added, changed,
 * removed); a dry run says "would". With --diff, the diff alone on stdout. A count on stderr.
 */
function printPlan(report: Report, plan: UpdatePlan, dryRun: boolean, diff: boolean): void {
  if (diff) {
    report.text(1, planDiff(plan));
  } else {
    const line = (verb: string, what: string) => report.line(1, `${dryRun ? `would ${verb}` : PAST[verb]} ${what}`);
    for (const dir of plan.createDirs) line('add', `directory ${quotePath(`${dir}/`)}`);
    for (const write of plan.writes) line(write.created ? 'add' : 'change', quotePath(write.path));
    for (const path of plan.removes) line('remove', quotePath(path));
    for (const dir of plan.removeDirs) line('remove', `directory ${quotePath(`${dir}/`)}`);
  }
  const added = plan.writes.filter((w) => w.created).length;
  const counts = `${added} ${added === 1 ? 'file' : 'files'} ${dryRun ? 'would be ' : ''}added, ${plan.writes.length - added} changed, ${plan.removes.length} removed`;
  report.say(dryRun ? `dry run: ${counts}; nothing was written` : counts);
}

const PAST: Record<string, string> = { add: 'added', change: 'changed', remove: 'removed' };

/** What became of the package. */
type Fate = 'failed' | 'unchanged' | 'written';

/** Prints the outcome; what became of the package. */
function printOutcome(report: Report, outcome: UpdateOutcome, args: UpdateArguments): Fate {
  const dryRun = args.dryRun === true || args.diff === true;
  // With --diff, stdout holds the diff alone: the results go to stderr.
  for (const result of outcome.results) report.line(args.diff ? 2 : 1, formatResult(result));
  if (!outcome.plan) {
    report.say('nothing was written');
    return 'failed';
  }
  if (outcome.upToDate) {
    const pkg = (args.package ?? '.').split('@')[0] || '.';
    report.say(`${pkg} is already at ${outcome.upToDate.ref} (commit ${outcome.upToDate.commit.slice(0, 12)}): nothing changed`);
    return 'unchanged';
  }
  printPlan(report, outcome.plan, dryRun, args.diff === true);
  return dryRun || planIsEmpty(outcome.plan) ? 'unchanged' : 'written';
}

function update(args: UpdateArguments, report: Report): UpdateOutcome | Promise<UpdateOutcome> {
  const common = {
    ...(args.strategy ? { strategy: args.strategy as MergeStrategy } : {}),
    ...(args.conflicts ? { conflicts: args.conflicts as 'upstream-wins' | 'error' } : {}),
    ...(args.dryRun || args.diff ? { dryRun: true } : {}),
    notify: report.say,
  };
  if (isGitMode(args)) {
    const [pkg, ref] = (args.package ?? '.').split('@') as [string, string | undefined];
    const timeouts = gitTimeouts(args, process.env) as GitTimeouts;
    return updateFromGit({
      pkg: pkg || '.',
      ...(ref ? { ref } : {}),
      ...common,
      timeouts,
      ...(args.allowDirty ? { allowDirty: true } : {}),
      ...(args.allowLocalUpstreams ? { allowLocalUpstreams: true } : {}),
    });
  }
  return updateFromDirectories({
    local: args.package!,
    origin: args.origin!,
    upstream: args.upstream!,
    ...common,
    ...(args.upstreamRef ? { upstreamRef: args.upstreamRef } : {}),
    ...(args.upstreamCommit ? { upstreamCommit: args.upstreamCommit } : {}),
  });
}

/** The exit code when the package was written but the report could not be, in full. */
export const EXIT_UPDATED_UNREPORTED = 3;

/**
 * Runs a checked update; the exit code: 0 done and reported (or nothing to do), 1 failed (the
 * message says in which state the package is), 3 the package was updated but what the update
 * printed is incomplete (stdout or stderr could not be written).
 */
export async function runUpdateCommand(args: UpdateArguments): Promise<number> {
  const report = new Report('package-variant update');
  let fate: Fate;
  try {
    fate = printOutcome(report, await update(args, report), args);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // These say themselves in which state the package is.
    if (error instanceof WriteError || error instanceof RecoveryError) {
      report.say(message);
    } else if (error instanceof PackageReadError || error instanceof UpdateError || error instanceof LockError) {
      report.say(message);
      report.say('nothing was written');
    } else {
      if (process.env.PACKAGE_VARIANT_DEBUG && error instanceof Error && error.stack) report.text(2, `${error.stack}\n`);
      report.say(`internal error: ${message} (set PACKAGE_VARIANT_DEBUG=1 for details)`);
    }
    return 1;
  }
  if (report.failed.size === 0) return fate === 'failed' ? 1 : 0;
  const stdout = report.failed.get(1);
  // stdout's failure is said on stderr; stderr's, only by the exit code.
  if (stdout) report.say(`could not write to stdout (${stdout}): the report is incomplete; ${fate === 'written' ? 'the package was updated' : 'nothing was written'}`);
  return fate === 'written' ? EXIT_UPDATED_UNREPORTED : 1;
}
