/**
 * Differential suite: seeded random three-way merges recorded from the real kpt 1.0.0-beta.56
 * (`kpt pkg get` of v1 from a local bare repo, local edits, `kpt pkg update` to v2; see
 * scripts/gen-differential-fixtures.mjs, which regenerates test/fixtures/differential/). Each case runs
 * through the function in-process and must give kpt's package, compared as data after removing kpt's
 * bookkeeping, with keyed lists compared by key. Where it does not, the difference must be one of the
 * README's "Deviations from kpt 1.0.0-beta.56", and our output must hold the documented result there.
 * A summary (cases equal, cases per deviation) is printed once; DIFFERENTIAL_VERBOSE=1 lists every
 * attributed difference; DIFFERENTIAL_REPORT=file.json writes each case's outcome and deviations, to
 * compare two versions of the merge case by case. The two rule fixtures that are real blueprint
 * upgrades are rebuilt from the blueprints mirror; without it they are left out, with one line saying so.
 */
import { writeFileSync } from 'node:fs';
import { parse } from 'yaml';
import { runFunction } from '../helpers';
import { DEVIATIONS, readmeDeviations } from './deviations';
import { fixtureResourceList, loadFixtureSet, outputDocs, noteUnbuilt, type Doc, type Fixture } from './fixtures';
import { compareResources } from './resource-verdict';
import { summaryLines, type Verdict } from './verdicts';

function compareFixture(f: Fixture): Verdict {
  const run = runFunction(fixtureResourceList(f));
  const messages = run.results.map((r) => String(r.message));
  const failed = (problem: string): Verdict => ({ outcome: 'failed', deviations: new Set(), problems: [problem] });

  if (f.kpt.exitCode !== 0) {
    if (run.exitCode === 1) return { outcome: 'both refused', deviations: new Set(), problems: [] };
    return failed(`kpt refused (exit ${f.kpt.exitCode}): ${f.kpt.error}\nbut the function merged (exit ${run.exitCode}); results: ${messages.join(' | ')}`);
  }
  const errors = run.results.filter((r) => r.severity === 'error').map((r) => String(r.message));
  if (run.exitCode !== 0 || errors.length) return failed(`kpt merged, but the function failed (exit ${run.exitCode}): ${errors.join(' | ') || messages.join(' | ')}`);

  const ours = outputDocs(((parse(run.output) as { items?: Doc[] }).items ?? []).filter((d) => d && typeof d === 'object'));
  const { deviations, problems } = compareResources({ origin: f.origin, upstream: f.upstream, local: f.local, kpt: f.kpt.files ?? {}, ours, messages }, LISTED, (claim) => {
    if (process.env.DIFFERENTIAL_VERBOSE) process.stdout.write(`${f.file}\t${claim.deviation}\t${claim.where}\n`);
  });
  if (problems.length) return { outcome: 'failed', deviations, problems };
  return { outcome: deviations.size ? 'deviations' : 'equal', deviations, problems };
}

/**
 * What each rule fixture (scripts/gen-rule-fixtures.mjs) shows against kpt: the same package where
 * kpt's result is right, else the README row that says why ours differs.
 */
const RULE_VERDICTS: Record<string, Pick<Verdict, 'outcome'> & { deviations: string[] }> = {
  'rule-1-both-null.yaml': { outcome: 'equal', deviations: [] },
  'rule-2-deleted-lists.yaml': { outcome: 'deviations', deviations: [DEVIATIONS.emptyList] },
  'rule-3-keyless-element.yaml': { outcome: 'deviations', deviations: [DEVIATIONS.keyless] },
  'rule-4-schema-default.yaml': { outcome: 'equal', deviations: [] },
  'rule-5-acm-blueprint-v0.1.1-v0.1.2.yaml': { outcome: 'equal', deviations: [] },
  'rule-5-comments.yaml': { outcome: 'equal', deviations: [] },
  'rule-6-blueprint-attribution.yaml': { outcome: 'equal', deviations: [] },
  'rule-7-anthos-cluster-acm-v0.1.1-v0.1.2.yaml': { outcome: 'equal', deviations: [] },
  'rule-8-port-names.yaml': { outcome: 'deviations', deviations: [DEVIATIONS.nameClash] },
};

const { fixtures, unbuilt } = loadFixtureSet();
noteUnbuilt(unbuilt);
const LISTED = new Set(readmeDeviations());
const verdicts = new Map<string, Verdict>();

describe('differential: the function against recorded kpt 1.0.0-beta.56 `kpt pkg update` results', () => {
  afterAll(() => {
    const lines = summaryLines('differential vs kpt', verdicts);
    console.log(lines.join('\n'));
    const report = process.env.DIFFERENTIAL_REPORT;
    if (report) {
      const byCase = Object.fromEntries([...verdicts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([file, v]) => [file, { outcome: v.outcome, deviations: [...v.deviations].sort() }]));
      writeFileSync(report, `${JSON.stringify(byCase, null, 2)}\n`);
    }
  });

  it('attributes differences only to rows of the README table (or names the row missing)', () => {
    const listed = Object.entries(DEVIATIONS).filter(([, row]) => LISTED.has(row));
    expect(listed.length).toBeGreaterThanOrEqual(9);
  });

  it('has at least 200 recorded cases covering every strategy', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(200);
    expect(new Set(fixtures.map((f) => f.strategy))).toEqual(new Set(['resource-merge', 'fast-forward', 'force-delete-replace']));
  });

  it('has a recorded case for each rule of issue 12', () => {
    const recorded = [...fixtures.filter((f) => f.rule !== undefined), ...unbuilt].map((f) => f.file);
    expect(recorded.sort()).toEqual(Object.keys(RULE_VERDICTS).sort());
  });

  it.each(fixtures.map((f) => [`${f.file} (${f.strategy})`, f] as const))('%s', (_name, f) => {
    const verdict = compareFixture(f);
    verdicts.set(f.file, verdict);
    if (f.rule !== undefined) expect({ outcome: verdict.outcome, deviations: [...verdict.deviations] }).toEqual(RULE_VERDICTS[f.file]);
    if (verdict.problems.length) {
      throw new Error(
        `${f.file} (${f.rule !== undefined ? `rule ${f.rule}` : `seed ${f.seed}`}, ${f.strategy}) differs from kpt:\n\n${verdict.problems.join('\n\n')}\n\nedits:\n${f.ops.map((o) => `  ${o}`).join('\n')}`,
      );
    }
  });
});
