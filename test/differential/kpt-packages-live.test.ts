/**
 * A live sample of the package differential: a recorded case with an independent subpackage, non-KRM
 * files and subpackages, run again through the real kpt by scripts/gen-package-fixtures.mjs, which must give
 * exactly the recorded package before and after the update. This proves the fixtures are current
 * (regenerate them with `node scripts/gen-package-fixtures.mjs`). Skipped, with one line saying so,
 * when kpt is not on PATH.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers';
import { loadPackageFixtures, type PackageFixture } from './package-fixtures';
import { describeUnless, kptAbsent } from '../skip-notice';

const describeIfKpt = describeUnless(kptAbsent(), 'the live package differential sample (test/differential/kpt-packages-live.test.ts)');

const fixtures = loadPackageFixtures();
const picked = [fixtures.find((f) => f.family === 'independent' && f.strategy === 'resource-merge' && Object.keys(f.local.files).some((p) => !/(^|\/)Kptfile$|\.ya?ml$/.test(p)))].filter(
  (f): f is PackageFixture => f !== undefined,
);

/** The recorded case's inputs, as the generator made them: what the oracle starts from. */
const GENERATOR = join(REPO_ROOT, 'scripts', 'gen-package-fixtures.mjs');

describeIfKpt('live kpt pkg update matches the recorded package fixtures', () => {
  it('samples an independent-subpackage case with non-KRM files', () => expect(picked.map((f) => f.family)).toEqual(['independent']));

  it.each(picked.map((f) => [f.file, f] as const))(
    '%s',
    (_name, f) => {
      const out = mkdtempSync(join(tmpdir(), 'pv-pkg-live-'));
      try {
        const run = spawnSync(process.execPath, [GENERATOR, '--only', String(f.case), '--out', out, '--jobs', '1'], { encoding: 'utf8', timeout: 120_000 });
        expect(run.stderr.replace(/^ {2}\d+\/\d+ cases\n/gm, '')).toBe('');
        expect(run.status).toBe(0);
        const [live] = loadPackageFixtures(out);
        expect(live).toEqual(f);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
