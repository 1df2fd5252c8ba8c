/**
 * kpt as the client of what sync publishes: `kpt pkg get` of a downstream's published tag gives the
 * package sync published, and `kpt pkg update` of a package fetched that way moves it to the next
 * revision sync publishes. Skipped, saying so, without kpt.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { DEFAULT_TIMEOUTS } from '../../src/git/run-git';
import { readSyncInputs } from '../../src/sync/inputs';
import { gitRemotes } from '../../src/sync/remotes';
import { planSync, writePlan } from '../../src/sync/run';
import { git } from '../pkg/git-repos';
import { configMap, kptfile } from '../pkg/trees';
import { emptyRepository, GIT_ENV, publish, show, writeFleet } from './porch-repos';
import { describeUnless, kptAbsent } from '../skip-notice';

// Each test runs several syncs on real git repositories: seconds each on a busy 2-core machine.
jest.setTimeout(60_000);

const describeWithKpt = describeUnless(kptAbsent(), 'kpt pkg get and kpt pkg update of what sync publishes (test/sync/sync-kpt.test.ts)');

let dir: string;
let env: NodeJS.ProcessEnv;
const repo = (name: string) => join(dir, `${name}.git`);

async function syncPublished(workspace: string): Promise<void> {
  const { plan, remotes } = await planSync(readSyncInputs([writeFleet(dir, { workspace, edges: ['edge1'] })]), {
    lifecycle: 'published',
    diff: false,
    open: gitRemotes({ env, timeouts: DEFAULT_TIMEOUTS, notify: () => undefined }),
  });
  expect(await writePlan(plan, remotes)).toEqual([]);
}

function kpt(args: string[], cwd: string): void {
  const run = spawnSync('kpt', args, { cwd, env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`kpt ${args.join(' ')} failed:\n${run.stdout}\n${run.stderr}`);
}

describeWithKpt('kpt reads what sync publishes', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pv-sync-kpt-'));
    env = { ...GIT_ENV, HOME: join(dir, 'home'), KPT_CACHE_DIR: join(dir, 'kpt-cache'), PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache'), PACKAGE_VARIANT_STATE_DIR: join(dir, 'state') };
    delete env.NODE_EXTRA_CA_CERTS;
    emptyRepository(repo('catalog'));
    publish(repo('catalog'), 'app', 1, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '1' }) });
    emptyRepository(repo('edge1'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('kpt pkg get of the published tag gives the published package, and kpt pkg update follows the next revision', async () => {
    await syncPublished('v1');
    const work = join(dir, 'work');
    git(['init', '-q', work]);
    kpt(['pkg', 'get', `${repo('edge1')}/app@v1`, 'app'], work);
    // The revision already holds the merge key kpt pkg get adds to each resource (Porch's clone writes it).
    const asFetched = (path: string) => parse(readFileSync(join(work, 'app', path), 'utf8'));
    for (const path of ['package-context.yaml', 'cm.yaml']) expect(asFetched(path)).toEqual(parse(show(repo('edge1'), `refs/tags/app/v1:app/${path}`)));
    expect(asFetched('package-context.yaml').data).toEqual({ name: 'app', 'package-path': 'app', region: 'eu' });
    git(['add', '-A'], work);
    git(['commit', '-q', '-m', 'kpt pkg get'], work);

    publish(repo('catalog'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }) });
    await syncPublished('v2');
    kpt(['pkg', 'update', 'app@v2'], work);
    expect(readFileSync(join(work, 'app/cm.yaml'), 'utf8')).toContain('x: "2"');
    expect(readFileSync(join(work, 'app/Kptfile'), 'utf8')).toMatch(/upstreamLock:\n  type: git\n  git:\n(.*\n)*    ref: app\/v2\n/);
  });

  it('kpt pkg update works in any clone of the deployment repository: a relative upstream path is recorded from the root (issue 30)', () => {
    publish(repo('catalog'), 'app', 3, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '3' }) });
    const clone = join(dir, 'elsewhere', 'edge1');
    git(['clone', '-q', repo('edge1'), clone]);
    expect(readFileSync(join(clone, 'app/Kptfile'), 'utf8')).toContain(`    repo: ${repo('catalog')}\n`);
    kpt(['pkg', 'update', 'app@app/v3'], clone);
    expect(readFileSync(join(clone, 'app/cm.yaml'), 'utf8')).toContain('x: "3"');
  });
});
