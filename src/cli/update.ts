/**
 * `package-variant update`: arguments in, the update (src/update) run, its results and plan printed.
 * Git mode (`PKG[@REF]`, as `kpt pkg update`) reads the upstream the Kptfile records; directory
 * mode (`LOCAL --origin DIR --upstream DIR`) is given both versions.
 */
import type { MergeStrategy } from '../config/function-config';
import { PackageReadError } from '../disk/disk-tree';
import { UpdateError, updateFromGit } from '../update/git-update';
import type { UpdatePlan } from '../disk/plan';
import { planDiff } from '../disk/plan-diff';
import { WriteError } from '../disk/plan-writer';
import { LockError } from '../disk/safe-write/lock';
import { RecoveryError } from '../disk/safe-write/recovery';
import { updateFromDirectories } from '../update/update';
import type { UpdateOutcome } from '../update/locked-update';
import { formatResult } from './results-text';
import { writeAll } from './stdio';

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
    return undefined;
  }
  if (!args.package || !args.origin || !args.upstream) return 'update needs LOCAL_DIR, --origin DIR and --upstream DIR (or PKG[@REF] alone, for the git upstream its Kptfile records)';
  if (args.package.includes('@')) return `with --origin and --upstream, LOCAL_DIR is a directory: "${args.package}" names a version; use --upstream-ref`;
  if (args.allowDirty) return '--allow-dirty goes with git mode (PKG[@REF])';
  return undefined;
}

const say = (line: string) => writeAll(2, `package-variant update: ${line}\n`);

/**
 * What the plan does, one line each, in one vocabulary for a run and its dry run (added, changed,
 * removed); a dry run says "would". With --diff, the diff alone on stdout. A count on stderr.
 */
function printPlan(plan: UpdatePlan, dryRun: boolean, diff: boolean): void {
  if (diff) {
    writeAll(1, planDiff(plan));
  } else {
    const line = (verb: string, what: string) => writeAll(1, `${dryRun ? `would ${verb}` : PAST[verb]} ${what}\n`);
    for (const dir of plan.createDirs) line('add', `directory ${dir}/`);
    for (const write of plan.writes) line(write.created ? 'add' : 'change', write.path);
    for (const path of plan.removes) line('remove', path);
    for (const dir of plan.removeDirs) line('remove', `directory ${dir}/`);
  }
  const added = plan.writes.filter((w) => w.created).length;
  const counts = `${added} ${added === 1 ? 'file' : 'files'} ${dryRun ? 'would be ' : ''}added, ${plan.writes.length - added} changed, ${plan.removes.length} removed`;
  say(dryRun ? `dry run: ${counts}; nothing was written` : counts);
}

const PAST: Record<string, string> = { add: 'added', change: 'changed', remove: 'removed' };

function printOutcome(outcome: UpdateOutcome, args: UpdateArguments): number {
  const dryRun = args.dryRun === true || args.diff === true;
  // With --diff, stdout holds the diff alone: the results go to stderr.
  for (const result of outcome.results) writeAll(args.diff ? 2 : 1, `${formatResult(result)}\n`);
  if (!outcome.plan) {
    say('nothing was written');
    return 1;
  }
  if (outcome.upToDate) {
    const pkg = (args.package ?? '.').split('@')[0] || '.';
    say(`${pkg} is already at ${outcome.upToDate.ref} (commit ${outcome.upToDate.commit.slice(0, 12)}): nothing changed`);
    return 0;
  }
  printPlan(outcome.plan, dryRun, args.diff === true);
  return 0;
}

function update(args: UpdateArguments): UpdateOutcome {
  const common = {
    ...(args.strategy ? { strategy: args.strategy as MergeStrategy } : {}),
    ...(args.conflicts ? { conflicts: args.conflicts as 'upstream-wins' | 'error' } : {}),
    ...(args.dryRun || args.diff ? { dryRun: true } : {}),
    notify: say,
  };
  if (isGitMode(args)) {
    const [pkg, ref] = (args.package ?? '.').split('@') as [string, string | undefined];
    return updateFromGit({ pkg: pkg || '.', ...(ref ? { ref } : {}), ...common, ...(args.allowDirty ? { allowDirty: true } : {}) });
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

/** Runs a checked update; the exit code. */
export function runUpdateCommand(args: UpdateArguments): number {
  let outcome: UpdateOutcome;
  try {
    outcome = update(args);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // These say themselves in which state the package is.
    if (error instanceof WriteError || error instanceof RecoveryError) {
      for (const line of message.split('\n')) say(line);
      return 1;
    }
    if (error instanceof PackageReadError || error instanceof UpdateError || error instanceof LockError) {
      say(message);
      say('nothing was written');
      return 1;
    }
    if (process.env.PACKAGE_VARIANT_DEBUG && error instanceof Error && error.stack) writeAll(2, `${error.stack}\n`);
    say(`internal error: ${message} (set PACKAGE_VARIANT_DEBUG=1 for details)`);
    return 1;
  }
  return printOutcome(outcome, args);
}
