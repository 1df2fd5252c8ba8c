/**
 * The README's walk through a first update, run as it is written there (issue 19): package-variant
 * put on PATH as Set-up says, a blueprint in a local bare repository, `kpt pkg get`, a local edit,
 * commits, `update --dry-run`, the update, and a second update that says nothing changed. The
 * checkout is the clone CI made (`npm ci`, then `npm test`, which builds). Skipped, with one line,
 * where kpt is not on PATH.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { REPO_ROOT } from '../helpers';
import { describeUnless, kptAbsent } from '../skip-notice';

const HEADING = '### A first update, step by step';

/** The first `sh` block after the heading, as the README holds it. */
function readmeWalk(): string {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const at = readme.indexOf(`\n${HEADING}\n`);
  if (at === -1) throw new Error(`README.md has no "${HEADING}" section`);
  const block = /\n```sh\n([\s\S]*?)\n```\n/.exec(readme.slice(at));
  if (!block) throw new Error(`README.md's "${HEADING}" has no sh block`);
  return block[1]!;
}

const describeWithKpt = describeUnless(kptAbsent(), 'the README walk through a first update (test/e2e/first-update.test.ts)');

describeWithKpt("the README's first update, run as written", () => {
  let scratch: string;
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), 'pv-first-update-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('fetches, edits, updates after a dry run, and then says that nothing changed', () => {
    // A PATH without this checkout: only the README's own line puts package-variant on it.
    const path = (process.env.PATH ?? '').split(delimiter).filter((dir) => !dir.startsWith(REPO_ROOT)).join(delimiter);
    const env: NodeJS.ProcessEnv = {
      PATH: path,
      HOME: join(scratch, 'home'),
      TMPDIR: scratch,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'new user',
      GIT_AUTHOR_EMAIL: 'new.user@example.invalid',
      GIT_COMMITTER_NAME: 'new user',
      GIT_COMMITTER_EMAIL: 'new.user@example.invalid',
    };
    expect(spawnSync('sh', ['-c', 'command -v package-variant'], { env }).status).not.toBe(0);
    const run = spawnSync('bash', ['-euo', 'pipefail', '-c', readmeWalk()], { cwd: REPO_ROOT, env, encoding: 'utf8' });
    expect({ status: run.status, stderr: run.status === 0 ? '' : run.stderr }).toEqual({ status: 0, stderr: '' });

    const lines = run.stdout.split('\n').filter((l) => /^(would )?(add|change|remove)/.test(l) || /^(added|changed|removed) /.test(l));
    const files = [['change', 'Kptfile'], ['change', 'README.md'], ['change', 'configmap.yaml'], ['change', 'deployment.yaml'], ['add', 'pdb.yaml']];
    expect(lines).toEqual([...files.map(([verb, file]) => `would ${verb} ${file}`), ...files.map(([verb, file]) => `${verb === 'add' ? 'added' : 'changed'} ${file}`)]);
    expect(run.stderr.trim().split('\n').at(-1)).toMatch(/^package-variant update: app is already at v2 \(commit [0-9a-f]{12}\): nothing changed$/);

    const deploy = readdirSync(scratch).map((d) => join(scratch, d, 'deploy', 'app')).find((d) => existsSync(d))!;
    const deployment = readFileSync(join(deploy, 'deployment.yaml'), 'utf8');
    expect(deployment).toMatch(/replicas: 5/);
    expect(deployment).toMatch(/image: nginx:1\.27/);
    expect(spawnSync('git', ['status', '--porcelain'], { cwd: deploy, env, encoding: 'utf8' }).stdout).toBe('');
  });
});
