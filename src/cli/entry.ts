/**
 * The process entry. A run that asks for nothing (see krm/no-op-scan.ts) answers from here; the
 * update command loads its own bundle (dist/update.js); anything else loads the function bundle, so a
 * no-op start-up never pays for YAML, schemas or merge, and an update never for the function's
 * schemas, CEL and sync.
 */
import { isPlainNoOp } from '../krm/no-op-scan';
import { exitOnWriteError, readStdin, writeAll, type FunctionInput } from './stdio';

type Main = typeof import('./main').main;
type RunUpdate = typeof import('./update-line').runUpdate;

/**
 * stdin's text for the function, or undefined once a run that asks for nothing has been answered
 * with its bytes. The bytes are not kept beyond this call: a large input is then held once, as text.
 */
function functionInput(): FunctionInput | undefined {
  const input = readStdin();
  if (!('text' in input)) return input;
  if (!isPlainNoOp(input.text)) return { text: input.text };
  writeAll(1, input.bytes);
  return undefined;
}

function run(args: readonly string[]): number | Promise<number> {
  const input = args.length === 0 ? functionInput() : { text: '' };
  if (input === undefined) return 0;
  // Bundled separately (scripts/build.mjs) and loaded with its code cache; the loader (and the
  // modules it needs) only now, where there is work: a run that asks for nothing never loads them.
  const { loadBundle } = require('./bundle-loader') as typeof import('./bundle-loader');
  if (args[0] === 'update') return (loadBundle(`${__dirname}/update.js`) as { runUpdate: RunUpdate }).runUpdate(args.slice(1));
  const { main } = loadBundle(`${__dirname}/function.js`) as { main: Main };
  return main(args, () => input);
}

try {
  const code = run(process.argv.slice(2));
  // The update command waits for git; the function answers at once.
  if (typeof code === 'number') process.exitCode = code;
  else
    code.then(
      (exit) => (process.exitCode = exit),
      (error: unknown) => (process.exitCode = exitOnWriteError(error)),
    );
} catch (error) {
  process.exitCode = exitOnWriteError(error);
}
