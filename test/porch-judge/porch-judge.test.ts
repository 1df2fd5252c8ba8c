/**
 * Porch's own code as the judge of sync (issue 28): every sync scenario of the test suite replayed,
 * and after every step what Porch's engine, repository cache and git backend list in each repository
 * compared with what sync's plan and --status-out say it wrote and with the project's own reading.
 * Needs Go (the judge is a Go module); skipped, with one line, without it. `npm run porch-judge` runs
 * this file alone and ends with `N passed, M failed`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSyncInputs } from '../../src/sync/inputs';
import { catalogAndEdges, syncSettings, writeFleet } from '../sync/porch-repos';
import { describeWithJudge } from './judge';
import { judgeScenarios, renumberTag } from './scenarios';
import { JudgeSession } from './session';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-porch-judge-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describeWithJudge("Porch's code reads what sync writes as sync says it wrote it", 'Porch as the judge of sync (test/porch-judge/porch-judge.test.ts)', () => {
  for (const scenario of judgeScenarios()) {
    if (scenario.unavailable) {
      console.warn(`skipping "${scenario.name}" under the judge: ${scenario.unavailable}`);
      it['skip'](scenario.name, () => undefined);
      continue;
    }
    it(
      scenario.name,
      async () => {
        const session = await scenario.run(dir);
        expect(session.differences.join('\n')).toBe('');
      },
      10 * 60_000,
    );
  }

  it('names the repository and the PackageRevision of a wrong revision number planted behind sync', async () => {
    catalogAndEdges(dir);
    const session = new JudgeSession(dir, [
      { name: 'catalog', path: join(dir, 'catalog.git') },
      { name: 'edge1', path: join(dir, 'edge1.git'), deployment: true },
      { name: 'edge2', path: join(dir, 'edge2.git'), deployment: true },
    ]);
    await session.sync('publish', readSyncInputs([writeFleet(dir)]), syncSettings(dir, { lifecycle: 'published' }), () => renumberTag(join(dir, 'edge1.git'), 'app', 1, 7));
    expect(session.differences).toContain('publish: repository edge1, PackageRevision edge1.app.packagevariant-1: revision: Porch lists 7, the plan wrote 1');
    expect(session.differences.every((d) => d.includes('repository edge1, PackageRevision edge1.app.'))).toBe(true);
  }, 5 * 60_000);
});
