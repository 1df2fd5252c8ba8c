/**
 * A live sample of the real-history corpus: three recorded cases recorded again by the generator,
 * through the real kpt and the mirrors, must give byte for byte the committed fixtures. This proves
 * them current (regenerate with `node scripts/gen-real-history-fixtures.mjs`). Skipped, with one
 * line saying why, where kpt or a mirror is missing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIRROR_HINT } from '../../scripts/lib/git-trees.cjs';
import { absentMirrors, FIXTURE_DIR, GENERATOR, loadCases, MIRRORS, type RealHistoryCase } from './corpus';
import { describeUnless, kptAbsent } from '../skip-notice';

/**
 * A fixed, varied sample: a composite blueprint kpt updated, a Nephio package whose version
 * changed, and a case kpt refused.
 */
function sample(cases: RealHistoryCase[]): RealHistoryCase[] {
  const nested = (c: RealHistoryCase) => /\/Kptfile$/m.test(c.kpt.files);
  const picks = [
    cases.find((c) => c.id.startsWith('blueprints--') && c.kpt.exitCode === 0 && nested(c) && !c.independent),
    cases.find((c) => c.id.startsWith('catalog--') && c.kpt.exitCode === 0 && c.from.tree !== c.to.tree && !c.independent),
    cases.find((c) => c.kpt.exitCode !== 0 && !c.independent),
  ];
  return picks.filter((c): c is RealHistoryCase => c !== undefined);
}

const cases = loadCases();
const picked = sample(cases);
// The generator plans the whole corpus before it records a case, so it needs every mirror.
const absent = absentMirrors(cases);
const describeIfLive = describeUnless(
  kptAbsent() ?? (absent.length ? `mirrors ${absent.join(', ')} are not under ${MIRRORS} (${MIRROR_HINT})` : undefined),
  'the live real-history sample (test/real-history/live-sample.test.ts)',
);

describeIfLive('live kpt pkg update matches the recorded real-history fixtures', () => {
  it('samples a composite package, a changed Nephio package and a refusal', () => expect(picked).toHaveLength(3));

  it(
    'records the sampled cases again, byte for byte',
    () => {
      const out = mkdtempSync(join(tmpdir(), 'pv-real-history-live-'));
      try {
        const run = spawnSync('node', [GENERATOR, '--only', picked.map((c) => c.id).join(','), '--out', out, '--jobs', '2'], { encoding: 'utf8', timeout: 55_000 });
        expect({ status: run.status, stderr: run.status === 0 ? '' : run.stderr }).toEqual({ status: 0, stderr: '' });
        for (const c of picked) {
          const file = join('cases', `${c.id}.yaml`);
          expect(readFileSync(join(out, file), 'utf8')).toBe(readFileSync(join(FIXTURE_DIR, file), 'utf8'));
          for (const residue of [c.from.residue, c.to.residue].filter((r): r is string => r !== undefined)) {
            expect(existsSync(join(out, residue)) && readFileSync(join(out, residue), 'utf8')).toBe(readFileSync(join(FIXTURE_DIR, residue), 'utf8'));
          }
        }
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
