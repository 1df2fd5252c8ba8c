/**
 * Golden packages for the whole PackageVariant flow (items and results). A case that succeeds must
 * also be idempotent: its output, run again, gives the same items; a failing case leaves its input.
 */
import { goldenCases, runGolden, withoutResults } from '../golden-runner';

const cases = goldenCases(__dirname);

describe('PackageVariant golden packages', () => {
  it('has cases', () => expect(cases.length).toBeGreaterThanOrEqual(4));

  it.each(cases)('%s', (name) => {
    const { input, first, second } = runGolden(__dirname, name);
    const failed = first.results.some((r) => r.severity === 'error');
    expect(first.exitCode).toBe(failed ? 1 : 0);
    if (failed) {
      expect(withoutResults(first.output)).toBe(input);
      return;
    }
    expect(second.exitCode).toBe(0);
    expect(withoutResults(second.output)).toBe(withoutResults(first.output));
  });
});
