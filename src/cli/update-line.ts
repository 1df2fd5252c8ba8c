/**
 * The update command's command line. Bundled on its own as dist/update.js (scripts/build.mjs), which
 * the entry loads for `update`: an update's process then reads, compiles and starts only the code an
 * update runs, a third of the function bundle.
 */
import { writeAll } from './stdio';
import { checkUpdateArguments, runUpdateCommand, type UpdateArguments } from './update';
import { UPDATE_USAGE } from './usage';
import { isHelp, usageError } from './usage-error';

const UPDATE_FLAGS: Record<string, 'origin' | 'upstream' | 'strategy' | 'conflicts' | 'upstreamRef' | 'upstreamCommit' | 'gitTimeout' | 'gitStallTimeout'> = {
  '--origin': 'origin',
  '--upstream': 'upstream',
  '--strategy': 'strategy',
  '--conflicts': 'conflicts',
  '--upstream-ref': 'upstreamRef',
  '--upstream-commit': 'upstreamCommit',
  '--git-timeout': 'gitTimeout',
  '--git-stall-timeout': 'gitStallTimeout',
};

export function runUpdate(args: readonly string[]): number | Promise<number> {
  const options: UpdateArguments = {};
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    const [flag, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    const key = UPDATE_FLAGS[flag];
    if (isHelp(arg)) {
      writeAll(1, UPDATE_USAGE);
      return 0;
    } else if (arg === '--allow-dirty') {
      options.allowDirty = true;
    } else if (arg === '--allow-local-upstreams') {
      options.allowLocalUpstreams = true;
    } else if (arg === '--dry-run') {
      options.dryRun = true;
    } else if (arg === '--diff') {
      options.diff = true;
    } else if (key) {
      const value = inline ?? args[(i += 1)];
      if (value === undefined) return usageError(`${flag} needs a value`, 'update');
      options[key] = value;
    } else if (!arg.startsWith('-') && options.package === undefined) {
      options.package = arg;
    } else {
      return usageError(arg.startsWith('-') ? `unknown flag ${arg}` : `one package at a time: "${options.package}", then "${arg}"`, 'update');
    }
  }
  const problem = checkUpdateArguments(options);
  if (problem) return usageError(problem, 'update');
  return runUpdateCommand(options);
}
