/** The examples/ cases as jest tests, one a case, for either runner (examples.test.ts, image.test.ts). */
import { basename, join } from 'node:path';
import { exampleCases, HARNESS_REPO_ROOT, missingDistMessage, runExampleCase, UPDATE_EXPECTED, type FunctionRunner } from './kpt-harness';

export function describeExampleCases(describeOrSkip: jest.Describe, title: string, runner: FunctionRunner): void {
  const cases = exampleCases(join(HARNESS_REPO_ROOT, 'examples'));
  // Both runners compare with the same expected files; only the exec runner rewrites them, so two
  // suites never write them at once.
  const update = UPDATE_EXPECTED && runner.kind === 'exec';

  describeOrSkip(title, () => {
    beforeAll(() => {
      const missing = missingDistMessage();
      if (missing) throw new Error(missing);
    });

    it('has example cases', () => {
      expect(cases.length).toBeGreaterThan(0);
    });

    // it.each refuses an empty table; 'has example cases' reports that case instead.
    const table = cases.map((dir) => [basename(dir), dir]);
    if (table.length === 0) return;

    it.each(table)(
      '%s',
      async (_name, dir) => {
        const report = await runExampleCase(dir, { runner, update });
        if (update && report.updated.length) {
          process.stderr.write(`${report.name}: rewrote ${report.updated.join(', ')}; review them before keeping them\n`);
        }
        expect(report.problems.join('\n\n')).toBe('');
        expect(report.runs).toHaveLength(2);
      },
      120_000,
    );
  });
}
