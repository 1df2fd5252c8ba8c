/**
 * Golden packages for the whole PackageVariant flow: each `<case>/input.yaml` ResourceList runs
 * through the function and must give `<case>/expected.yaml` exactly (items and results). A case
 * that succeeds must also be idempotent: its output, run again, gives the same items.
 * UPDATE_GOLDEN=1 rewrites the expected files; review every one before keeping it.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { runFunction } from '../../helpers';

const DIR = __dirname;
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const cases = readdirSync(DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(DIR, entry.name, 'input.yaml')))
  .map((entry) => entry.name)
  .sort();

/** The output without its results, which a second run would add to. */
const withoutResults = (output: string) => output.slice(0, output.search(/^results:/m) === -1 ? output.length : output.search(/^results:/m));

describe('PackageVariant golden packages', () => {
  it('has cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(4);
  });

  it.each(cases)('%s', (name) => {
    const input = readFileSync(join(DIR, name, 'input.yaml'), 'utf8');
    const expectedFile = join(DIR, name, 'expected.yaml');
    const { output, exitCode } = runFunction(input);
    if (UPDATE) writeFileSync(expectedFile, output);
    expect(output).toBe(readFileSync(expectedFile, 'utf8'));
    const failed = ((parse(output) as { results?: { severity: string }[] }).results ?? []).some((r) => r.severity === 'error');
    expect(exitCode).toBe(failed ? 1 : 0);
    if (failed) {
      expect(withoutResults(output)).toBe(input);
      return;
    }
    const again = runFunction(withoutResults(output));
    expect(again.exitCode).toBe(0);
    expect(withoutResults(again.output)).toBe(withoutResults(output));
  });
});
