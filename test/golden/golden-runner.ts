/**
 * Golden packages: each `<dir>/<case>/input.yaml` ResourceList runs through the function and must
 * give `<case>/expected.yaml` byte for byte. UPDATE_GOLDEN=1 rewrites the expected files; review
 * every one before keeping it.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runFunction } from '../helpers';

export function goldenCases(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'input.yaml')))
    .map((entry) => entry.name)
    .sort();
}

/** The output as the next run's input: kpt does not send a previous run's results back. */
export function withoutResults(output: string): string {
  const at = output.search(/^results:/m);
  return at === -1 ? output : output.slice(0, at);
}

/** Runs a case, checks it against expected.yaml, and runs its output again. */
export function runGolden(dir: string, name: string) {
  const input = readFileSync(join(dir, name, 'input.yaml'), 'utf8');
  const expectedFile = join(dir, name, 'expected.yaml');
  const first = runFunction(input);
  if (process.env.UPDATE_GOLDEN === '1') writeFileSync(expectedFile, first.output);
  expect(first.output).toBe(readFileSync(expectedFile, 'utf8'));
  return { input, first, second: runFunction(withoutResults(first.output)) };
}
