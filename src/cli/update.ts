/**
 * `package-variant update`: arguments in, the update (src/pkg) run, its results and plan printed.
 * Git mode (`PKG[@REF]`, as `kpt pkg update`) reads the upstream the Kptfile records; directory
 * mode (`LOCAL --origin DIR --upstream DIR`) is given both versions.
 */
import type { MergeStrategy } from '../config/function-config';
import { PackageReadError } from '../pkg/disk-tree';
import { UpdateError, updateFromGit } from '../pkg/git-update';
import { updateFromDirectories, type UpdateOutcome } from '../pkg/update';
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

function update(args: UpdateArguments): UpdateOutcome {
  const common = {
    ...(args.strategy ? { strategy: args.strategy as MergeStrategy } : {}),
    ...(args.conflicts ? { conflicts: args.conflicts as 'upstream-wins' | 'error' } : {}),
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
    const known = error instanceof PackageReadError || error instanceof UpdateError;
    const message = error instanceof Error ? error.message : String(error);
    if (!known && process.env.PACKAGE_VARIANT_DEBUG && error instanceof Error && error.stack) writeAll(2, `${error.stack}\n`);
    writeAll(2, known ? `package-variant update: ${message}\npackage-variant update: nothing was written\n` : `package-variant update: internal error: ${message} (set PACKAGE_VARIANT_DEBUG=1 for details)\n`);
    return 1;
  }
  return printOutcome(outcome);
}
