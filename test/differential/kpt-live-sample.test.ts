/**
 * A live sample of the differential suite: three recorded cases (one per strategy) run again through
 * the real kpt via scripts/kpt-oracle.sh, which must give exactly the recorded result. This proves the
 * fixtures are current (regenerate them with `node scripts/gen-differential-fixtures.mjs`). Skipped,
 * with one line saying so, when kpt is not on PATH.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kptErrorText, loadFixtures, ORACLE, readTree, writeTree, type Fixture } from './fixtures';
import { describeUnless, kptAbsent } from '../skip-notice';

const describeIfKpt = describeUnless(kptAbsent(), 'the live differential sample (test/differential/kpt-live-sample.test.ts)');

/** The first case of each strategy with the most resources among the first 40 cases: a fixed, varied sample. */
function sample(fixtures: Fixture[]): Fixture[] {
  const picks: Fixture[] = [];
  for (const strategy of ['resource-merge', 'fast-forward', 'force-delete-replace'] as const) {
    const ofStrategy = fixtures.filter((f) => f.strategy === strategy);
    const window = ofStrategy.slice(0, 40);
    const size = (f: Fixture) => Object.keys(f.origin).length + Object.keys(f.local).length;
    const best = window.reduce<Fixture | undefined>((a, f) => (!a || size(f) > size(a) ? f : a), undefined);
    if (best) picks.push(best);
  }
  return picks;
}

const picked = sample(loadFixtures());

describeIfKpt('live kpt pkg update matches the recorded differential fixtures', () => {
  it('samples one case per strategy', () => expect(picked.map((f) => f.strategy)).toEqual(['resource-merge', 'fast-forward', 'force-delete-replace']));

  it.each(picked.map((f) => [`${f.file} (${f.strategy})`, f] as const))(
    '%s',
    (_name, f) => {
      const dir = mkdtempSync(join(tmpdir(), 'kpt-live-sample-'));
      try {
        writeTree(join(dir, 'origin'), f.origin);
        writeTree(join(dir, 'upstream'), f.upstream);
        writeTree(join(dir, 'local'), f.local);
        const run = spawnSync('bash', [ORACLE, join(dir, 'origin'), join(dir, 'upstream'), join(dir, 'local'), join(dir, 'out'), f.strategy], {
          encoding: 'utf8',
          timeout: 60_000,
        });
        expect({ exitCode: run.status, stderr: run.status === 0 || run.status === 3 ? '' : run.stderr }).toEqual({ exitCode: f.kpt.exitCode, stderr: '' });
        if (f.kpt.exitCode === 0) expect(readTree(join(dir, 'out'))).toEqual(f.kpt.files);
        else expect(kptErrorText(run.stderr)).toBe(f.kpt.error);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
