/**
 * Real package history: upgrades between consecutive tagged versions of public kpt package catalogs
 * (GoogleCloudPlatform/blueprints, nephio-project/catalog), each fetched with `kpt pkg get`, edited
 * locally by a seeded recipe and updated by the real kpt (recorded by
 * scripts/gen-real-history-fixtures.mjs). Each case is rebuilt from the local mirrors, updated by
 * runOurs (git mode) and compared with kpt's output: equal, refused by both, or differing only by
 * README deviations whose documented result ours holds; and, where both made the upgrade, our
 * `git diff` of the package is no larger than kpt's (diff-lines.ts). A summary gives the figures.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manifest, MIRROR_HINT } from '../../scripts/lib/git-trees.cjs';
import { readmeDeviations } from '../differential/deviations';
import { compareCase, type CaseVerdict } from './compare-case';
import { diffSizes, LARGER_BY_DEVIATION } from './diff-lines';
import { absentMirrors, buildCaseDir, loadCases, MIRRORS, readTree, type RealHistoryCase } from './corpus';
import { runOurs } from './run-ours';
import { describeUnless } from '../skip-notice';

/** A composite package's case builds four trees from the mirrors and runs git mode: seconds on a busy machine, not jest's five. */
const CASE_TIMEOUT_MS = 60_000;
const cases = loadCases();
const absent = absentMirrors(cases);
const describeIfMirrors = describeUnless(
  absent.length ? `mirrors ${absent.join(', ')} are not under ${MIRRORS} (${MIRROR_HINT})` : undefined,
  'the real-history corpus (test/real-history/real-history.test.ts)',
);
const LISTED = new Set(readmeDeviations());
const verdicts = new Map<string, CaseVerdict>();
const sizes: { ours: number; kpt: number }[] = [];

function summary(all: [string, CaseVerdict][]): string {
  const count = (o: CaseVerdict['outcome']) => all.filter(([, v]) => v.outcome === o).length;
  const byDeviation = new Map<string, number>();
  for (const [, v] of all) for (const d of v.deviations) byDeviation.set(d, (byDeviation.get(d) ?? 0) + 1);
  const sources = new Map<string, number>();
  for (const [id] of all) sources.set(id.split('--')[0]!, (sources.get(id.split('--')[0]!) ?? 0) + 1);
  return [
    `real history vs kpt: ${all.length} cases (${[...sources].map(([s, n]) => `${n} ${s}`).join(', ')}): ${count('equal')} equal, ${count('both refused')} refused by both, ` +
      `${count('deviations')} differing only by listed deviations, ${count('differing')} differing`,
    ...[...byDeviation].sort((a, b) => b[1] - a[1]).map(([d, n]) => `  ${String(n).padStart(4)} cases: ${d}`),
  ].join('\n');
}

describe('real-history corpus', () => {
  it('holds at least 120 recorded upgrades from both catalogs', () => {
    expect(cases.length).toBeGreaterThanOrEqual(120);
    expect(new Set(cases.map((c) => c.id.split('--')[0]))).toEqual(new Set(['blueprints', 'catalog']));
  });

  it('lists as diffs larger than kpt\'s only upgrades of the corpus, each with a row of the README deviation table', () => {
    const ids = new Set(cases.map((c) => c.id));
    expect(Object.keys(LARGER_BY_DEVIATION).filter((id) => !ids.has(id))).toEqual([]);
    expect(Object.values(LARGER_BY_DEVIATION).filter((d) => !LISTED.has(d.deviation))).toEqual([]);
  });
});

describeIfMirrors('real history: our update against recorded `kpt pkg update` runs on real packages', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'pv-real-history-'));
  const cache = join(scratch, 'trees');

  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
    const all = [...verdicts];
    const total = (key: 'ours' | 'kpt') => sizes.reduce((sum, s) => sum + s[key], 0);
    console.log(`${summary(all)}\nreal history diff sizes: ${sizes.length} upgrades both made, ${total('ours')} lines ours, ${total('kpt')} kpt's`);
  });

  it.each(cases.map((c) => [c.id, c] as const))('%s', async (id, fixture: RealHistoryCase) => {
    const dir = buildCaseDir(fixture, join(scratch, id), cache);
    const kpt = readTree(dir.kpt);
    expect(manifest(kpt)).toBe(fixture.kpt.files);
    const trees = { origin: readTree(dir.origin), upstream: readTree(dir.upstream), local: readTree(dir.pkg), kpt };
    const before = join(dir.root, 'before');
    cpSync(dir.pkg, before, { recursive: true });
    const ours = await runOurs(dir);
    const verdict = compareCase({ ...trees, ours: readTree(dir.pkg) }, fixture.strategy, fixture.kpt, ours, LISTED);
    verdicts.set(id, verdict);
    // An upgrade either refuses is the comparison's to judge; the diff sizes are of those both made.
    const size = fixture.kpt.exitCode === 0 && ours.exitCode === 0 ? diffSizes(before, { pkg: dir.pkg, kpt: dir.kpt, upstream: dir.upstream }) : undefined;
    rmSync(dir.root, { recursive: true, force: true });

    if (verdict.problems.length) {
      throw new Error(
        `${id}: differs from kpt:\n\n${verdict.problems.map((p) => `  - ${p.replace(/\n/g, '\n    ')}`).join('\n')}` +
          `\n\nkpt pkg update pkg@${fixture.to.ref} (${fixture.strategy}) after edits:\n${fixture.edits.map((e) => `  ${JSON.stringify(e)}`).join('\n')}`,
      );
    }
    if (size) {
      sizes.push(size);
      const larger = LARGER_BY_DEVIATION[id];
      if (larger) expect({ id, surplus: size.ours - size.kpt }).toEqual({ id, surplus: larger.lines });
      else expect({ id, ours: size.ours, atMostKpt: size.ours <= size.kpt }).toEqual({ id, ours: size.ours, atMostKpt: true });
    }
  }, CASE_TIMEOUT_MS);
});
