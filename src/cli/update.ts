/**
 * `package-variant update`: arguments in, the update (src/pkg) run, its results and plan printed.
 */
import type { MergeStrategy } from '../config/function-config';
import { PackageReadError } from '../pkg/disk-tree';
import { updateFromDirectories, type UpdateOutcome } from '../pkg/update';
import { formatResult } from './results-text';
import { writeAll } from './stdio';

export interface UpdateArguments {
  local?: string;
  origin?: string;
  upstream?: string;
  strategy?: string;
  conflicts?: string;
  upstreamRef?: string;
  upstreamCommit?: string;
}

const STRATEGIES: readonly string[] = ['resource-merge', 'fast-forward', 'force-delete-replace'];
const CONFLICTS: readonly string[] = ['upstream-wins', 'error'];

/** A usage problem in the arguments, or undefined. */
export function checkUpdateArguments(args: UpdateArguments): string | undefined {
  if (!args.local || !args.origin || !args.upstream) return 'update needs LOCAL_DIR, --origin DIR and --upstream DIR';
  if (args.strategy !== undefined && !STRATEGIES.includes(args.strategy)) return `--strategy must be one of ${STRATEGIES.join(', ')}, not "${args.strategy}"`;
  if (args.conflicts !== undefined && !CONFLICTS.includes(args.conflicts)) return `--conflicts must be one of ${CONFLICTS.join(', ')}, not "${args.conflicts}"`;
  return undefined;
}

function printOutcome(outcome: UpdateOutcome): number {
  for (const result of outcome.results) writeAll(1, `${formatResult(result)}\n`);
  if (!outcome.plan) {
    writeAll(2, 'package-variant update: nothing was written\n');
    return 1;
  }
  for (const write of outcome.plan.writes) writeAll(1, `updated ${write.path}\n`);
  for (const path of outcome.plan.removes) writeAll(1, `removed ${path}\n`);
  return 0;
}

/** Runs a checked update; the exit code. */
export function runUpdateCommand(args: UpdateArguments): number {
  let outcome: UpdateOutcome;
  try {
    outcome = updateFromDirectories({
      local: args.local!,
      origin: args.origin!,
      upstream: args.upstream!,
      ...(args.strategy ? { strategy: args.strategy as MergeStrategy } : {}),
      ...(args.conflicts ? { conflicts: args.conflicts as 'upstream-wins' | 'error' } : {}),
      ...(args.upstreamRef ? { upstreamRef: args.upstreamRef } : {}),
      ...(args.upstreamCommit ? { upstreamCommit: args.upstreamCommit } : {}),
    });
  } catch (error) {
    if (!(error instanceof PackageReadError)) throw error;
    writeAll(2, `package-variant update: ${error.message}\n`);
    return 1;
  }
  return printOutcome(outcome);
}
