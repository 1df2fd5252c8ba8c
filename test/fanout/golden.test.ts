/**
 * Golden fan-outs: test/golden/fanout/<case>/input.yaml (a ResourceList with a PackageVariantSet
 * functionConfig) must produce expected.yaml byte for byte, and running again over that output
 * must change nothing. Each case's README.md says what it shows and where it comes from (most
 * reuse the design document's tables).
 */
import { join } from 'node:path';
import { goldenCases, runGolden, withoutResults } from '../golden/golden-runner';
import { REPO_ROOT } from '../helpers';

const DIR = join(REPO_ROOT, 'test', 'golden', 'fanout');
const cases = goldenCases(DIR);

describe('golden fan-outs', () => {
  it('has cases', () => expect(cases.length).toBeGreaterThanOrEqual(8));

  it.each(cases)('%s', (name) => {
    const { first, second } = runGolden(DIR, name);
    expect(first.results.filter((r) => r.severity === 'error')).toEqual([]);
    expect(first.exitCode).toBe(0);
    expect(second.exitCode).toBe(0);
    expect(withoutResults(second.output)).toBe(withoutResults(first.output));
    const summary = second.results.find((r) => r.severity === 'info');
    expect(summary?.tags).toMatchObject({ created: '0', changed: '0', removed: '0' });
  });
});
