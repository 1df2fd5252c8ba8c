/** sync end to end on local bare repositories, planned and written through its API (the CLI suite drives the command). */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { readSyncInputs } from '../../src/sync/inputs';
import { planText } from '../../src/sync/plan';
import { planSync, writePlan } from '../../src/sync/run';
import type { SyncSettings } from '../../src/sync/settings';
import { configMap, kptfile } from '../pkg/trees';
import { discoverRevisions } from './porch-discovery';
import { git } from '../pkg/git-repos';
import { catalogAndEdges, messageOf, parentsOf, publish, refsOf, show, syncSettings, writeFleet } from './porch-repos';

// Each test runs several syncs on real git repositories: seconds each on a busy 2-core machine.
jest.setTimeout(60_000);

let dir: string;
const repo = (name: string) => join(dir, `${name}.git`);

const inputs = (workspace = 'v1') => readSyncInputs([writeFleet(dir, { workspace })]);

const settings = (over: Partial<SyncSettings> = {}): SyncSettings => syncSettings(dir, over);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-sync-'));
  catalogAndEdges(dir);
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
    expect(messageOf(repo('edge1'), draft)).toMatch(/^Rendering package\n\n\nkpt:\{"package":"app","workspaceName":"packagevariant-1","revision":"0","task":\{"type":"render"\}\}$/);
    const [clone] = parentsOf(repo('edge1'), draft);
    expect(messageOf(repo('edge1'), clone!)).toContain('Creating new revision by cloning\n\n\nkpt:{"package":"app","workspaceName":"packagevariant-1","revision":"0","task":{"type":"clone","clone":{"upstreamRef":{"upstreamRef":{"name":"catalog.app.v1"}}}}}');
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

/** A human's edit of a published downstream, as Porch records one: a revision copied, changed and approved. */
function publishEdit(edge: string, revision: number, workspace: string, edit: (files: Map<string, string>) => void): void {
  const base = git(['--git-dir', repo(edge), 'rev-parse', `refs/tags/app/v${revision - 1}`]);
  const files = new Map<string, string>();
  for (const path of git(['--git-dir', repo(edge), 'ls-tree', '-r', '--name-only', base, 'app/']).split('\n')) files.set(path.slice('app/'.length), show(repo(edge), `${base}:${path}`) + '\n');
  edit(files);
  publish(repo(edge), 'app', revision, Object.fromEntries(files), workspace);
}

describe('sync upgrades and stops where Porch stops', () => {
  it('merges the new upstream into the latest published revision, keeping a local edit', async () => {
    const first = await planSync(inputs(), settings({ lifecycle: 'published' }));
    await writePlan(first.plan, first.remotes);
    publishEdit('edge1', 2, 'manual-1', (files) => files.set('cm.yaml', files.get('cm.yaml')!.replace('  name: cm\n', '  name: cm\n  labels:\n    team: a\n')));
    publish(repo('catalog'), 'app', 2, {
      Kptfile: kptfile('app'),
      'cm.yaml': configMap('cm', { x: '2' }),
      'deploy.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  replicas: 1\n',
    });
    const { plan, urls, remotes } = await planSync(inputs('v2'), settings());
    const text = planText(plan, urls);
    expect(text).toMatch(/upgrade +app +app\/v1 -> app\/v2 from edge1\.app\.manual-1 \(v2\) -> drafts\/app\/packagevariant-2/);
    expect(text).toMatch(/upgrade +app +app\/v1 -> app\/v2 from edge2\.app\.packagevariant-1 \(v1\) -> drafts\/app\/packagevariant-2/);
    expect(await writePlan(plan, remotes)).toEqual([]);
    const draft = /refs\/heads\/drafts\/app\/packagevariant-2 (\w+)/.exec(refsOf(repo('edge1')))![1]!;
    const cm = show(repo('edge1'), `${draft}:app/cm.yaml`);
    expect(cm).toContain('x: "2"');
    expect(cm).toContain('team: a');
    expect(show(repo('edge1'), `${draft}:app/deploy.yaml`)).toContain('kind: Deployment');
    expect(show(repo('edge1'), `${draft}:app/Kptfile`)).toMatch(/upstreamLock:\n  type: git\n  git:\n(.*\n)*    ref: app\/v2\n/);
    const upgrade = git(['--git-dir', repo('edge1'), 'log', '--format=%B', draft]).split('\n').find((line) => line.includes('"type":"upgrade"'))!;
    expect(JSON.parse(upgrade.slice(4)).task).toEqual({
      type: 'upgrade',
      upgrade: { oldUpstreamRef: { name: 'catalog.app.v1' }, newUpstreamRef: { name: 'catalog.app.v2' }, localPackageRevisionRef: { name: 'edge1.app.manual-1' }, strategy: 'resource-merge' },
    });
    expect(discoverRevisions(repo('edge1'), 'edge1')).toEqual([
      expect.objectContaining({ name: 'edge1.app.main', lifecycle: 'Published', revision: -1 }),
      expect.objectContaining({ name: 'edge1.app.manual-1', lifecycle: 'Published', revision: 2 }),
      expect.objectContaining({ name: 'edge1.app.packagevariant-1', lifecycle: 'Published', revision: 1, firstTask: 'clone' }),
      expect.objectContaining({ name: 'edge1.app.packagevariant-2', lifecycle: 'Draft', revision: 0, firstTask: 'upgrade' }),
    ]);
  });

  it('is blocked by an owned draft when the upstream moves, and writes nothing', async () => {
    const first = await planSync(inputs(), settings());
    await writePlan(first.plan, first.remotes);
    publish(repo('catalog'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }) });
    const before = [refsOf(repo('edge1')), refsOf(repo('edge2'))];
    const { plan } = await planSync(inputs('v2'), settings());
    expect(plan.downstreams.map((d) => [d.action, d.detail])).toEqual([
      ['blocked', 'draft packagevariant-1 records app/v1, not app/v2: publish or discard it (delete its branch), then sync again to upgrade'],
      ['blocked', 'draft packagevariant-1 records app/v1, not app/v2: publish or discard it (delete its branch), then sync again to upgrade'],
    ]);
    expect(plan.writes).toEqual([]);
    expect([refsOf(repo('edge1')), refsOf(repo('edge2'))]).toEqual(before);
  });

  it('leaves a repository whose refs moved between fetch and push as the other writer left it', async () => {
    const { plan, remotes } = await planSync(inputs(), settings({ lifecycle: 'published' }));
    const raced = publish(repo('edge1'), 'other', 1, { Kptfile: kptfile('other') });
    const racedRefs = refsOf(repo('edge1'));
    const failures = await writePlan(plan, remotes);
    expect(failures).toEqual([{ repository: 'default/edge1', message: expect.stringMatching(/^Repository edge1 .*: the refs of \.\/edge1\.git moved since sync read them \(someone else pushed\): nothing was pushed there; run sync again$/) }]);
    expect(refsOf(repo('edge1'))).toBe(racedRefs);
    expect(racedRefs).toContain(`refs/heads/main ${raced}`);
    expect(refsOf(repo('edge2'))).toMatch(/refs\/tags\/app\/v1/);
  });
});

describe('sync edits, updates drafts and leaves what it does not own', () => {
  /** The fleet with another region in its package context. */
  const regionIs = (region: string) => {
    const file = writeFleet(dir);
    writeFileSync(file, readFileSync(file, 'utf8').replace('region: eu', `region: ${region}`));
    return readSyncInputs([file]);
  };

  it('edits a published revision when the variant changes: a copy, then the mutations', async () => {
    const first = await planSync(inputs(), settings({ lifecycle: 'published' }));
    await writePlan(first.plan, first.remotes);
    const { plan, remotes } = await planSync(regionIs('us'), settings());
    expect(plan.downstreams.map((d) => d.action)).toEqual(['edit', 'edit']);
    await writePlan(plan, remotes);
    const draft = /drafts\/app\/packagevariant-2 (\w+)/.exec(refsOf(repo('edge1')))![1]!;
    expect(show(repo('edge1'), `${draft}:app/package-context.yaml`)).toContain('region: us');
    const [copy] = parentsOf(repo('edge1'), draft);
    expect(messageOf(repo('edge1'), copy!)).toContain('Creating new revision by copying previous revision\n\n\nkpt:{"package":"app","workspaceName":"packagevariant-2","revision":"0","task":{"type":"edit","edit":{"sourceRef":{"name":"edge1.app.packagevariant-1"}}}}');
    expect(discoverRevisions(repo('edge1'), 'edge1')).toContainEqual(expect.objectContaining({ name: 'edge1.app.packagevariant-2', lifecycle: 'Draft', firstTask: 'edit' }));
  });

  it('adds a render commit to its draft when the variant changes, and proposes it in the same push that removes the draft branch', async () => {
    const first = await planSync(inputs(), settings());
    await writePlan(first.plan, first.remotes);
    const firstTip = /drafts\/app\/packagevariant-1 (\w+)/.exec(refsOf(repo('edge1')))![1]!;
    const { plan, remotes } = await planSync(regionIs('us'), settings({ lifecycle: 'proposed' }));
    expect(plan.downstreams.map((d) => [d.action, d.refs])).toEqual([
      ['update', ['proposed/app/packagevariant-1']],
      ['update', ['proposed/app/packagevariant-1']],
    ]);
    await writePlan(plan, remotes);
    const refs = refsOf(repo('edge1'));
    expect(refs).not.toMatch(/drafts\//);
    const proposal = /refs\/heads\/proposed\/app\/packagevariant-1 (\w+)/.exec(refs)![1]!;
    expect(parentsOf(repo('edge1'), proposal)).toEqual([firstTip]);
    expect(messageOf(repo('edge1'), proposal)).toMatch(/^Rendering package\n/);
    expect(discoverRevisions(repo('edge1'), 'edge1')).toEqual([expect.objectContaining({ name: 'edge1.app.packagevariant-1', lifecycle: 'Proposed', revision: 0, firstTask: 'clone' })]);
    const again = await planSync(regionIs('eu'), settings({ lifecycle: 'proposed' }));
    expect(again.plan.downstreams.map((d) => [d.action, d.detail])).toEqual([
      ['blocked', 'the variant changes proposal edge1.app.packagevariant-1, which awaits approval: approve or reject it, then sync again'],
      ['blocked', 'the variant changes proposal edge2.app.packagevariant-1, which awaits approval: approve or reject it, then sync again'],
    ]);
  });

  it('is a conflict where a package it does not own is at the downstream, and leaves it alone', async () => {
    publish(repo('edge1'), 'app', 1, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: 'hand-made' }) });
    const before = refsOf(repo('edge1'));
    const { plan, remotes } = await planSync(inputs(), settings());
    expect(plan.downstreams.map((d) => [d.repository, d.action, d.detail])).toEqual([
      ['edge1', 'conflict', 'a package exists at app and no variant owns it; set spec.adoptionPolicy: adoptExisting on PackageVariant default/fleet-edge1-app to take it over'],
      ['edge2', 'create', 'catalog/app v1 (catalog.app.v1)'],
    ]);
    await writePlan(plan, remotes);
    expect(refsOf(repo('edge1'))).toBe(before);
  });
});

describe("the variant's labels and annotations", () => {
  const metadata = (policy: string, extra = '') => ({ template: `      labels:\n        team: a\n      annotations:\n        approval.nephio.org/policy: ${policy}\n${extra}` });
  const withMetadata = (policy: string, extra = '') => readSyncInputs([writeFleet(dir, metadata(policy, extra))]);

  it("are recorded on the root Kptfile of every revision sync writes, the variant's values kept as they change", async () => {
    const first = await planSync(withMetadata('initial'), settings({ lifecycle: 'published' }));
    expect(first.plan.downstreams.map((d) => d.action)).toEqual(['create', 'create']);
    await writePlan(first.plan, first.remotes);
    const published = parse(show(repo('edge1'), 'refs/tags/app/v1:app/Kptfile'));
    expect(published.metadata.labels).toEqual({ team: 'a' });
    expect(published.metadata.annotations).toMatchObject({ 'approval.nephio.org/policy': 'initial', 'package-variant.github.io/owner': 'PackageVariantSet/default/fleet' });
    expect((await planSync(withMetadata('initial'), settings())).plan.downstreams.map((d) => d.action)).toEqual(['unchanged', 'unchanged']);
    const { plan, remotes } = await planSync(withMetadata('always'), settings());
    expect(plan.downstreams.map((d) => d.action)).toEqual(['edit', 'edit']);
    await writePlan(plan, remotes);
    const draft = /drafts\/app\/packagevariant-2 (\w+)/.exec(refsOf(repo('edge1')))![1]!;
    expect(parse(show(repo('edge1'), `${draft}:app/Kptfile`)).metadata.annotations).toMatchObject({ 'approval.nephio.org/policy': 'always' });
  });

  it('are refused where the API server would refuse them, or where kpt or sync write their own, and nothing is written', async () => {
    const before = [refsOf(repo('edge1')), refsOf(repo('edge2'))];
    const { plan } = await planSync(withMetadata('initial', '        package-variant.github.io/owner: PackageVariant/default/other\n        Bad Key: x\n'), settings());
    expect(plan.downstreams.map((d) => [d.action, d.detail])).toEqual([
      ['invalid', 'PackageVariant default/fleet-edge1-app: spec.annotations: "package-variant.github.io/owner": the prefix package-variant.github.io/ is kpt\'s or sync\'s own on a Kptfile, where sync records the variant\'s annotations'],
      ['invalid', 'PackageVariant default/fleet-edge2-app: spec.annotations: "package-variant.github.io/owner": the prefix package-variant.github.io/ is kpt\'s or sync\'s own on a Kptfile, where sync records the variant\'s annotations'],
    ]);
    expect(plan.downstreams[0]!.results.map((r) => r.message)).toEqual([
      'PackageVariant default/fleet-edge1-app: spec.annotations: invalid annotation key "Bad Key": name part must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character',
    ]);
    expect(plan.writes).toEqual([]);
    expect([refsOf(repo('edge1')), refsOf(repo('edge2'))]).toEqual(before);
    const labels = await planSync(readSyncInputs([writeFleet(dir, { template: '      labels:\n        team: a b\n' })]), settings());
    expect(labels.plan.downstreams[0]).toMatchObject({ action: 'invalid', detail: 'PackageVariant default/fleet-edge1-app: spec.labels: invalid label value "a b": a valid label must be an empty string or must consist of alphanumeric characters, \'-\', \'_\' or \'.\', and must start and end with an alphanumeric character' });
  });
});
