import { BlockWriter, readStdin, writeAll, type FunctionInput } from './stdio';
import { packageVariantFunction } from '../function';
import { failureResourceList } from '../krm/resource-list';
import { errorResult } from '../krm/results';
import { streamKrmFunction } from '../krm/run';
import { runUpdate } from './update-line';
import { isHelp, usageError } from './usage-error';
import { checkSyncArguments, runSyncCommand, type SyncArguments } from './sync';
import { checkRpkgArguments, runRpkgCommand, type RpkgArguments } from './rpkg';
import { RPKG_USAGE, SYNC_USAGE, USAGE, VERSION } from './usage';

const SYNC_FLAGS: Record<string, 'lifecycle' | 'imagePullPolicy' | 'gitTimeout' | 'gitStallTimeout' | 'statusOut' | 'shard'> = {
  '--lifecycle': 'lifecycle',
  '--shard': 'shard',
  '--status-out': 'statusOut',
  '--image-pull-policy': 'imagePullPolicy',
  '--git-timeout': 'gitTimeout',
  '--git-stall-timeout': 'gitStallTimeout',
};

const SYNC_SWITCHES: Record<string, 'dryRun' | 'diff' | 'noRender' | 'allowExec' | 'allowDelete' | 'approveDeletions' | 'adoptNow' | 'recheck'> = {
  '--dry-run': 'dryRun',
  '--diff': 'diff',
  '--no-render': 'noRender',
  '--allow-exec': 'allowExec',
  '--allow-delete': 'allowDelete',
  '--approve-deletions': 'approveDeletions',
  '--adopt-now': 'adoptNow',
  '--recheck': 'recheck',
};

function runSync(args: readonly string[]): number | Promise<number> {
  const options: SyncArguments = { paths: [] };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    const [flag, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    const key = SYNC_FLAGS[flag];
    const switched = SYNC_SWITCHES[arg];
    if (isHelp(arg)) {
      writeAll(1, SYNC_USAGE);
      return 0;
    } else if (switched) {
      options[switched] = true;
    } else if (key) {
      const value = inline ?? args[(i += 1)];
      if (value === undefined) return usageError(`${flag} needs a value`, 'sync');
      options[key] = value;
    } else if (flag === '--only') {
      const value = inline ?? args[(i += 1)];
      if (value === undefined) return usageError('--only needs a value', 'sync');
      (options.only ??= []).push(value);
    } else if (arg === '--') {
      options.paths.push(...args.slice(i + 1));
      break;
    } else if (!arg.startsWith('-')) {
      options.paths.push(arg);
    } else {
      return usageError(`unknown flag ${arg}`, 'sync');
    }
  }
  const problem = checkSyncArguments(options);
  if (problem) return usageError(problem, 'sync');
  return runSyncCommand(options);
}

function runRpkg(args: readonly string[]): number | Promise<number> {
  const options: RpkgArguments = { verb: '', names: [], paths: [] };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    const [flag, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    if (isHelp(arg)) {
      writeAll(1, RPKG_USAGE);
      return 0;
    } else if (arg === '--all' || arg === '--dry-run' || arg === '--diff') {
      options[arg === '--all' ? 'all' : arg === '--dry-run' ? 'dryRun' : 'diff'] = true;
    } else if (flag === '-f' || flag === '--filename' || flag === '--git-timeout' || flag === '--git-stall-timeout') {
      const value = inline ?? args[(i += 1)];
      if (value === undefined) return usageError(`${flag} needs a value`, 'rpkg');
      if (flag === '-f' || flag === '--filename') options.paths.push(value);
      else options[flag === '--git-timeout' ? 'gitTimeout' : 'gitStallTimeout'] = value;
    } else if (arg.startsWith('-')) {
      return usageError(`unknown flag ${arg}`, 'rpkg');
    } else if (options.verb === '') {
      options.verb = arg;
    } else {
      options.names.push(arg);
    }
  }
  const problem = checkRpkgArguments(options);
  if (problem) return usageError(problem, 'rpkg');
  return runRpkgCommand(options);
}

/** Runs the command line; `stdin` is the input already read (the entry point reads it first). */
export function main(argv: readonly string[], stdin: () => FunctionInput = readStdin): number | Promise<number> {
  const [first] = argv;
  if (first === 'update') return runUpdate(argv.slice(1));
  if (first === 'sync') return runSync(argv.slice(1));
  if (first === 'rpkg') return runRpkg(argv.slice(1));
  if (first === 'help' && argv[1] === 'update') return runUpdate(['--help']);
  if (first === 'help' && argv[1] === 'sync') return runSync(['--help']);
  if (first === 'help' && argv[1] === 'rpkg') return runRpkg(['--help']);
  if (first === 'help' || (first !== undefined && isHelp(first))) {
    writeAll(1, USAGE);
    return 0;
  }
  if (first === '--version' || first === '-v') {
    writeAll(1, `${VERSION}\n`);
    return 0;
  }
  if (first !== undefined) return usageError(first.startsWith('-') ? `unknown flag ${first}` : `unknown command "${first}"`);
  const input = stdin();
  if ('error' in input) {
    // kpt shows a failed function's stderr; the ResourceList carries the same message as a result.
    writeAll(2, `package-variant: ${input.error}\n`);
    writeAll(1, failureResourceList([errorResult(input.error)]));
    return 1;
  }
  const out = new BlockWriter(1);
  const exitCode = streamKrmFunction(input.text, packageVariantFunction, (piece) => out.write(piece));
  out.flush();
  return exitCode;
}

