/**
 * Issue 26, items 1, 2 and 6 on local bare repositories: what a person copies from a package sync
 * owns (`porchctl rpkg copy`, `rpkg edit`: a draft whose Kptfile carries sync's owner annotation) is
 * not sync's; sync owns the drafts it made and reads a package's owner from its latest published
 * revision; a package only on the branch is adopted with a first revision Porch would accept.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PlannedDownstream } from '../../src/sync/plan';
import { planSync } from '../../src/sync/run';
import type { SyncSettings } from '../../src/sync/settings';
import { fetchedKptfile, git } from '../pkg/git-repos';
import { configMap, kptfile, writeFiles, type Files } from '../pkg/trees';
import { discoverRevisions } from './porch-discovery';
import { catalogAndEdges, fleetInputs, messageOf, packageVariant, parentsOf, publish, refsOf, show, syncFleet, syncSettings, type FleetOptions } from './porch-repos';

jest.setTimeout(60_000);

let dir: string;
const repo = (name: string) => join(dir, `${name}.git`);

const settings = (over: Partial<SyncSettings> = {}): SyncSettings => syncSettings(dir, over);

const fleet = (options: FleetOptions = {}, edit?: (text: string) => string) => fleetInputs(dir, options, edit);

const us = (text: string) => text.replace('region: eu', 'region: us');
const adopt = { template: '      adoptionPolicy: adoptExisting\n' };

const sync = (over: Partial<SyncSettings> = {}, options: FleetOptions = {}, edit?: (text: string) => string) => syncFleet(dir, over, options, edit);

const entryOf = (entries: readonly PlannedDownstream[], repository: string) => entries.find((e) => e.repository === repository && e.pkg !== '')!;
const refOf = (edge: string, ref: string) => new RegExp(`${ref} (\\w+)`).exec(refsOf(repo(edge)))?.[1];

/** The files of `app` at `spec` in an edge repository, by path in the package. */
function packageFiles(edge: string, spec: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const path of git(['--git-dir', repo(edge), 'ls-tree', '-r', '--name-only', spec, 'app/']).split('\n')) files.set(path.slice('app/'.length), `${show(repo(edge), `${spec}:${path}`)}\n`);
  return files;
}

/** Commits `files` as `app` on top of `parent` in a clone of the edge repository and pushes it to `target`. */
function commitPackage(edge: string, parent: string, files: Files, message: string, target: string): string {
  const work = mkdtempSync(join(dir, 'work-'));
  git(['clone', '-q', repo(edge), work]);
  git(['checkout', '-q', '--detach', parent], work);
  git(['rm', '-rq', '--ignore-unmatch', 'app'], work);
  writeFiles(join(work, 'app'), files);
  git(['add', '-A'], work);
  git(['commit', '-q', '-m', message], work);
  git(['push', '-q', 'origin', `HEAD:${target}`], work);
  const commit = git(['rev-parse', 'HEAD'], work);
  rmSync(work, { recursive: true, force: true });
  return commit;
}

/**
 * A person's copy of a published revision of `app`, as Porch's `rpkg copy` writes it: a branch off
 * main whose commit holds the source's files as they are (Kptfile annotations included), changed by
 * `edit`, annotated with an edit task in the person's workspace.
 */
function personCopy(edge: string, workspace: string, edit: (files: Map<string, string>) => void, branch: 'drafts' | 'proposed' = 'drafts'): string {
  const files = packageFiles(edge, 'refs/tags/app/v1');
  edit(files);
  const annotation = JSON.stringify({ package: 'app', workspaceName: workspace, revision: '0', task: { type: 'edit', edit: { sourceRef: { name: `${edge}.app.packagevariant-1` } } } });
  return commitPackage(edge, 'main', Object.fromEntries(files), `Creating new revision by copying previous revision\n\nkpt:${annotation}`, `refs/heads/${branch}/app/${workspace}`);
}

const unreviewed = (files: Map<string, string>) => files.set('cm.yaml', files.get('cm.yaml')!.replace('x: "1"', 'x: "unreviewed"'));
const withoutOwnership = (files: Map<string, string>) => files.set('Kptfile', files.get('Kptfile')!.replace(/\n  annotations:\n(    package-variant\.github\.io\/.*\n)+/, '\n'));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-sync-own-'));
  catalogAndEdges(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a person's copy of a package sync owns", () => {
  it('is left alone when the variant changes: never written nor published; sync edits its own published revision beside it', async () => {
    await sync({ lifecycle: 'published' });
    const copy = personCopy('edge1', 'human-1', unreviewed);
    expect(show(repo('edge1'), `${copy}:app/Kptfile`)).toContain('package-variant.github.io/owner: PackageVariantSet/default/fleet');
    const plan = await sync({ lifecycle: 'published' }, {}, us);
    expect(entryOf(plan.downstreams, 'edge1')).toMatchObject({
      action: 'edit',
      detail: 'the variant changes edge1.app.packagevariant-1 (v1); left alone, not made by sync: draft edge1.app.human-1',
      refs: ['main', 'tag app/v2'],
    });
    expect(refOf('edge1', 'refs/heads/drafts/app/human-1')).toBe(copy);
    expect(show(repo('edge1'), 'app/v2:app/package-context.yaml')).toContain('region: us');
    expect(show(repo('edge1'), 'app/v2:app/cm.yaml')).not.toContain('unreviewed');
    expect(discoverRevisions(repo('edge1'), 'edge1')).toContainEqual(expect.objectContaining({ name: 'edge1.app.packagevariant-2', lifecycle: 'Published', revision: 2, firstTask: 'edit' }));
  });

  it('is no reason for blocked when the upstream moves: sync upgrades its published revision in its own next draft', async () => {
    await sync({ lifecycle: 'published' });
    const draft = personCopy('edge1', 'human-1', unreviewed);
    const proposal = personCopy('edge1', 'human-2', unreviewed, 'proposed');
    publish(repo('catalog'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }) });
    const plan = await sync({}, { workspace: 'v2' });
    expect(entryOf(plan.downstreams, 'edge1')).toMatchObject({
      action: 'upgrade',
      detail: 'app/v1 -> app/v2 from edge1.app.packagevariant-1 (v1); left alone, not made by sync: proposal edge1.app.human-2, draft edge1.app.human-1',
      refs: ['drafts/app/packagevariant-2'],
    });
    expect(refOf('edge1', 'refs/heads/drafts/app/human-1')).toBe(draft);
    expect(refOf('edge1', 'refs/heads/proposed/app/human-2')).toBe(proposal);
    expect(show(repo('edge1'), 'drafts/app/packagevariant-2:app/cm.yaml')).toContain('x: "2"');
  });

  it('without the ownership annotations does not make the package owned by no variant: the owner is read from the latest published revision', async () => {
    await sync({ lifecycle: 'published' });
    const copy = personCopy('edge1', 'human-1', withoutOwnership);
    expect(show(repo('edge1'), `${copy}:app/Kptfile`)).not.toContain('package-variant.github.io');
    const { plan } = await planSync(fleet(), settings());
    expect(entryOf(plan.downstreams, 'edge1')).toMatchObject({ action: 'unchanged', detail: 'left alone, not made by sync: draft edge1.app.human-1' });
  });

  it('in a workspace named packagevariant-N is still not sync\'s: sync writes packagevariant-N+1 beside it', async () => {
    await sync({ lifecycle: 'published' });
    const copy = personCopy('edge1', 'packagevariant-2', unreviewed);
    const plan = await sync({}, {}, us);
    expect(entryOf(plan.downstreams, 'edge1')).toMatchObject({ action: 'edit', refs: ['drafts/app/packagevariant-3'] });
    expect(refOf('edge1', 'refs/heads/drafts/app/packagevariant-2')).toBe(copy);
  });

  it('is passed over by rpkg propose --all, which proposes the drafts sync made', async () => {
    await sync({ lifecycle: 'published' });
    await sync({}, {}, us);
    const copy = personCopy('edge1', 'human-1', unreviewed);
    const proposed = packageVariant(dir, ['rpkg', 'propose', '--all', '-f', 'fleet.yaml']);
    expect(proposed.code).toBe(4);
    expect(proposed.stdout).not.toContain('human-1');
    expect(refOf('edge1', 'refs/heads/drafts/app/human-1')).toBe(copy);
    expect(refOf('edge1', 'refs/heads/proposed/app/packagevariant-2')).toBeDefined();
  });

  it('stays when sync deletes the package its variant no longer asks for', async () => {
    await sync({ lifecycle: 'published' });
    const copy = personCopy('edge2', 'human-1', unreviewed);
    const dropEdge2 = (text: string) => text.replace(/(name: edge2\n  labels:\n    tier: )edge/, '$1retired');
    const plan = await sync({ allowDelete: true }, {}, dropEdge2);
    expect(entryOf(plan.downstreams, 'edge2')).toMatchObject({ action: 'delete', refs: ['deletionProposed/app/v1'] });
    expect(refOf('edge2', 'refs/heads/drafts/app/human-1')).toBe(copy);
  });
});

describe('a draft sync made', () => {
  it('stays its own when a person adds a commit to it, and is published with that commit', async () => {
    await sync();
    const draft = refOf('edge1', 'refs/heads/drafts/app/packagevariant-1')!;
    const files = packageFiles('edge1', draft);
    unreviewed(files);
    const edited = commitPackage('edge1', draft, Object.fromEntries(files), 'edge1: reviewed by hand', 'refs/heads/drafts/app/packagevariant-1');
    const plan = await sync({ lifecycle: 'published' });
    expect(entryOf(plan.downstreams, 'edge1')).toMatchObject({ action: 'publish', detail: 'draft edge1.app.packagevariant-1' });
    const tag = refOf('edge1', 'refs/tags/app/v1')!;
    expect(parentsOf(repo('edge1'), tag)[1]).toBe(edited);
  });

  it('records that sync made it in the commit that starts it, a line after the kpt: annotation that Porch passes over', async () => {
    await sync();
    const [clone] = parentsOf(repo('edge1'), refOf('edge1', 'refs/heads/drafts/app/packagevariant-1')!);
    expect(messageOf(repo('edge1'), clone!)).toMatch(/^Creating new revision by cloning\n\n\nkpt:\{.*"task":\{"type":"clone".*\}\nMade-by: package-variant sync$/);
  });
});

describe('adopting a package that is only on the branch', () => {
  /** `app` committed on edge1's main, no revision of it tagged. */
  const onBranch = (files: Files) =>
    commitPackage('edge1', 'main', { ...files, 'package-context.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  name: app\n' }, 'app by hand', 'refs/heads/main');
  const catalogV1 = () => git(['--git-dir', repo('catalog'), 'rev-parse', 'refs/tags/app/v1']);
  const firstTask = (edge: string, workspace: string) => {
    const log = git(['--git-dir', repo(edge), 'log', '--format=%B', `drafts/app/${workspace}`]).split('\n');
    return JSON.parse(log.find((line) => line.startsWith('kpt:') && /"type":"(clone|init|edit|upgrade)"/.test(line))!.slice(4)).task;
  };

  it('starts from an init when the package records no upstream, and says so', async () => {
    onBranch({ Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: 'by hand' }) });
    const plan = await sync({}, adopt);
    expect(entryOf(plan.downstreams, 'edge1')).toMatchObject({
      action: 'edit',
      detail: 'adopts it, recording its ownership; the variant changes app on branch main, which has no revision: a first revision by init (it records no upstream)',
    });
    expect(firstTask('edge1', 'packagevariant-1')).toEqual({ type: 'init', init: {} });
    expect(discoverRevisions(repo('edge1'), 'edge1')).toContainEqual(expect.objectContaining({ name: 'edge1.app.packagevariant-1', lifecycle: 'Draft', firstTask: 'init' }));
  });

  it('starts from a clone of the upstream it records when current, and of the new upstream when upgraded', async () => {
    onBranch({ Kptfile: fetchedKptfile('app', repo('catalog'), 'app', 'app/v1', catalogV1()), 'cm.yaml': configMap('cm', { x: '1', y: 'local' }) });
    const current = await sync({}, adopt);
    expect(entryOf(current.downstreams, 'edge1').detail).toBe('adopts it, recording its ownership; the variant changes app on branch main, which has no revision: a first revision by clone of catalog.app.v1');
    expect(firstTask('edge1', 'packagevariant-1')).toEqual({ type: 'clone', clone: { upstreamRef: { upstreamRef: { name: 'catalog.app.v1' } } } });

    git(['--git-dir', repo('edge1'), 'branch', '-D', 'drafts/app/packagevariant-1']);
    publish(repo('catalog'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }) });
    const upgraded = await sync({}, { ...adopt, workspace: 'v2' });
    expect(entryOf(upgraded.downstreams, 'edge1').detail).toBe('adopts it, recording its ownership; app/v1 -> app/v2 from app on branch main, which has no revision: a first revision by clone of catalog.app.v2');
    expect(firstTask('edge1', 'packagevariant-1')).toEqual({ type: 'clone', clone: { upstreamRef: { upstreamRef: { name: 'catalog.app.v2' } } } });
    const cm = show(repo('edge1'), 'drafts/app/packagevariant-1:app/cm.yaml');
    expect(cm).toContain('x: "2"');
    expect(cm).toContain('y: "local"');
  });
});
