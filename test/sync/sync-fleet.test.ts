/**
 * Issue 22 end to end on local bare repositories, plain git the judge: adoption under each policy,
 * a set losing a target under each deletion policy (with and without --allow-delete and
 * --approve-deletions), the target coming back, a renamed target that keeps its downstream, and a
 * package another variant owns left alone.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { readSyncInputs } from '../../src/sync/inputs';
import { planOutcome, type PlannedDownstream } from '../../src/sync/plan';
import { planSync, writePlan } from '../../src/sync/run';
import type { SyncSettings } from '../../src/sync/settings';
import { git } from '../pkg/git-repos';
import { configMap, kptfile } from '../pkg/trees';
import { catalogAndEdges, fleetInputs, publish, refsOf, show, syncFleet, syncSettings, type FleetOptions } from './porch-repos';

// Each test runs several syncs on real git repositories: seconds each on a busy 2-core machine.
jest.setTimeout(60_000);

let dir: string;
const repo = (name: string) => join(dir, `${name}.git`);

const settings = (over: Partial<SyncSettings> = {}): SyncSettings => syncSettings(dir, over);

const fleet = (options: FleetOptions = {}, edit?: (text: string) => string) => fleetInputs(dir, options, edit);

const sync = (over: Partial<SyncSettings> = {}, options: FleetOptions = {}, edit?: (text: string) => string) => syncFleet(dir, over, options, edit);

const rows = (entries: readonly PlannedDownstream[]) => entries.filter((e) => e.pkg !== '').map((e) => [e.repository, e.action]);
/** edge2 is no longer labelled for the set. */
const dropEdge2 = (text: string) => text.replace(/(name: edge2\n  labels:\n    tier: )edge/, '$1retired');
const orphanPolicy = { template: '      deletionPolicy: orphan\n' };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-sync-fleet-'));
  catalogAndEdges(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('adoption', () => {
  const handMade = (region: string, kptfileFields = '') =>
    publish(repo('edge1'), 'app', 1, {
      Kptfile: kptfile('app', kptfileFields),
      'cm.yaml': configMap('cm', { x: 'by hand' }),
      'package-context.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  name: app\n  region: ${region}\n`,
    });

  it('adoptNone leaves a package no variant owns alone and names the policy to set', async () => {
    handMade('us');
    const before = refsOf(repo('edge1'));
    const plan = await sync();
    expect(plan.downstreams.find((d) => d.repository === 'edge1')).toMatchObject({ action: 'conflict', detail: expect.stringContaining('set spec.adoptionPolicy: adoptExisting on PackageVariant default/fleet-edge1-app') });
    expect(refsOf(repo('edge1'))).toBe(before);
  });

  it('adoptExisting takes it over, recording its ownership with the revision the mutations make, and then owns it', async () => {
    handMade('us');
    const plan = await sync({}, { template: '      adoptionPolicy: adoptExisting\n' });
    expect(plan.downstreams.find((d) => d.repository === 'edge1')).toMatchObject({ action: 'edit', detail: expect.stringMatching(/^adopts it, recording its ownership; /) });
    const draft = /drafts\/app\/packagevariant-1 (\w+)/.exec(refsOf(repo('edge1')))![1]!;
    expect(show(repo('edge1'), `${draft}:app/Kptfile`)).toContain('package-variant.github.io/owner: PackageVariantSet/default/fleet');
    expect(show(repo('edge1'), `${draft}:app/package-context.yaml`)).toContain('region: eu');
    expect(show(repo('edge1'), `${draft}:app/cm.yaml`)).toContain('x: "by hand"');
    const again = await planSync(fleet({ template: '      adoptionPolicy: adoptExisting\n' }), settings());
    expect(rows(again.plan.downstreams)).toEqual([
      ['edge1', 'unchanged'],
      ['edge2', 'unchanged'],
    ]);
  });

  it('with nothing to change, records the ownership only with --adopt-now', async () => {
    handMade('eu');
    const adopt = { template: '      adoptionPolicy: adoptExisting\n' };
    const waiting = await planSync(fleet(adopt), settings());
    expect(waiting.plan.downstreams.find((d) => d.repository === 'edge1')).toMatchObject({ action: 'unchanged', detail: expect.stringMatching(/^adoptable: /) });
    await sync({ adoptNow: true }, adopt);
    const draft = /drafts\/app\/packagevariant-1 (\w+)/.exec(refsOf(repo('edge1')))![1]!;
    const kptfileText = show(repo('edge1'), `${draft}:app/Kptfile`);
    expect(kptfileText).toContain('package-variant.github.io/owner: PackageVariantSet/default/fleet');
    expect(git(['--git-dir', repo('edge1'), 'diff', 'refs/tags/app/v1', draft, '--stat'])).toMatch(/app\/Kptfile \| 3 \+\+\+\n 1 file changed, 3 insertions/);
  });

  it('an adopted package fetched with kpt pkg get records its upstream in one spelling after an upgrade (issue 30)', async () => {
    const v1 = git(['--git-dir', repo('catalog'), 'rev-parse', 'refs/tags/app/v1^{commit}']);
    // As `kpt pkg get file://.../catalog.git/app@app/v1` records it: the repository without .git, the directory with a slash.
    const fetched = `upstream:\n  type: git\n  git:\n    repo: file://${dir}/catalog\n    directory: /app\n    ref: app/v1\n  updateStrategy: resource-merge\nupstreamLock:\n  type: git\n  git:\n    repo: file://${dir}/catalog\n    directory: /app\n    ref: app/v1\n    commit: ${v1}\n`;
    handMade('eu', fetched);
    publish(repo('catalog'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }) });
    const plan = await sync({}, { workspace: 'v2', template: '      adoptionPolicy: adoptExisting\n' });
    expect(plan.downstreams.find((d) => d.repository === 'edge1')).toMatchObject({ action: 'upgrade' });
    const draft = /drafts\/app\/packagevariant-1 (\w+)/.exec(refsOf(repo('edge1')))![1]!;
    const written = parse(show(repo('edge1'), `${draft}:app/Kptfile`)) as { upstream: { git: Record<string, string> }; upstreamLock: { git: Record<string, string> } };
    const { commit, ...lock } = written.upstreamLock.git;
    expect(commit).toBe(git(['--git-dir', repo('catalog'), 'rev-parse', 'refs/tags/app/v2^{commit}']));
    expect(lock).toMatchObject({ directory: 'app', ref: 'app/v2' });
    expect(written.upstream.git).toEqual(lock);
  });

  it('never adopts a package another variant owns', async () => {
    await sync({ lifecycle: 'published' });
    const before = refsOf(repo('edge1'));
    const other = `---\napiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: other\nspec:\n  upstream: {repo: catalog, package: app, revision: 1}\n  downstream: {repo: edge1, package: app}\n  adoptionPolicy: adoptExisting\n`;
    const plan = await sync({}, {}, (text) => dropEdge2(text).replace(/tier: edge/, 'tier: none') + other);
    expect(plan.downstreams.find((d) => d.variant === 'PackageVariant default/other')).toMatchObject({
      action: 'conflict',
      detail: 'a package exists at app, owned by PackageVariantSet/default/fleet; a package another variant owns is never adopted',
    });
    expect(refsOf(repo('edge1'))).toBe(before);
  });
});

describe('deletion', () => {
  it('without --allow-delete lists what would go and writes nothing (changes pending)', async () => {
    await sync({ lifecycle: 'published' });
    const before = refsOf(repo('edge2'));
    const { plan } = await planSync(fleet({}, dropEdge2), settings());
    expect(plan.downstreams.find((d) => d.repository === 'edge2')).toMatchObject({ action: 'delete', variant: 'PackageVariantSet/default/fleet', refs: ['deletionProposed/app/v1'] });
    expect(planOutcome(plan)).toBe('changes');
    expect(plan.writes).toEqual([]);
    expect(refsOf(repo('edge2'))).toBe(before);
  });

  it('delete: drafts go and deletion is proposed; --approve-deletions removes the tags and the directory; the set asking again takes a proposal back', async () => {
    const us = (text: string) => text.replace('region: eu', 'region: us');
    await sync({ lifecycle: 'published' });
    // A draft of edge2's package, which the deletion removes.
    await sync({}, {}, us);
    expect(refsOf(repo('edge2'))).toMatch(/drafts\/app\/packagevariant-2/);
    const proposed = await sync({ allowDelete: true }, {}, (text) => dropEdge2(us(text)));
    expect(rows(proposed.downstreams)).toEqual([
      ['edge1', 'unchanged'],
      ['edge2', 'delete'],
    ]);
    const refs = refsOf(repo('edge2'));
    expect(refs).not.toMatch(/drafts\//);
    const tag = /refs\/tags\/app\/v1 (\w+)/.exec(refs)![1]!;
    expect(refs).toContain(`refs/heads/deletionProposed/app/v1 ${tag}`);

    // Asked for again as it was published: only the proposal of its deletion goes.
    const back = await sync();
    expect(back.downstreams.find((d) => d.repository === 'edge2')).toMatchObject({ action: 'restore', refs: ['-deletionProposed/app/v1'] });
    expect(refsOf(repo('edge2'))).not.toMatch(/deletionProposed/);

    await sync({ allowDelete: true }, {}, dropEdge2);
    const approved = await sync({ approveDeletions: true }, {}, dropEdge2);
    expect(approved.downstreams.find((d) => d.repository === 'edge2')).toMatchObject({ action: 'delete' });
    const after = refsOf(repo('edge2'));
    expect(after).not.toMatch(/refs\/tags\/app\/|deletionProposed/);
    const main = /refs\/heads\/main (\w+)/.exec(after)![1]!;
    expect(git(['--git-dir', repo('edge2'), 'log', '-1', '--format=%s', main])).toBe('Delete app');
    expect(git(['--git-dir', repo('edge2'), 'ls-tree', '--name-only', main])).toBe('README.md');
  });

  it('orphan: everything stays, the ownership record is dropped, and another variant may then adopt the package', async () => {
    await sync({ lifecycle: 'published' }, orphanPolicy);
    const tagBefore = /refs\/tags\/app\/v1 (\w+)/.exec(refsOf(repo('edge2')))![1]!;
    const orphaned = await sync({ allowDelete: true }, orphanPolicy, dropEdge2);
    expect(orphaned.downstreams.find((d) => d.repository === 'edge2')).toMatchObject({ action: 'orphan', refs: ['drafts/app/packagevariant-2'] });
    const refs = refsOf(repo('edge2'));
    expect(refs).toContain(`refs/tags/app/v1 ${tagBefore}`);
    const draft = /drafts\/app\/packagevariant-2 (\w+)/.exec(refs)![1]!;
    expect(show(repo('edge2'), `${draft}:app/Kptfile`)).not.toContain('package-variant.github.io/owner');
    const quiet = await planSync(fleet(orphanPolicy, dropEdge2), settings({ allowDelete: true }));
    expect(quiet.plan.downstreams.filter((d) => d.repository === 'edge2')).toEqual([]);
  });
});

describe('a Repository whose branch is missing', () => {
  it('is not created for spec.git.createBranch: its downstreams are invalid, naming the branch and the field (issue 30)', async () => {
    const release = (text: string) => text.replace('    repo: ./edge1.git\n', '    repo: ./edge1.git\n    branch: release\n    createBranch: true\n');
    const before = refsOf(repo('edge1'));
    const plan = await sync({}, {}, release);
    expect(plan.downstreams.find((d) => d.repository === 'edge1')).toMatchObject({
      action: 'invalid',
      detail: expect.stringMatching(/^Repository edge1 has no branch release in .*; create it first \(sync does not act on spec\.git\.createBranch: push a first commit to the branch\)$/),
    });
    expect(plan.downstreams.find((d) => d.repository === 'edge2')).toMatchObject({ action: 'create' });
    expect(refsOf(repo('edge1'))).toBe(before);
  });
});

describe('two teams sharing a deployment repository', () => {
  /** Team B's fleet: its own Repository objects and variants, in its own namespace, on the same repositories. */
  const teamB = (packages: string[]) => {
    const file = join(dir, 'team-b.yaml');
    const repository = (name: string) => `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: ${name}\n  namespace: team-b\nspec:\n  type: git\n  git:\n    repo: ./${name}.git\n`;
    const variant = (pkg: string) => `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: ${pkg}\n  namespace: team-b\nspec:\n  upstream: {repo: catalog, package: app, workspaceName: v1}\n  downstream: {repo: edge1, package: ${pkg}}\n`;
    writeFileSync(file, [repository('catalog'), repository('edge1'), ...packages.map(variant)].join('---\n'));
    return readSyncInputs([file]);
  };

  it("each team's run considers for deletion only the packages of owners in its own namespaces (issue 30)", async () => {
    await sync({ lifecycle: 'published' });
    const made = await planSync(teamB(['tools', 'extra']), settings({ lifecycle: 'published' }));
    expect(await writePlan(made.plan, made.remotes)).toEqual([]);
    expect(refsOf(repo('edge1'))).toMatch(/refs\/tags\/tools\/v1[\s\S]*refs\/tags\/extra\/v1|refs\/tags\/extra\/v1[\s\S]*refs\/tags\/tools\/v1/);

    // Team A's run sees team B's packages and leaves them out of its plan.
    const teamA = await planSync(fleet(), settings({ allowDelete: true }));
    expect(rows(teamA.plan.downstreams)).toEqual([
      ['edge1', 'unchanged'],
      ['edge2', 'unchanged'],
    ]);
    expect(teamA.plan.writes).toEqual([]);

    // Team B dropping a variant of its own still deletes that one package, and only it.
    const dropped = await planSync(teamB(['tools']), settings({ allowDelete: true }));
    expect(dropped.plan.downstreams.map((d) => [d.repository, d.pkg, d.action, d.variant])).toEqual([
      ['edge1', 'tools', 'unchanged', 'PackageVariant team-b/tools'],
      ['edge1', 'extra', 'delete', 'PackageVariant/team-b/extra'],
    ]);
  });
});

describe('identity is the downstream repository and package', () => {
  it('a set whose target is written another way keeps its downstreams as they are', async () => {
    await sync({ lifecycle: 'published' });
    const before = [refsOf(repo('edge1')), refsOf(repo('edge2'))];
    const renamed = (text: string) => text.replace('  - repositorySelector:\n      matchLabels:\n        tier: edge\n', '  - repositories:\n    - name: edge1\n    - name: edge2\n');
    const { plan } = await planSync(fleet({}, renamed), settings());
    expect(rows(plan.downstreams)).toEqual([
      ['edge1', 'unchanged'],
      ['edge2', 'unchanged'],
    ]);
    expect([refsOf(repo('edge1')), refsOf(repo('edge2'))]).toEqual(before);
  });
});
