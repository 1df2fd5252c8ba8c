/**
 * `npm run demo`'s script, the first thing a new user runs (README Set-up): the function through
 * `kpt fn eval`, then sync creating, publishing and upgrading a set's downstreams in two local
 * repositories with an edit kept. The checkout is built (`npm test` builds first). Skipped, with one
 * line, where kpt is not on PATH.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers';
import { describeUnless, kptAbsent } from '../skip-notice';

const describeWithKpt = describeUnless(kptAbsent(), 'the demo (test/e2e/demo.test.ts)');

describeWithKpt('npm run demo (scripts/demo.sh)', () => {
  let scratch: string;
  let run: SpawnSyncReturns<string>;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'pv-demo-'));
    // A new user's machine: no git identity of their own (the demo brings one), a home of its own.
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: join(scratch, 'home'), TMPDIR: scratch, GIT_CONFIG_NOSYSTEM: '1' };
    run = spawnSync('bash', [join(REPO_ROOT, 'scripts/demo.sh')], { cwd: REPO_ROOT, env, encoding: 'utf8' });
  }, 120_000);
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('runs to the end and leaves nothing in its scratch directory', () => {
    expect({ status: run.status, stderr: run.status === 0 ? '' : run.stderr }).toEqual({ status: 0, stderr: '' });
    expect(spawnSync('find', [scratch, '-mindepth', '1', '-not', '-path', `${join(scratch, 'home')}*`], { encoding: 'utf8' }).stdout).toBe('');
  });

  it('shows the function merging upstream changes through kpt', () => {
    expect(run.stdout).toContain("message: 'merged upstream changes (resource-merge): 3 merged, 1 added, 0 deleted, 0 kept although deleted upstream, 0 conflicts'");
    expect(run.stdout).toMatch(/^\+{3} b\/pdb\.yaml$/m);
  });

  it('shows sync creating, publishing, finding nothing to do, and upgrading in both repositories', () => {
    const plans = run.stdout.split('\n').filter((line) => /^(\$ package-variant sync|repository |  (create|publish|unchanged|upgrade) |Plan:)/.test(line));
    const both = (line: string) => ['edge1', 'edge2'].flatMap((edge) => [`repository ${edge} (./${edge}.git)`, line.replace('EDGE', edge)]);
    expect(plans).toEqual(
      [
        '$ package-variant sync fleet.yaml --dry-run',
        ...both('  create      app  catalog/app v1 (catalog.app.v1) -> drafts/app/packagevariant-1'),
        'Plan: 2 create, 0 unchanged.',
        '$ package-variant sync fleet.yaml',
        ...both('  create      app  catalog/app v1 (catalog.app.v1) -> drafts/app/packagevariant-1'),
        'Plan: 2 create, 0 unchanged.',
        '$ package-variant sync fleet.yaml --lifecycle published',
        ...both('  publish     app  draft EDGE.app.packagevariant-1 -> main, tag app/v1'),
        'Plan: 2 publish, 0 unchanged.',
        '$ package-variant sync fleet.yaml',
        ...both('  unchanged   app'),
        'Plan: 2 unchanged.',
        '$ package-variant sync fleet.yaml --lifecycle published',
        ...both('  upgrade     app  app/v1 -> app/v2 from EDGE.app.packagevariant-1 (v1) -> main, tag app/v2'),
        'Plan: 2 upgrade, 0 unchanged.',
      ],
    );
  });

  it("ends with edge1's edit kept and upstream's new image taken", () => {
    expect(run.stdout.trimEnd().split('\n').slice(-2)).toEqual(['  replicas: 5', '        image: nginx:1.27']);
  });
});
