/**
 * Every sync scenario of the test suite, replayed under the judge: the same fixture repositories
 * (porch-repos.ts, design-fleet.ts, the demo's and the real package's), the same runs of sync, with
 * Porch's listing compared after every step. Each scenario names the test it replays.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIRROR_HINT, mirrorGitDir, mirrorRoot, repositoryOf } from '../../scripts/lib/git-trees.cjs';
import { readSyncInputs } from '../../src/sync/inputs';
import { planSync, writePlan } from '../../src/sync/run';
import type { SyncSettings } from '../../src/sync/settings';
import { REPO_ROOT } from '../helpers';
import { git } from '../pkg/git-repos';
import { configMap, kptfile, type Files } from '../pkg/trees';
import { designFleet, syncedDesignScenarios } from '../sync/design-fleet';
import { catalogAndEdges, emptyRepository, publish, show, syncSettings, writeFleet, type FleetOptions } from '../sync/porch-repos';
import { JudgeSession } from './session';

export interface JudgeScenario {
  readonly name: string;
  /** The sync test it replays. */
  readonly replays: string;
  /** Why it cannot run here, where it cannot. */
  readonly unavailable?: string;
  readonly run: (dir: string) => Promise<JudgeSession>;
}

const repo = (dir: string, name: string) => join(dir, `${name}.git`);
const settings = (dir: string, over: Partial<SyncSettings> = {}) => syncSettings(dir, over);

/** The catalog and edge repositories of writeFleet's fleet, as Porch is given them. */
function fleetSession(dir: string, edges: readonly string[] = ['edge1', 'edge2']): JudgeSession {
  return new JudgeSession(dir, [{ name: 'catalog', path: repo(dir, 'catalog') }, ...edges.map((name) => ({ name, path: repo(dir, name), deployment: true }))]);
}

/** writeFleet's fleet, its text edited by `edit`, as sync reads it. */
function fleet(dir: string, options: FleetOptions = {}, edit: (text: string) => string = (t) => t) {
  const file = writeFleet(dir, options);
  writeFileSync(file, edit(readFileSync(file, 'utf8')));
  return readSyncInputs([file]);
}

const regionUs = (text: string) => text.replace('region: eu', 'region: us');
const dropEdge2 = (text: string) => text.replace(/(name: edge2\n  labels:\n    tier: )edge/, '$1retired');
const adopt = { template: '      adoptionPolicy: adoptExisting\n' };
const orphan = { template: '      deletionPolicy: orphan\n' };
const APP_V2: Files = { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }), 'deploy.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  replicas: 1\n' };

/** The files of `pkgpath` at `ref` of a bare repository, by their path in the package. */
function filesAt(path: string, ref: string, pkgpath: string): Record<string, string> {
  const paths = git(['--git-dir', path, 'ls-tree', '-r', '--name-only', ref, `${pkgpath}/`]).split('\n').filter(Boolean);
  return Object.fromEntries(paths.map((p) => [p.slice(pkgpath.length + 1), `${show(path, `${ref}:${p}`)}\n`]));
}

/** A person's edit of a published downstream, as Porch records one: the previous revision copied, changed, approved under `workspace`. */
function publishByHand(path: string, revision: number, workspace: string, edit: (files: Record<string, string>) => void): void {
  const files = filesAt(path, `refs/tags/app/v${revision - 1}`, 'app');
  edit(files);
  publish(path, 'app', revision, files, workspace);
}
const teamA = (files: Record<string, string>) => {
  files['cm.yaml'] = files['cm.yaml']!.replace('  name: cm\n', '  name: cm\n  labels:\n    team: a\n');
};

/** A package published by hand where the set would put its own. */
const handMade = (path: string, region: string) =>
  publish(path, 'app', 1, {
    Kptfile: kptfile('app'),
    'cm.yaml': configMap('cm', { x: 'by hand' }),
    'package-context.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  name: app\n  region: ${region}\n`,
  });

/** A person's commit on a draft branch, as the demo and the real package's test make one. */
function editDraft(dir: string, path: string, branch: string, file: string, from: string, to: string): void {
  const work = join(dir, `work-${Math.random().toString(36).slice(2)}`);
  git(['clone', '-q', '-b', branch, path, work]);
  writeFileSync(join(work, file), readFileSync(join(work, file), 'utf8').replace(from, to));
  git(['-C', work, 'commit', '-qam', `edit ${file}`]);
  git(['-C', work, 'push', '-q', 'origin', 'HEAD']);
}

/** A planted difference, to show that the judge fails: a published tag renumbered behind sync's back. */
export function renumberTag(path: string, pkgpath: string, from: number, to: number): void {
  git(['--git-dir', path, 'tag', `${pkgpath}/v${to}`, `refs/tags/${pkgpath}/v${from}`]);
  git(['--git-dir', path, 'tag', '-d', `${pkgpath}/v${from}`]);
}

const lifecycleScenarios: JudgeScenario[] = [
  {
    name: 'create: a draft in each selected repository, then a second run with nothing to do',
    replays: 'sync-run.test.ts: sync creates drafts',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      await j.sync('create', fleet(dir), settings(dir));
      await j.sync('second run', fleet(dir), settings(dir));
      return j;
    },
  },
  {
    name: 'publish: an approval merge commit and a tag',
    replays: 'sync-run.test.ts: publishes with an approval merge commit and a tag',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      // npm run porch-judge -- --plant-wrong-revision: the judge must fail here.
      const plant = process.env.PORCH_JUDGE_PLANT === 'wrong-revision' ? () => renumberTag(repo(dir, 'edge1'), 'app', 1, 7) : undefined;
      await j.sync('publish', fleet(dir), settings(dir, { lifecycle: 'published' }), plant);
      return j;
    },
  },
  {
    name: 'upgrade: the new upstream merged into the latest published revision, a local edit kept',
    replays: 'sync-run.test.ts: merges the new upstream into the latest published revision',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      await j.sync('publish v1', fleet(dir), settings(dir, { lifecycle: 'published' }));
      publishByHand(repo(dir, 'edge1'), 2, 'manual-1', teamA);
      publish(repo(dir, 'catalog'), 'app', 2, APP_V2);
      j.check('an edit published by hand, the catalog at v2');
      await j.sync('upgrade', fleet(dir, { workspace: 'v2' }), settings(dir));
      return j;
    },
  },
  {
    name: 'upgrade, published: from one published revision to the next',
    replays: 'sync-kpt.test.ts: kpt pkg get and kpt pkg update of what sync publishes',
    run: async (dir) => {
      catalogAndEdges(dir, ['edge1']);
      const j = fleetSession(dir, ['edge1']);
      await j.sync('publish v1', fleet(dir, { edges: ['edge1'] }), settings(dir, { lifecycle: 'published' }));
      publish(repo(dir, 'catalog'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }) });
      await j.sync('publish the upgrade to v2', fleet(dir, { edges: ['edge1'], workspace: 'v2' }), settings(dir, { lifecycle: 'published' }));
      return j;
    },
  },
  {
    name: 'blocked: an owned draft when the upstream moves, nothing written',
    replays: 'sync-run.test.ts: is blocked by an owned draft when the upstream moves',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      await j.sync('create', fleet(dir), settings(dir));
      publish(repo(dir, 'catalog'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }) });
      await j.sync('blocked', fleet(dir, { workspace: 'v2' }), settings(dir));
      return j;
    },
  },
  {
    name: 'a repository whose refs moved between fetch and push, left as the other writer left it',
    replays: 'sync-run.test.ts: leaves a repository whose refs moved between fetch and push',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      const planned = await planSync(fleet(dir), settings(dir, { lifecycle: 'published' }));
      publish(repo(dir, 'edge1'), 'other', 1, { Kptfile: kptfile('other') });
      await writePlan(planned.plan, planned.remotes);
      j.check('edge1 refused, edge2 published');
      return j;
    },
  },
  {
    name: 'edit: a published revision copied, then the mutations',
    replays: 'sync-run.test.ts: edits a published revision when the variant changes',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      await j.sync('publish', fleet(dir), settings(dir, { lifecycle: 'published' }));
      await j.sync('edit', fleet(dir, {}, regionUs), settings(dir));
      return j;
    },
  },
  {
    name: 'update and propose: a render commit on the draft, proposed in the same push that removes the draft branch',
    replays: 'sync-run.test.ts: adds a render commit to its draft when the variant changes, and proposes it',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      await j.sync('create', fleet(dir), settings(dir));
      await j.sync('update and propose', fleet(dir, {}, regionUs), settings(dir, { lifecycle: 'proposed' }));
      await j.sync('blocked by the proposal', fleet(dir), settings(dir, { lifecycle: 'proposed' }));
      await j.sync('publish the proposal', fleet(dir, {}, regionUs), settings(dir, { lifecycle: 'published' }));
      return j;
    },
  },
  {
    name: 'conflict: a package no variant owns, left alone (adoptNone)',
    replays: 'sync-run.test.ts and sync-fleet.test.ts: a package it does not own; adoptNone',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      handMade(repo(dir, 'edge1'), 'us');
      await j.sync('conflict', fleet(dir), settings(dir));
      return j;
    },
  },
  {
    name: 'adoption: adoptExisting takes a hand-made package over with the revision the mutations make',
    replays: 'sync-fleet.test.ts: adoptExisting takes it over',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      handMade(repo(dir, 'edge1'), 'us');
      await j.sync('adopt', fleet(dir, adopt), settings(dir));
      await j.sync('owned: nothing to do', fleet(dir, adopt), settings(dir));
      await j.sync('publish the adoption', fleet(dir, adopt), settings(dir, { lifecycle: 'published' }));
      return j;
    },
  },
  {
    name: 'adoption: --adopt-now records the ownership only',
    replays: 'sync-fleet.test.ts: with nothing to change, records the ownership only with --adopt-now',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      handMade(repo(dir, 'edge1'), 'eu');
      await j.sync('adoptable', fleet(dir, adopt), settings(dir));
      await j.sync('adopt now', fleet(dir, adopt), settings(dir, { adoptNow: true }));
      return j;
    },
  },
  {
    name: 'adoption: never of a package another variant owns',
    replays: 'sync-fleet.test.ts: never adopts a package another variant owns',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      await j.sync('publish', fleet(dir), settings(dir, { lifecycle: 'published' }));
      const other = `---\napiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: other\nspec:\n  upstream: {repo: catalog, package: app, revision: 1}\n  downstream: {repo: edge1, package: app}\n  adoptionPolicy: adoptExisting\n`;
      await j.sync('another variant', fleet(dir, {}, (text) => dropEdge2(text).replace(/tier: edge/, 'tier: none') + other), settings(dir));
      return j;
    },
  },
  {
    name: 'deletion: listed without --allow-delete, nothing written',
    replays: 'sync-fleet.test.ts: without --allow-delete lists what would go',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      await j.sync('publish', fleet(dir), settings(dir, { lifecycle: 'published' }));
      await j.sync('a target goes', fleet(dir, {}, dropEdge2), settings(dir));
      return j;
    },
  },
  {
    name: 'deletion: drafts removed, deletion proposed, taken back, proposed again and approved',
    replays: 'sync-fleet.test.ts: delete: drafts go and deletion is proposed; --approve-deletions',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      await j.sync('publish', fleet(dir), settings(dir, { lifecycle: 'published' }));
      await j.sync('a draft of the edit', fleet(dir, {}, regionUs), settings(dir));
      await j.sync('deletion proposed', fleet(dir, {}, (text) => dropEdge2(regionUs(text))), settings(dir, { allowDelete: true }));
      await j.sync('asked for again', fleet(dir), settings(dir));
      await j.sync('deletion proposed again', fleet(dir, {}, dropEdge2), settings(dir, { allowDelete: true }));
      await j.sync('deletion approved', fleet(dir, {}, dropEdge2), settings(dir, { approveDeletions: true }));
      return j;
    },
  },
  {
    name: 'deletion: proposed and approved in one run',
    replays: 'sync-fleet.test.ts: --allow-delete with --approve-deletions',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      await j.sync('publish', fleet(dir), settings(dir, { lifecycle: 'published' }));
      await j.sync('deleted', fleet(dir, {}, dropEdge2), settings(dir, { allowDelete: true, approveDeletions: true }));
      return j;
    },
  },
  {
    name: 'orphan: everything stays, the ownership record goes',
    replays: 'sync-fleet.test.ts: orphan',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      await j.sync('publish', fleet(dir, orphan), settings(dir, { lifecycle: 'published' }));
      await j.sync('orphaned', fleet(dir, orphan, dropEdge2), settings(dir, { allowDelete: true }));
      await j.sync('nothing more to do', fleet(dir, orphan, dropEdge2), settings(dir, { allowDelete: true }));
      return j;
    },
  },
  {
    name: 'a set whose target is written another way keeps its downstreams',
    replays: 'sync-fleet.test.ts: identity is the downstream repository and package',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      await j.sync('publish', fleet(dir), settings(dir, { lifecycle: 'published' }));
      const renamed = (text: string) => text.replace('  - repositorySelector:\n      matchLabels:\n        tier: edge\n', '  - repositories:\n    - name: edge1\n    - name: edge2\n');
      await j.sync('targets renamed', fleet(dir, {}, renamed), settings(dir));
      return j;
    },
  },
  {
    name: 'blocked by a draft made by hand, the other repository upgraded',
    replays: 'sync-cli.test.ts: exits 5 when a downstream is blocked, doing the others',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      await j.sync('publish', fleet(dir), settings(dir, { lifecycle: 'published' }));
      git(['--git-dir', repo(dir, 'edge1'), 'branch', 'drafts/app/packagevariant-9', 'refs/tags/app/v1']);
      publish(repo(dir, 'catalog'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }) });
      j.check('a draft branch made by hand');
      await j.sync('upgrade', fleet(dir, { workspace: 'v2' }), settings(dir));
      return j;
    },
  },
  {
    name: "--status-out: a valid variant, an invalid one, a blocked one, and the set",
    replays: "sync-cli.test.ts: writes Porch's conditions",
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      await j.sync('create', fleet(dir), settings(dir));
      publish(repo(dir, 'catalog'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }) });
      const more = `---\napiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: broken\nspec:\n  upstream: {repo: catalog, package: app, revision: 1}\n  downstream: {repo: edge1}\n---\napiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: single\nspec:\n  upstream: {repo: catalog, package: app, revision: 2}\n  downstream: {repo: edge2, package: single}\n`;
      await j.sync('status', fleet(dir, { workspace: 'v2' }, (text) => text + more), settings(dir));
      return j;
    },
  },
  {
    name: 'a push a repository turns down: its variants not Ready, the others written',
    replays: 'sync-cli.test.ts: is written after the push',
    run: async (dir) => {
      catalogAndEdges(dir);
      const j = fleetSession(dir);
      writeFileSync(join(repo(dir, 'edge1'), 'hooks', 'pre-receive'), '#!/bin/sh\necho "edge1 is frozen" >&2\nexit 1\n');
      chmodSync(join(repo(dir, 'edge1'), 'hooks', 'pre-receive'), 0o755);
      await j.sync('edge1 frozen', fleet(dir), settings(dir));
      return j;
    },
  },
  {
    name: "porch-lifecycle.md §11.9's walk over three repositories",
    replays: 'sync-walk.test.ts',
    run: async (dir) => {
      const edges = ['edge1', 'edge2', 'edge3'];
      catalogAndEdges(dir, edges);
      const j = fleetSession(dir, edges);
      await j.sync('create', fleet(dir, { edges }), settings(dir));
      await j.sync('nothing to do', fleet(dir, { edges }), settings(dir));
      await j.sync('approve', fleet(dir, { edges }), settings(dir, { lifecycle: 'published' }));
      const base = 'refs/tags/app/v1';
      const files = filesAt(repo(dir, 'edge1'), base, 'app');
      teamA(files);
      publish(repo(dir, 'edge1'), 'app', 2, files, 'manual-1');
      publish(repo(dir, 'catalog'), 'app', 2, APP_V2);
      j.check('an edit published by hand, the catalog at v2');
      await j.sync('upgrade', fleet(dir, { edges, workspace: 'v2' }), settings(dir));
      publish(repo(dir, 'catalog'), 'app', 3, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '3' }) });
      await j.sync('blocked by the drafts', fleet(dir, { edges, workspace: 'v3' }), settings(dir));
      return j;
    },
  },
  {
    name: 'a fleet of nine: published everywhere, then upgraded where still selected and deleted elsewhere',
    replays: 'sync-shard.test.ts',
    run: async (dir) => {
      const edges = Array.from({ length: 9 }, (_, i) => `edge${i}`);
      catalogAndEdges(dir, edges);
      publish(repo(dir, 'catalog'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }) });
      const j = fleetSession(dir, edges);
      await j.sync('publish', fleet(dir, { edges }), settings(dir, { lifecycle: 'published' }));
      const retire = (text: string) => edges.filter((_, i) => i % 3 === 0).reduce((t, edge) => t.replace(`name: ${edge}\n  labels:\n    tier: edge`, `name: ${edge}\n  labels:\n    tier: retired`), text);
      await j.sync('upgrade six, delete three', fleet(dir, { edges, workspace: 'v2' }, retire), settings(dir, { allowDelete: true }));
      return j;
    },
  },
  {
    name: 'subpackages: a package with a subpackage created, published and upgraded',
    replays: 'the subpackage rules of README "Packages and subpackages", through sync',
    run: async (dir) => {
      catalogAndEdges(dir, ['edge1']);
      const withDb = (x: string): Files => ({ Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x }), 'db/Kptfile': kptfile('db'), 'db/db.yaml': configMap('db', { size: x }) });
      publish(repo(dir, 'catalog'), 'app', 2, withDb('1'));
      const j = fleetSession(dir, ['edge1']);
      await j.sync('publish with a subpackage', fleet(dir, { edges: ['edge1'], workspace: 'v2' }), settings(dir, { lifecycle: 'published' }));
      publish(repo(dir, 'catalog'), 'app', 3, withDb('2'));
      await j.sync('upgrade', fleet(dir, { edges: ['edge1'], workspace: 'v3' }), settings(dir, { lifecycle: 'published' }));
      return j;
    },
  },
  {
    name: "Repositories with spec.git.directory: a catalog's packages and a deployment's under directories",
    replays: "README Inputs: spec.git.directory, through sync",
    run: async (dir) => {
      emptyRepository(repo(dir, 'catalog'));
      publish(repo(dir, 'catalog'), 'pkgs/app', 1, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '1' }) });
      publish(repo(dir, 'catalog'), 'other/app', 1, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: 'elsewhere' }) });
      emptyRepository(repo(dir, 'edge1'));
      const j = new JudgeSession(dir, [
        { name: 'catalog', path: repo(dir, 'catalog'), directory: 'pkgs' },
        { name: 'edge1', path: repo(dir, 'edge1'), directory: 'clusters', deployment: true },
      ]);
      const file = join(dir, 'fleet.yaml');
      writeFileSync(
        file,
        `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata: {name: catalog}\nspec: {type: git, git: {repo: ./catalog.git, directory: pkgs}}\n---\napiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata: {name: edge1}\nspec: {type: git, deployment: true, git: {repo: ./edge1.git, directory: clusters}}\n---\napiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata: {name: app}\nspec:\n  upstream: {repo: catalog, package: app, revision: 1}\n  downstream: {repo: edge1, package: app}\n`,
      );
      await j.sync('create', readSyncInputs([file]), settings(dir));
      await j.sync('publish', readSyncInputs([file]), settings(dir, { lifecycle: 'published' }));
      return j;
    },
  },
  {
    name: 'the demo: a set over two repositories, an edit in a draft, published, upgraded to app/v2',
    replays: 'scripts/demo.sh (test/e2e demo test)',
    run: async (dir) => {
      const example = join(REPO_ROOT, 'examples', 'first-update');
      emptyRepository(repo(dir, 'catalog'));
      for (const v of [1, 2]) publish(repo(dir, 'catalog'), 'app', v, Object.fromEntries(readdirSync(join(example, `v${v}`)).map((f) => [f, readFileSync(join(example, `v${v}`, f), 'utf8')])));
      for (const edge of ['edge1', 'edge2']) emptyRepository(repo(dir, edge));
      const j = fleetSession(dir);
      const file = join(dir, 'fleet.yaml');
      writeFileSync(file, readFileSync(join(REPO_ROOT, 'examples', 'demo-sync', 'fleet.yaml'), 'utf8'));
      await j.sync('create', readSyncInputs([file]), settings(dir));
      editDraft(dir, repo(dir, 'edge1'), 'drafts/app/packagevariant-1', 'app/deployment.yaml', 'replicas: 2', 'replicas: 5');
      j.check("someone edits edge1's draft");
      await j.sync('publish', readSyncInputs([file]), settings(dir, { lifecycle: 'published' }));
      await j.sync('nothing to do', readSyncInputs([file]), settings(dir));
      writeFileSync(file, readFileSync(file, 'utf8').replace('workspaceName: v1', 'workspaceName: v2'));
      await j.sync('upgrade to app/v2, published', readSyncInputs([file]), settings(dir, { lifecycle: 'published' }));
      return j;
    },
  },
];

const PACKAGE = 'infra/capi/nephio-workload-cluster';
const catalogMirror = mirrorGitDir(mirrorRoot(process.env), repositoryOf('https://github.com/nephio-project/catalog'));
const hasMirror = existsSync(catalogMirror) && spawnSync('git', ['--git-dir', catalogMirror, 'rev-parse', '--verify', '-q', `${PACKAGE}/v3.0.0`]).status === 0;

const realPackage: JudgeScenario = {
  name: 'the real Nephio package: nephio-workload-cluster created from v2.0.0, edited, published, upgraded to v3.0.0',
  replays: 'sync-real-package.test.ts',
  ...(hasMirror ? {} : { unavailable: `the nephio-project/catalog mirror is not at ${catalogMirror} (${MIRROR_HINT})` }),
  run: async (dir) => {
    emptyRepository(repo(dir, 'edge'));
    const j = new JudgeSession(dir, [
      { name: 'catalog', path: catalogMirror, readOnly: true },
      { name: 'edge', path: repo(dir, 'edge'), deployment: true },
    ]);
    const file = join(dir, 'fleet.yaml');
    const fleetAt = (revision: string) =>
      `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata: {name: catalog}\nspec: {type: git, git: {repo: ${JSON.stringify(catalogMirror)}}}\n---\napiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata: {name: edge, labels: {tier: edge}}\nspec: {type: git, deployment: true, git: {repo: ./edge.git}}\n---\napiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata: {name: clusters}\nspec:\n  upstream: {repo: catalog, package: ${PACKAGE}, revision: ${revision}}\n  targets:\n  - repositorySelector: {matchLabels: {tier: edge}}\n    template:\n      downstream: {package: cluster-a}\n      packageContext: {data: {site: edge}}\n`;
    writeFileSync(file, fleetAt('v2.0.0'));
    await j.sync('create from v2.0.0', readSyncInputs([file]), settings(dir));
    editDraft(dir, repo(dir, 'edge'), 'drafts/cluster-a/packagevariant-1', 'cluster-a/pv-cluster.yaml', 'approval.nephio.org/policy: initial', 'approval.nephio.org/policy: always');
    await j.sync('publish', readSyncInputs([file]), settings(dir, { lifecycle: 'published' }));
    writeFileSync(file, fleetAt('v3.0.0'));
    await j.sync('upgrade to v3.0.0', readSyncInputs([file]), settings(dir, { lifecycle: 'published' }));
    return j;
  },
};

/** Each design example through sync: every variant's draft, then a second run with nothing to do. */
const designExamples: JudgeScenario[] = syncedDesignScenarios().map((scenario) => ({
  name: `design example ${scenario.name}`,
  replays: 'sync-design-examples.test.ts',
  run: async (dir) => {
    const { repositories } = designFleet(dir, scenario);
    const j = new JudgeSession(
      dir,
      repositories.map(({ name, deployment }) => ({ name, path: repo(dir, name), deployment })),
    );
    await j.sync('create', readSyncInputs([join(dir, 'inputs.yaml')]), settings(dir));
    await j.sync('second run', readSyncInputs([join(dir, 'inputs.yaml')]), settings(dir));
    return j;
  },
}));

export const judgeScenarios = (): JudgeScenario[] => [...lifecycleScenarios, ...designExamples, realPackage];
