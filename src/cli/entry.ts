/**
 * The process entry. A run that asks for nothing (see krm/no-op-scan.ts) answers from here; anything
 * else loads the full function bundle, so a no-op start-up never pays for YAML, schemas or merge.
 */
import { isPlainNoOp } from '../krm/no-op-scan';
import { decodeUtf8 } from '../krm/utf8';
import { readStdin, writeAll } from './stdio';

type Main = typeof import('./main').main;

const args = process.argv.slice(2);
const bytes = args.length === 0 ? readStdin() : undefined;
const input = bytes ? decodeUtf8(bytes) : '';
if (bytes && isPlainNoOp(input)) {
  writeAll(1, bytes);
} else {
  // Bundled separately (scripts/build.mjs); a plain require keeps it out of this small file.
  const { main } = require('./function.js') as { main: Main };
  process.exitCode = main(args, () => input);
}
