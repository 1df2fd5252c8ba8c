/**
 * The process entry. A run that asks for nothing (see krm/no-op-scan.ts) answers from here; anything
 * else loads the full function bundle, so a no-op start-up never pays for YAML, schemas or merge.
 */
import { isPlainNoOp } from '../krm/no-op-scan';
import { exitOnWriteError, readStdin, writeAll, type StdinInput } from './stdio';

type Main = typeof import('./main').main;

function run(args: readonly string[]): number {
  const input: StdinInput = args.length === 0 ? readStdin() : { text: '', bytes: new Uint8Array() };
  if (args.length === 0 && 'text' in input && isPlainNoOp(input.text)) {
    writeAll(1, input.bytes);
    return 0;
  }
  // Bundled separately (scripts/build.mjs); a plain require keeps it out of this small file.
  const { main } = require('./function.js') as { main: Main };
  return main(args, () => input);
}

try {
  process.exitCode = run(process.argv.slice(2));
} catch (error) {
  process.exitCode = exitOnWriteError(error);
}
