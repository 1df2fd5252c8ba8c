/**
 * The walk of porch-lifecycle.md §11.9, through the command line, on local bare repositories and
 * with plain git as the judge: a catalog publishing app v1 and v2 in Porch's layout, three
 * deployment repositories a PackageVariantSet selects by label; plan, create, a second run that
 * moves nothing, approval, a local edit published by hand, an upgrade that keeps it, and a further
 * upstream that the drafts then block.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers';
import { git } from '../pkg/git-repos';
import { configMap, kptfile } from '../pkg/trees';
import { discoverRevisions } from './porch-discovery';
import { catalogAndEdges, GIT_ENV, messageOf, parentsOf, publish, refsOf, show, writeFleet } from './porch-repos';

// Each test runs several syncs on real git repositories: seconds each on a busy 2-core machine.
jest.setTimeout(60_000);

const MAIN = join(REPO_ROOT, 'dist/main.js');
const EDGES = ['edge1', 'edge2', 'edge3'];
let dir: string;
const repo = (name: string) => join(dir, `${name}.git`);
const fleetRefs = () => EDGES.map((edge) => refsOf(repo(edge))).join('\n');

function sync(args: string[]) {
  if (!existsSync(MAIN)) throw new Error('dist/main.js is missing: run `npm run build` (npm test builds first)');
  const run = spawnSync(process.execPath, [MAIN, 'sync', 'fleet.yaml', '--no-render', ...args], { cwd: dir, env: { ...GIT_ENV, PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache'), PACKAGE_VARIANT_STATE_DIR: join(dir, 'state') }, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const lines = (stdout: string, action: string) => stdout.split('\n').filter((line) => line.startsWith(`  ${action} `));
const kptJson = (message: string) => JSON.parse(message.split('\n').find((line) => line.startsWith('kpt:'))!.slice(4));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-sync-walk-'));
  catalogAndEdges(dir, EDGES);
  writeFleet(dir, { edges: EDGES });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("porch-lifecycle.md §11.9's walk through package-variant sync", () => {
  it('1. plans a create for each selected repository and moves no ref (exit 4)', () => {
    const before = fleetRefs();
    const run = sync(['--dry-run']);
    expect(run.code).toBe(4);
    expect(lines(run.stdout, 'create')).toHaveLength(3);
    expect(fleetRefs()).toBe(before);
  });

  it('2. writes one draft branch per repository: clone, then render, on main; the lock, the context, the ownership', () => {
    expect(sync([]).code).toBe(4);
    for (const edge of EDGES) {
      const refs = refsOf(repo(edge));
      expect(refs.split('\n').filter((line) => !line.startsWith('refs/heads/main '))).toEqual([expect.stringMatching(/^refs\/heads\/drafts\/app\/packagevariant-1 \w+$/)]);
      const draft = /drafts\/app\/packagevariant-1 (\w+)/.exec(refs)![1]!;
      const [clone] = parentsOf(repo(edge), draft);
      expect(messageOf(repo(edge), draft)).toMatch(/^Rendering package\n/);
      expect(messageOf(repo(edge), clone!)).toMatch(/^Creating new revision by cloning\n/);
      expect(parentsOf(repo(edge), clone!)).toEqual([git(['--git-dir', repo(edge), 'rev-parse', 'main'])]);
      expect(kptJson(messageOf(repo(edge), clone!))).toEqual({ package: 'app', workspaceName: 'packagevariant-1', revision: '0', task: { type: 'clone', clone: { upstreamRef: { upstreamRef: { name: 'catalog.app.v1' } } } } });
      const kptfileText = show(repo(edge), `${draft}:app/Kptfile`);
      expect(kptfileText).toContain(`    ref: app/v1\n    commit: ${git(['--git-dir', repo('catalog'), 'rev-parse', 'app/v1'])}`);
      expect(kptfileText).toContain('package-variant.github.io/owner: PackageVariantSet/default/fleet');
      expect(show(repo(edge), `${draft}:app/package-context.yaml`)).toContain('region: eu');
    }
  });

  it('3. a second run with the same inputs has nothing to do and moves no ref (exit 0)', () => {
    const before = fleetRefs();
    expect(sync([]).code).toBe(0);
    expect(fleetRefs()).toBe(before);
  });

  it('4. --lifecycle published approves each draft: a merge commit on main, the tag app/v1, no draft branch', () => {
    expect(sync(['--lifecycle', 'published']).code).toBe(4);
    for (const edge of EDGES) {
      const refs = refsOf(repo(edge));
      expect(refs).not.toMatch(/drafts\//);
      const tag = /refs\/tags\/app\/v1 (\w+)/.exec(refs)![1]!;
      expect(refs).toContain(`refs/heads/main ${tag}`);
      expect(messageOf(repo(edge), tag)).toMatch(/^Approving package revision app\/1\n/);
      expect(parentsOf(repo(edge), tag)).toHaveLength(2);
      expect(show(repo(edge), 'main:app/cm.yaml')).toContain('x: "1"');
    }
  });

  it('5-6. after a local edit published by hand in edge1, moving the set to v2 upgrades all three, keeping the edit', () => {
    const base = 'refs/tags/app/v1';
    const edited = show(repo('edge1'), `${base}:app/cm.yaml`).replace('  name: cm\n', '  name: cm\n  labels:\n    team: a\n');
    const files = Object.fromEntries(['Kptfile', 'package-context.yaml'].map((path) => [path, `${show(repo('edge1'), `${base}:app/${path}`)}\n`]));
    publish(repo('edge1'), 'app', 2, { ...files, 'cm.yaml': `${edited}\n` }, 'manual-1');
    publish(repo('catalog'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }), 'deploy.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  replicas: 1\n' });
    writeFleet(dir, { edges: EDGES, workspace: 'v2' });
    const plan = sync(['--dry-run']);
    expect(lines(plan.stdout, 'upgrade')).toEqual([
      '  upgrade     app  app/v1 -> app/v2 from edge1.app.manual-1 (v2) -> drafts/app/packagevariant-2',
      '  upgrade     app  app/v1 -> app/v2 from edge2.app.packagevariant-1 (v1) -> drafts/app/packagevariant-2',
      '  upgrade     app  app/v1 -> app/v2 from edge3.app.packagevariant-1 (v1) -> drafts/app/packagevariant-2',
    ]);
    expect(sync([]).code).toBe(4);
    const draft = /drafts\/app\/packagevariant-2 (\w+)/.exec(refsOf(repo('edge1')))![1]!;
    expect(show(repo('edge1'), `${draft}:app/cm.yaml`)).toMatch(/team: a[\s\S]*x: "2"/);
    expect(show(repo('edge1'), `${draft}:app/deploy.yaml`)).toContain('kind: Deployment');
    expect(discoverRevisions(repo('edge1'), 'edge1')).toContainEqual(expect.objectContaining({ name: 'edge1.app.packagevariant-2', lifecycle: 'Draft', firstTask: 'upgrade' }));
  });

  it('7. a further upstream revision is blocked by the unpublished drafts: nothing written (exit 5)', () => {
    publish(repo('catalog'), 'app', 3, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '3' }) });
    writeFleet(dir, { edges: EDGES, workspace: 'v3' });
    const before = fleetRefs();
    const run = sync([]);
    expect(run.code).toBe(5);
    expect(lines(run.stdout, 'blocked')).toHaveLength(3);
    expect(fleetRefs()).toBe(before);
  });
});
