/**
 * Every design example (test/design-examples/scenarios.ts) through the real kpt: the package is
 * written to a temp dir, the functionConfig beside it, and `kpt fn eval PKG --exec <dist/main.js>
 * --fn-config CONFIG` runs twice; the package kpt wrote must pass the scenario's checks, and the
 * second run must change nothing. kpt writes files, not an item order, so tables are compared as
 * sets here (the in-process suite checks their order). Needs kpt on PATH and dist/main.js.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { designScenarios, type Scenario } from '../design-examples/scenarios';
import type { Files } from '../variant/variant-helpers';
import { childEnv, EVAL_EXEC, missingDistMessage, readTree, runProcess, type ProcessOutcome } from './kpt-harness';
import { describeUnless, kptAbsent } from '../skip-notice';

const describeIfKpt = describeUnless(kptAbsent(), 'the design examples through kpt (test/e2e/design-examples.test.ts)');

function writeFiles(root: string, files: Files): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

const filesIn = (root: string): Files => Object.fromEntries([...readTree(root)].map(([path, bytes]) => [path, bytes.toString('utf8')]));

async function evalScenario(scenario: Scenario): Promise<{ runs: ProcessOutcome[]; files: Files[] }> {
  const tmp = mkdtempSync(join(tmpdir(), 'pv-design-'));
  try {
    const pkg = join(tmp, 'pkg');
    const config = join(tmp, 'fn-config.yaml');
    writeFiles(pkg, scenario.files);
    writeFileSync(config, scenario.functionConfig);
    const runs: ProcessOutcome[] = [];
    const files: Files[] = [];
    for (let i = 0; i < 2; i++) {
      runs.push(await runProcess('kpt', ['fn', 'eval', pkg, '--exec', EVAL_EXEC, '--fn-config', config], { cwd: tmp, env: childEnv(), timeoutMs: 60_000 }));
      files.push(filesIn(pkg));
    }
    return { runs, files };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

describeIfKpt('the design examples through kpt fn eval --exec (each run twice)', () => {
  beforeAll(() => {
    const missing = missingDistMessage();
    if (missing) throw new Error(missing);
  });

  it.each(designScenarios().map((scenario) => [scenario.name, scenario] as const))(
    '%s',
    async (_name, scenario) => {
      const { runs, files } = await evalScenario(scenario);
      for (const run of runs) expect({ exitCode: run.exitCode, stderr: run.stderr }).toEqual({ exitCode: 0, stderr: expect.stringContaining('[PASS]') });
      scenario.check({ files: files[0]!, ordered: false });
      expect(files[1]).toEqual(files[0]);
    },
    120_000,
  );
});
