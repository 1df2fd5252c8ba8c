/**
 * The reverse direction (issue 28): repositories that Porch's own code wrote (the judge's engine:
 * clone, copy, upgrade, propose, approve, propose deletion), read by sync. For each layout sync's
 * reading of the repository is Porch's listing of it, and sync does with it what it does with its
 * own: leaves a package it does not own alone, adopts it when asked, upgrades from a person's copy.
 * Skipped, with one line, without Go.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_TIMEOUTS } from '../../src/git/run-git';
import { readSyncInputs } from '../../src/sync/inputs';
import { gitRemotes } from '../../src/sync/remotes';
import { tagListing, readPackageStates } from '../../src/sync/repository-state';
import { planSync } from '../../src/sync/run';
import { configMap, kptfile } from '../pkg/trees';
import { catalogAndEdges, emptyRepository, GIT_ENV, publish, syncSettings, writeFleet } from '../sync/porch-repos';
import { describeWithJudge, porchList, porchWrite, writeRepositories, type JudgedRepository } from './judge';
import { JudgeSession } from './session';

let dir: string;
let file: string;
let cache: string;
let repositories: JudgedRepository[];
const repo = (name: string) => join(dir, `${name}.git`);
/** A write by Porch's engine. */
const porch = (...args: string[]) => porchWrite(file, cache, args);

/** What sync reads of a repository, in Porch's terms: every package revision's name, lifecycle, revision, workspace. */
async function syncReading(repository: JudgedRepository): Promise<string[]> {
  const remotes = gitRemotes({ env: { ...GIT_ENV, PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache') }, timeouts: DEFAULT_TIMEOUTS, notify: () => undefined });
  const syncRepository = { name: repository.name, namespace: 'default', labels: {}, url: repository.path, branch: repository.branch ?? 'main', directory: repository.directory ?? '', deployment: repository.deployment ?? false, createBranch: false, where: 'test', base: dir };
  const reader = await (await remotes(syncRepository)).read();
  let states: Awaited<ReturnType<typeof readPackageStates>>['states'];
  try {
    ({ states } = await readPackageStates(reader, syncRepository, await tagListing(reader), new Set()));
  } finally {
    // Its `cat-file` would otherwise outlive the test and keep jest's worker from exiting.
    await reader.close();
  }
  const directory = repository.directory ? `${repository.directory}/` : '';
  const nameOf = (pkgpath: string, workspace: string) => `${repository.name}.${pkgpath.slice(directory.length).split('/').join('.')}.${workspace}`;
  const lifecycle = { draft: 'Draft', proposed: 'Proposed', published: 'Published' } as const;
  return [...states.values()]
    .flatMap((state) => [...state.revisions, ...(state.branch ? [state.branch] : [])].map((r) => `${nameOf(state.pkgpath, r.workspace)} ${r.deletionProposed ? 'DeletionProposed' : lifecycle[r.lifecycle]} ${r.revision}`))
    .sort();
}

/** Porch's listing of the same repository, in the same terms. */
function porchReading(repository: JudgedRepository): string[] {
  const listed = porchList(file, cache).repositories.find((r) => r.name === repository.name)!.packageRevisions;
  return listed.map((r) => `${r.name} ${r.lifecycle} ${r.revision}`).sort();
}

function register(more: JudgedRepository[] = []): void {
  repositories = [{ name: 'catalog', path: repo('catalog') }, { name: 'edge1', path: repo('edge1'), deployment: true }, ...more];
  file = writeRepositories(dir, repositories);
  cache = join(dir, 'porch-cache');
}

const edge1 = () => repositories.find((r) => r.name === 'edge1')!;
const adoptingVariant = (adoption: string) =>
  `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata: {name: catalog}\nspec: {type: git, git: {repo: ./catalog.git}}\n---\napiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata: {name: edge1}\nspec: {type: git, deployment: true, git: {repo: ./edge1.git}}\n---\napiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata: {name: app}\nspec:\n  upstream: {repo: catalog, package: app, revision: 1}\n  downstream: {repo: edge1, package: app}\n  adoptionPolicy: ${adoption}\n`;
const variantFile = (adoption: string) => {
  const path = join(dir, 'variant.yaml');
  writeFileSync(path, adoptingVariant(adoption));
  return readSyncInputs([path]);
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-porch-writes-'));
  catalogAndEdges(dir, ['edge1']);
  register();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describeWithJudge('sync reads what Porch wrote as Porch reads it', 'sync on repositories Porch wrote (test/porch-judge/porch-writes.test.ts)', () => {
  it("a draft Porch cloned: the same package revisions; sync leaves it alone, a draft it did not make", async () => {
    expect(porch('clone', 'edge1', 'app', 'ws1', 'catalog.app.v1')).toMatchObject({ name: 'edge1.app.ws1', lifecycle: 'Draft', tasks: [{ type: 'clone' }] });
    expect(await syncReading(edge1())).toEqual(porchReading(edge1()));
    expect(await syncReading(edge1())).toEqual(['edge1.app.ws1 Draft 0']);
    const { plan } = await planSync(variantFile('adoptNone'), syncSettings(dir));
    expect(plan.downstreams.map((d) => [d.action, d.detail])).toEqual([['conflict', expect.stringContaining("draft ws1 is not sync's")]]);
    expect(plan.writes).toEqual([]);
  }, 120_000);

  it('a proposal Porch made: the same package revisions', async () => {
    porch('clone', 'edge1', 'app', 'ws1', 'catalog.app.v1');
    expect(porch('lifecycle', 'edge1.app.ws1', 'Proposed')).toMatchObject({ lifecycle: 'Proposed' });
    expect(await syncReading(edge1())).toEqual(porchReading(edge1()));
    expect(await syncReading(edge1())).toEqual(['edge1.app.ws1 Proposed 0']);
  }, 120_000);

  it("a revision Porch published: the same package revisions; sync adopts it with adoptExisting and --adopt-now, its edit draft copied from Porch's revision", async () => {
    porch('clone', 'edge1', 'app', 'ws1', 'catalog.app.v1');
    porch('lifecycle', 'edge1.app.ws1', 'Proposed');
    expect(porch('lifecycle', 'edge1.app.ws1', 'Published')).toMatchObject({ lifecycle: 'Published', revision: 1 });
    expect(await syncReading(edge1())).toEqual(porchReading(edge1()));
    expect(await syncReading(edge1())).toEqual(['edge1.app.main Published -1', 'edge1.app.ws1 Published 1']);
    const session = new JudgeSession(dir, repositories);
    const adoptable = await session.sync('adoptable', variantFile('adoptExisting'), syncSettings(dir));
    expect(adoptable.plan.downstreams.map((d) => [d.action, d.detail])).toEqual([['unchanged', expect.stringMatching(/^adoptable: /)]]);
    const { plan } = await session.sync('adopt now', variantFile('adoptExisting'), syncSettings(dir, { adoptNow: true }));
    expect(plan.downstreams.map((d) => d.action)).toEqual(['edit']);
    expect(session.differences).toEqual([]);
    const listed = porchList(file, cache).repositories.find((r) => r.name === 'edge1')!.packageRevisions;
    expect(listed.find((r) => r.name === 'edge1.app.packagevariant-1')).toMatchObject({ lifecycle: 'Draft', tasks: [{ type: 'edit', edit: { sourceRef: { name: 'edge1.app.ws1' } } }] });
  }, 120_000);

  it('a deletion Porch proposed: the same package revisions, the revision DeletionProposed', async () => {
    porch('clone', 'edge1', 'app', 'ws1', 'catalog.app.v1');
    porch('lifecycle', 'edge1.app.ws1', 'Published');
    expect(porch('lifecycle', 'edge1.app.ws1', 'DeletionProposed')).toMatchObject({ lifecycle: 'DeletionProposed' });
    expect(await syncReading(edge1())).toEqual(porchReading(edge1()));
    expect(await syncReading(edge1())).toEqual(['edge1.app.main Published -1', 'edge1.app.ws1 DeletionProposed 1']);
  }, 120_000);

  it("a person's copy in Porch (the edit task, a changed file, approved): the same package revisions; sync upgrades from it, keeping the change", async () => {
    const session = new JudgeSession(dir, repositories);
    await session.sync('publish', readSyncInputs([writeFleet(dir, { edges: ['edge1'] })]), syncSettings(dir, { lifecycle: 'published' }));
    expect(porch('copy', 'edge1', 'app', 'manual-1', 'edge1.app.packagevariant-1')).toMatchObject({ lifecycle: 'Draft', tasks: [{ type: 'edit', edit: { sourceRef: { name: 'edge1.app.packagevariant-1' } } }] });
    const listed = porchList(file, cache, true).repositories.find((r) => r.name === 'edge1')!.packageRevisions;
    const cm = listed.find((r) => r.name === 'edge1.app.manual-1')!.resources!['cm.yaml']!;
    writeFileSync(join(dir, 'cm.yaml'), cm.replace('  name: cm\n', '  name: cm\n  labels:\n    team: a\n'));
    porch('push', 'edge1.app.manual-1', `cm.yaml=${join(dir, 'cm.yaml')}`);
    expect(porch('lifecycle', 'edge1.app.manual-1', 'Published')).toMatchObject({ revision: 2 });
    expect(await syncReading(edge1())).toEqual(porchReading(edge1()));
    publish(repo('catalog'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }) });
    const { plan } = await session.sync('upgrade', readSyncInputs([writeFleet(dir, { edges: ['edge1'], workspace: 'v2' })]), syncSettings(dir));
    expect(plan.downstreams.map((d) => [d.action, d.detail])).toEqual([['upgrade', expect.stringContaining('from edge1.app.manual-1 (v2)')]]);
    expect(session.differences).toEqual([]);
    const upgraded = porchList(file, cache, true).repositories.find((r) => r.name === 'edge1')!.packageRevisions.find((r) => r.name === 'edge1.app.packagevariant-2')!;
    expect(upgraded.resources!['cm.yaml']).toMatch(/team: a[\s\S]*x: "2"/);
  }, 180_000);

  it("an upgrade Porch made of sync's revision: the same package revisions; the draft is not sync's, which upgrades in a draft of its own beside it", async () => {
    const session = new JudgeSession(dir, repositories);
    await session.sync('publish', readSyncInputs([writeFleet(dir, { edges: ['edge1'] })]), syncSettings(dir, { lifecycle: 'published' }));
    publish(repo('catalog'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }) });
    expect(porch('upgrade', 'edge1', 'app', 'packagevariant-2', 'catalog.app.v1', 'catalog.app.v2', 'edge1.app.packagevariant-1')).toMatchObject({ lifecycle: 'Draft', tasks: [{ type: 'upgrade' }] });
    expect(await syncReading(edge1())).toEqual(porchReading(edge1()));
    const { plan } = await session.sync('after Porch upgraded', readSyncInputs([writeFleet(dir, { edges: ['edge1'], workspace: 'v2' })]), syncSettings(dir));
    expect(plan.downstreams.map((d) => [d.action, d.detail, d.refs])).toEqual([
      ['upgrade', expect.stringContaining('left alone, not made by sync: draft edge1.app.packagevariant-2'), ['drafts/app/packagevariant-3']],
    ]);
    expect(session.differences).toEqual([]);
  }, 180_000);

  it('a Repository with spec.git.directory: the same package revisions under the directory', async () => {
    emptyRepository(repo('edge9'));
    register([{ name: 'edge9', path: repo('edge9'), directory: 'clusters', deployment: true }]);
    porch('clone', 'edge9', 'app', 'ws1', 'catalog.app.v1');
    porch('lifecycle', 'edge9.app.ws1', 'Published');
    const edge9 = repositories.find((r) => r.name === 'edge9')!;
    expect(await syncReading(edge9)).toEqual(porchReading(edge9));
    expect(await syncReading(edge9)).toEqual(['edge9.app.main Published -1', 'edge9.app.ws1 Published 1']);
  }, 120_000);
});
