/** sync end to end on local bare repositories, planned and written through its API (the CLI suite drives the command). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_TIMEOUTS } from '../../src/git/run-git';
import { readSyncInputs } from '../../src/sync/inputs';
import { planText } from '../../src/sync/plan';
import { gitRemotes } from '../../src/sync/remotes';
import { planSync, writePlan, type SyncSettings } from '../../src/sync/run';
import { configMap, kptfile } from '../pkg/trees';
import { discoverRevisions } from './porch-discovery';
import { emptyRepository, GIT_ENV, messageOf, parentsOf, publish, refsOf, show } from './porch-repos';

let dir: string;
const repo = (name: string) => join(dir, `${name}.git`);

const inputs = (extra = '') => {
  const file = join(dir, 'fleet.yaml');
  const repositories = ['catalog', 'edge1', 'edge2']
    .map((name) => `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: ${name}\n  labels:\n    tier: ${name === 'catalog' ? 'catalog' : 'edge'}\nspec:\n  type: git\n  deployment: ${name !== 'catalog'}\n  git:\n    repo: ./${name}.git\n`)
    .join('---\n');
  const set = `apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata:\n  name: fleet\nspec:\n  upstream:\n    repo: catalog\n    package: app\n    workspaceName: v1\n  targets:\n  - repositorySelector:\n      matchLabels:\n        tier: edge\n    template:\n      packageContext:\n        data:\n          region: eu\n${extra}`;
  writeFileSync(file, `${repositories}---\n${set}`);
  return readSyncInputs([file]);
};

const settings = (over: Partial<SyncSettings> = {}): SyncSettings => ({
  lifecycle: 'draft',
  diff: false,
  open: gitRemotes({ env: { ...GIT_ENV, PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache') }, timeouts: DEFAULT_TIMEOUTS, notify: () => undefined }),
  ...over,
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-sync-'));
  emptyRepository(repo('catalog'));
  publish(repo('catalog'), 'app', 1, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '1' }) });
  for (const edge of ['edge1', 'edge2']) emptyRepository(repo(edge));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('sync creates drafts', () => {
  it('plans a create per selected repository and writes each as Porch would', async () => {
    const before = refsOf(repo('edge1'));
    const { plan, urls, remotes } = await planSync(inputs(), settings());
    expect(planText(plan, urls)).toMatch(/create +app +catalog\/app v1 \(catalog\.app\.v1\) -> drafts\/app\/packagevariant-1/);
    expect(plan.downstreams.map((d) => [d.repository, d.action])).toEqual([
      ['edge1', 'create'],
      ['edge2', 'create'],
    ]);
    expect(refsOf(repo('edge1'))).toBe(before);
    expect(await writePlan(plan, remotes)).toEqual([]);
    const refs = refsOf(repo('edge1'));
    const draft = /refs\/heads\/drafts\/app\/packagevariant-1 (\w+)/.exec(refs)![1]!;
    expect(messageOf(repo('edge1'), draft)).toMatch(/^Rendering package\n\nkpt:\{"package":"app","workspaceName":"packagevariant-1","revision":"0","task":\{"type":"render"\}\}$/);
    const [clone] = parentsOf(repo('edge1'), draft);
    expect(messageOf(repo('edge1'), clone!)).toContain('Creating new revision by cloning\n\nkpt:{"package":"app","workspaceName":"packagevariant-1","revision":"0","task":{"type":"clone","clone":{"upstreamRef":{"upstreamRef":{"name":"catalog.app.v1"}}}}}');
    expect(show(repo('edge1'), `${draft}:app/package-context.yaml`)).toContain('region: eu');
    expect(show(repo('edge1'), `${draft}:app/Kptfile`)).toContain('package-variant.github.io/owner: PackageVariantSet/default/fleet');
    expect(discoverRevisions(repo('edge1'), 'edge1')).toEqual([expect.objectContaining({ name: 'edge1.app.packagevariant-1', lifecycle: 'Draft', revision: 0, firstTask: 'clone' })]);
  });

  it('moves no ref on a second sync with the same inputs', async () => {
    const first = await planSync(inputs(), settings());
    await writePlan(first.plan, first.remotes);
    const before = [refsOf(repo('edge1')), refsOf(repo('edge2'))];
    const second = await planSync(inputs(), settings());
    expect(second.plan.downstreams.map((d) => d.action)).toEqual(['unchanged', 'unchanged']);
    expect(second.plan.writes).toEqual([]);
    expect([refsOf(repo('edge1')), refsOf(repo('edge2'))]).toEqual(before);
  });

  it('publishes with an approval merge commit and a tag', async () => {
    const { plan, remotes } = await planSync(inputs(), settings({ lifecycle: 'published' }));
    expect(await writePlan(plan, remotes)).toEqual([]);
    const refs = refsOf(repo('edge1'));
    expect(refs).not.toMatch(/drafts\//);
    const tag = /refs\/tags\/app\/v1 (\w+)/.exec(refs)![1]!;
    expect(refs).toContain(`refs/heads/main ${tag}`);
    expect(messageOf(repo('edge1'), tag)).toBe('Approving package revision app/1\n\nkpt:{"package":"app","workspaceName":"packagevariant-1","revision":"1"}');
    expect(parentsOf(repo('edge1'), tag)).toHaveLength(2);
    expect(discoverRevisions(repo('edge1'), 'edge1')).toEqual([
      expect.objectContaining({ name: 'edge1.app.main', lifecycle: 'Published', revision: -1 }),
      expect.objectContaining({ name: 'edge1.app.packagevariant-1', lifecycle: 'Published', revision: 1, firstTask: 'clone' }),
    ]);
  });
});
