import { BlockWriter, readStdin, writeAll, type FunctionInput } from './stdio';
import { packageVariantFunction } from '../function';
import { failureResourceList } from '../krm/resource-list';
import { errorResult } from '../krm/results';
import { streamKrmFunction } from '../krm/run';
import { formatResult } from './results-text';
import { updatePackage, type UpdateOptions } from './update';
import { USAGE, VERSION } from './usage';


function usageError(message: string): number {
  writeAll(2, `package-variant: ${message}\n\n${USAGE}`);
  return 2;
}

const UPDATE_FLAGS: Record<string, keyof UpdateOptions> = {
  '--origin': 'origin',
  '--upstream': 'upstream',
  '--strategy': 'strategy',
  '--conflicts': 'conflicts',
  '--upstream-ref': 'upstreamRef',
  '--upstream-commit': 'upstreamCommit',
};

function runUpdate(args: readonly string[]): number {
  const options: Partial<UpdateOptions> = {};
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    const [flag, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    const key = UPDATE_FLAGS[flag];
    if (key) {
      const value = inline ?? args[(i += 1)];
      if (value === undefined) return usageError(`${flag} needs a value`);
      options[key] = value;
    } else if (!arg.startsWith('-') && options.local === undefined) {
      options.local = arg;
    } else {
      return usageError(`unknown argument "${arg}" for update`);
    }
  }
  if (!options.local || !options.origin || !options.upstream) return usageError('update needs LOCAL_DIR, --origin DIR and --upstream DIR');
  let outcome;
  try {
    outcome = updatePackage(options as UpdateOptions);
  } catch (error) {
    writeAll(2, `package-variant update: ${(error as Error).message}\n`);
    return 1;
  }
  for (const result of outcome.results) writeAll(1, `${formatResult(result)}\n`);
  if (outcome.results.some((r) => r.severity === 'error')) {
    writeAll(2, 'package-variant update: nothing was written\n');
    return 1;
  }
  for (const path of outcome.written) writeAll(1, `updated ${path}\n`);
  for (const path of outcome.removed) writeAll(1, `removed ${path}\n`);
  return 0;
}

/** Runs the command line; `stdin` is the input already read (the entry point reads it first). */
export function main(argv: readonly string[], stdin: () => FunctionInput = readStdin): number {
  const [first] = argv;
  if (first === 'update') return runUpdate(argv.slice(1));
  if (first === '--help' || first === '-h' || first === 'help') {
    writeAll(1, USAGE);
    return 0;
  }
  if (first === '--version' || first === '-v') {
    writeAll(1, `${VERSION}\n`);
    return 0;
  }
  if (first !== undefined) return usageError(`unknown argument "${first}"`);
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

