/**
 * `package-variant sync` through its command line, on local bare repositories: the plan, --dry-run
 * and --diff that move no ref, the exit codes a CI job acts on, the render through kpt, and the
 * user's git identity on every commit.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../helpers';
import { configMap, kptfile } from '../pkg/trees';
import { aliasBomb, catalogAndEdges, GIT_ENV, packageVariant, publish, refsOf, show, writeFleet } from './porch-repos';
import { git } from '../pkg/git-repos';
import { itUnless, kptAbsent } from '../skip-notice';

// Each test runs several syncs on real git repositories: seconds each on a busy 2-core machine.
jest.setTimeout(60_000);

const MAIN = join(REPO_ROOT, 'dist/main.js');
const withKpt = itUnless(kptAbsent(), 'the render cases of the sync command line (test/sync/sync-cli.test.ts)');

let dir: string;
const repo = (name: string) => join(dir, `${name}.git`);
const allRefs = () => ['edge1', 'edge2'].map((edge) => refsOf(repo(edge))).join('\n');

const sync = (args: string[], env: NodeJS.ProcessEnv = {}) => packageVariant(dir, ['sync', ...args], env);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-sync-cli-'));
  catalogAndEdges(dir);
  writeFleet(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('package-variant sync', () => {
  it('plans with --dry-run and --diff, moving no ref, and says what it would write (exit 4)', () => {
    const before = allRefs();
    const dry = sync(['fleet.yaml', '--dry-run', '--no-render']);
    expect(dry.code).toBe(4);
    expect(dry.stdout).toBe(
      [
        'repository edge1 (./edge1.git)',
        '  create      app  catalog/app v1 (catalog.app.v1) -> drafts/app/packagevariant-1',
        'repository edge2 (./edge2.git)',
        '  create      app  catalog/app v1 (catalog.app.v1) -> drafts/app/packagevariant-1',
        'Plan: 2 create, 0 unchanged.',
        '',
      ].join('\n'),
    );
    expect(dry.stderr).toContain('dry run: nothing was pushed');
    const diff = sync(['fleet.yaml', '--diff', '--no-render']);
    expect(diff.code).toBe(4);
    expect(diff.stdout).toContain('diff --git a/app/package-context.yaml b/app/package-context.yaml\nnew file mode 100644\n');
    expect(diff.stdout).toMatch(/\+\+\+ b\/app\/Kptfile\n(.*\n)*\+  name: app\n/);
    expect(allRefs()).toBe(before);
  });

  it('writes, then has nothing to do (exit 0) and moves no ref', () => {
    const first = sync(['fleet.yaml', '--no-render']);
    expect(first.code).toBe(4);
    expect(first.stderr).toContain('pushed 2 of 2 repositories');
    const after = allRefs();
    const second = sync(['fleet.yaml', '--no-render']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('Plan: 2 unchanged.');
    expect(allRefs()).toBe(after);
  });

  it('warns in the plan of revisions --no-render publishes unrendered (issue 30)', () => {
    const drafts = sync(['fleet.yaml', '--no-render']);
    expect(drafts.stdout).not.toContain('warning: --no-render');
    const published = sync(['fleet.yaml', '--no-render', '--lifecycle', 'published']);
    expect(published.code).toBe(4);
    expect(published.stdout.split('\n')).toContain('warning: --no-render: edge1/app, edge2/app published unrendered, on the branch that deploys');
  });

  it('leaves proposals proposed under a plain sync: --lifecycle only moves revisions forward (issue 30)', () => {
    expect(sync(['fleet.yaml', '--no-render', '--lifecycle', 'proposed']).code).toBe(4);
    const proposed = allRefs();
    expect(proposed).toMatch(/refs\/heads\/proposed\/app\/packagevariant-1/);
    const plain = sync(['fleet.yaml', '--no-render']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('  unchanged   app  proposed edge1.app.packagevariant-1\n');
    expect(allRefs()).toBe(proposed);
  });

  it('exits 5 when a downstream is blocked, doing the others', () => {
    expect(sync(['fleet.yaml', '--no-render', '--lifecycle', 'published']).code).toBe(4);
    // An edit draft of sync's own in edge1 only.
    writeFileSync(join(dir, 'fleet.yaml'), readFileSync(join(dir, 'fleet.yaml'), 'utf8').replace('region: eu', 'region: us'));
    expect(sync(['fleet.yaml', '--no-render']).code).toBe(4);
    git(['--git-dir', repo('edge2'), 'branch', '-D', 'drafts/app/packagevariant-2']);
    publish(repo('catalog'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }) });
    writeFleet(dir, { workspace: 'v2' });
    const run = sync(['fleet.yaml', '--no-render']);
    expect(run.code).toBe(5);
    expect(run.stdout).toMatch(/repository edge1 .*\n  blocked +app +draft packagevariant-2 records app\/v1, not app\/v2/);
    expect(run.stdout).toMatch(/repository edge2 .*\n  upgrade +app +app\/v1 -> app\/v2/);
    expect(refsOf(repo('edge2'))).toMatch(/drafts\/app\/packagevariant-2/);
  });

  it('carries the user git identity and refuses to commit without one, pushing nothing', () => {
    const before = allRefs();
    const anonymous = sync(['fleet.yaml', '--no-render'], { GIT_AUTHOR_NAME: '', GIT_COMMITTER_NAME: '', GIT_AUTHOR_EMAIL: '', GIT_COMMITTER_EMAIL: '', HOME: dir, EMAIL: '' });
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toMatch(/new commits carry your git identity, and git has none: set it with git config --global user.name NAME/);
    expect(allRefs()).toBe(before);
    expect(sync(['fleet.yaml', '--no-render']).code).toBe(4);
    const draft = /drafts\/app\/packagevariant-1 (\w+)/.exec(refsOf(repo('edge1')))![1]!;
    expect(git(['--git-dir', repo('edge1'), 'log', '-1', '--format=%an <%ae> %cn', draft])).toBe('test <test@example.invalid> test');
  });

  it("names the file and the file's own line of a field it refuses, exits 1 and pushes nothing", () => {
    const before = allRefs();
    const fleet = readFileSync(join(dir, 'fleet.yaml'), 'utf8');
    // A field the schema does not know, in the last document of the file, below comment lines.
    writeFileSync(join(dir, 'fleet.yaml'), `${fleet.trimEnd()}\n---\n# a second set\n\napiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata:\n  name: typo\nspec:\n  upstream: {repo: catalog, package: app, revision: v1}\n  targets:\n  - repositories: [{name: edge1}]\n    packageName: app\n`);
    const line = readFileSync(join(dir, 'fleet.yaml'), 'utf8').split('\n').indexOf('    packageName: app') + 1;
    expect(line).toBeGreaterThan(20);
    const run = sync(['fleet.yaml', '--no-render']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`fleet.yaml: PackageVariantSet typo: spec.targets[0].packageName: unknown field "packageName" (fleet.yaml line ${line}, column 5)`);
    expect(allRefs()).toBe(before);
  });

  it('refuses an alias bomb in an input file, naming the file and the line, exits 1 and pushes nothing', () => {
    const before = allRefs();
    writeFileSync(join(dir, 'bomb.yaml'), aliasBomb());
    const run = sync(['fleet.yaml', 'bomb.yaml', '--no-render']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('package-variant sync: bomb.yaml (document 2): its YAML aliases expand too far to be read safely: Excessive alias count indicates a resource exhaustion attack (bomb.yaml line 6)\npackage-variant sync: nothing was pushed\n');
    expect(allRefs()).toBe(before);
  });

  withKpt('renders each draft with kpt, the pipeline of the upstream package included', () => {
    const fn = join(dir, 'render-fn.sh');
    writeFileSync(fn, '#!/bin/sh\nexec sed "s/x: \\"1\\"/x: \\"rendered\\"/"\n');
    chmodSync(fn, 0o755);
    publish(repo('catalog'), 'app', 2, { Kptfile: kptfile('app', `pipeline:\n  mutators:\n  - exec: ${fn}\n`), 'cm.yaml': configMap('cm', { x: '1' }) });
    writeFleet(dir, { workspace: 'v2' });
    const refused = sync(['fleet.yaml']);
    expect(refused.code).toBe(5);
    expect(refused.stdout).toMatch(/invalid +app +kpt fn render of edge1\/app failed:/);
    const run = sync(['fleet.yaml', '--allow-exec']);
    expect(run.code).toBe(4);
    const draft = /drafts\/app\/packagevariant-1 (\w+)/.exec(refsOf(repo('edge1')))![1]!;
    expect(show(repo('edge1'), `${draft}:app/cm.yaml`)).toContain('x: "rendered"');
  });
});

describe('a render on a machine without docker', () => {
  withKpt("names KPT_FN_RUNTIME beside kpt's 'docker must be running' (issue 30)", () => {
    publish(repo('catalog'), 'app', 2, { Kptfile: kptfile('app', 'pipeline:\n  mutators:\n  - image: gcr.io/kpt-fn/set-labels:v0.1\n    configMap: {a: b}\n'), 'cm.yaml': configMap('cm', { x: '1' }) });
    writeFleet(dir, { workspace: 'v2' });
    // kpt, git and node only: no docker, whatever this machine has.
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    for (const tool of ['kpt', 'git', 'sh']) symlinkSync(spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim(), join(bin, tool));
    const env = { PATH: bin, KPT_FN_RUNTIME: '' };
    const run = sync(['fleet.yaml', '--dry-run'], env);
    expect(run.code).toBe(5);
    expect(run.stdout).toMatch(/docker must be running to use this command\n.*\n *\(kpt runs functions with docker; with podman, set KPT_FN_RUNTIME=podman; or pass --no-render to write drafts unrendered\)/);
    expect(spawnSync(process.execPath, [MAIN, 'sync', '--help'], { encoding: 'utf8' }).stdout).toContain('KPT_FN_RUNTIME=podman');
  });
});

describe('stdout that cannot be written', () => {
  it('says so on stderr with what was pushed, and exits 3 (issue 30)', () => {
    const full = openSync('/dev/full', 'w');
    try {
      const run = spawnSync(process.execPath, [MAIN, 'sync', 'fleet.yaml', '--no-render'], { cwd: dir, env: { ...GIT_ENV, PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache'), PACKAGE_VARIANT_STATE_DIR: join(dir, 'state') }, encoding: 'utf8', stdio: ['ignore', full, 'pipe'] });
      expect(run.status).toBe(3);
      expect(run.stderr.split('\n').filter(Boolean).at(-1)).toBe('package-variant sync: could not write to stdout (ENOSPC): the plan printed is incomplete; pushed 2 of 2 repositories');
    } finally {
      closeSync(full);
    }
    expect(refsOf(repo('edge1'))).toMatch(/refs\/heads\/drafts\/app\/packagevariant-1/);
  });
});

describe('--diff', () => {
  it("puts each repository's diffs under its name and each package's under its plan entry (issue 30)", () => {
    const diff = sync(['fleet.yaml', '--diff', '--no-render']);
    expect(diff.code).toBe(4);
    const headings = diff.stdout.split('\n').filter((line) => /^(repository |  create |diff --git a\/app\/Kptfile)/.test(line));
    const entry = '  create      app  catalog/app v1 (catalog.app.v1) -> drafts/app/packagevariant-1';
    const planPart = ['repository edge1 (./edge1.git)', entry, 'repository edge2 (./edge2.git)', entry];
    const kptfileDiff = 'diff --git a/app/Kptfile b/app/Kptfile';
    expect(headings).toEqual([...planPart, 'repository edge1 (./edge1.git)', entry, kptfileDiff, 'repository edge2 (./edge2.git)', entry, kptfileDiff]);
  });
});

describe('a hotfix on the branch', () => {
  it('is warned about when publishing would replace it, and --diff shows what goes (issue 30)', () => {
    expect(sync(['fleet.yaml', '--no-render', '--lifecycle', 'published']).code).toBe(4);
    // A person fixes the deployed package on main by hand.
    const work = join(dir, 'hotfix');
    git(['clone', '-q', repo('edge1'), work]);
    writeFileSync(join(work, 'app', 'cm.yaml'), readFileSync(join(work, 'app', 'cm.yaml'), 'utf8').replace('x: "1"', 'x: "7"'));
    git(['commit', '-qam', 'hotfix: x is 7'], work);
    git(['push', '-q', 'origin', 'main'], work);
    const fleetFile = writeFleet(dir);
    writeFileSync(fleetFile, readFileSync(fleetFile, 'utf8').replace('region: eu', 'region: us'));
    const warning = 'warning: app on main differs from its latest revision app/v1 (changed there outside its revisions): publishing replaces those changes';
    const diff = sync(['fleet.yaml', '--no-render', '--lifecycle', 'published', '--diff']);
    expect(diff.stdout).toContain(`      ${warning}\n`);
    expect(diff.stdout).toMatch(/\n  app: what publishing replaces on main\ndiff --git a\/app\/cm.yaml b\/app\/cm.yaml\n(.*\n)*-  x: "7"\n\+  x: "1"\n/);
    // edge2 had no hotfix: no warning for it.
    expect(diff.stdout.split('repository edge2')[1]).not.toContain('differs from its latest revision');
    const published = sync(['fleet.yaml', '--no-render', '--lifecycle', 'published']);
    expect(published.stdout).toContain(`      ${warning} (--diff shows them)\n`);
  });
});

describe('--status-out', () => {
  it("writes Porch's conditions for a valid variant, an invalid one, a blocked one, and the set", () => {
    expect(sync(['fleet.yaml', '--no-render']).code).toBe(4);
    publish(repo('catalog'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }) });
    const invalid = `---\napiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: broken\nspec:\n  upstream: {repo: catalog, package: app, revision: 1}\n  downstream: {repo: edge1}\n`;
    const blockedEdge1 = `---\napiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: single\nspec:\n  upstream: {repo: catalog, package: app, revision: 2}\n  downstream: {repo: edge2, package: single}\n`;
    writeFileSync(join(dir, 'more.yaml'), invalid + blockedEdge1);
    writeFleet(dir, { workspace: 'v2', edges: ['edge1', 'edge2'] });
    const run = sync(['fleet.yaml', 'more.yaml', '--no-render', '--status-out', 'status.yaml']);
    expect(run.code).toBe(5);
    const status = parseAllDocuments(readFileSync(join(dir, 'status.yaml'), 'utf8')).map((d) => d.toJS());
    const of = (name: string) => status.find((o) => o.metadata.name === name);
    expect(of('fleet')).toMatchObject({ kind: 'PackageVariantSet', status: { conditions: [{ type: 'Stalled', status: 'False', reason: 'Valid' }, { type: 'Ready', status: 'True', reason: 'Reconciled', message: 'package variants successfully reconciled' }] } });
    expect(of('broken').status.conditions).toEqual([
      { type: 'Stalled', status: 'True', reason: 'ValidationError', message: 'PackageVariant broken: missing required field spec.downstream.package' },
      { type: 'Ready', status: 'False', reason: 'Error', message: 'invalid packagevariant object' },
    ]);
    expect(of('fleet-edge1-app')).toMatchObject({
      metadata: { labels: { 'config.porch.kpt.dev/packagevariantset': 'fleet' } },
      status: {
        conditions: [
          { type: 'Stalled', status: 'False', reason: 'Valid' },
          { type: 'Ready', status: 'False', reason: 'Error', message: 'draft packagevariant-1 records app/v1, not app/v2: publish or discard it (delete its branch), then sync again to upgrade' },
        ],
        downstreamTargets: [{ name: 'edge1.app.packagevariant-1' }],
      },
    });
    expect(of('single').status).toEqual({
      conditions: [
        { type: 'Stalled', status: 'False', reason: 'Valid', message: 'all validation checks passed' },
        { type: 'Ready', status: 'True', reason: 'NoErrors', message: 'successfully ensured downstream package variant' },
      ],
      downstreamTargets: [{ name: 'edge2.single.packagevariant-1' }],
    });
  });

  it('is written after the push: a repository that turned the push down leaves its variants not Ready, the others Ready', () => {
    // A hook of the remote's own refuses every push to edge1.
    writeFileSync(join(repo('edge1'), 'hooks', 'pre-receive'), '#!/bin/sh\necho "edge1 is frozen" >&2\nexit 1\n');
    chmodSync(join(repo('edge1'), 'hooks', 'pre-receive'), 0o755);
    const before = refsOf(repo('edge1'));
    const run = sync(['fleet.yaml', '--no-render', '--status-out', 'status.yaml']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('pushed 1 of 2 repositories');
    expect(refsOf(repo('edge1'))).toBe(before);
    const status = parseAllDocuments(readFileSync(join(dir, 'status.yaml'), 'utf8')).map((d) => d.toJS());
    const of = (name: string) => status.find((o) => o.metadata.name === name);
    expect(of('fleet-edge1-app').status.conditions[1]).toMatchObject({ type: 'Ready', status: 'False', reason: 'Error', message: expect.stringMatching(/^not pushed: Repository edge1 .*edge1 is frozen/s) });
    expect(of('fleet-edge1-app').status.downstreamTargets).toEqual([]);
    expect(of('fleet-edge2-app').status).toMatchObject({ conditions: [{ type: 'Stalled', status: 'False' }, { type: 'Ready', status: 'True', reason: 'NoErrors' }], downstreamTargets: [{ name: 'edge2.app.packagevariant-1' }] });
  });

  it('is written in place to a device or a link, never renamed over it (issue 26)', () => {
    const devices = ['/dev/null', ...(existsSync('/dev/stdout') ? ['/dev/stdout'] : [])];
    for (const device of devices) {
      const before = lstatSync(device);
      const run = sync(['fleet.yaml', '--no-render', '--dry-run', '--status-out', device]);
      expect(run.code).toBe(4);
      if (device === '/dev/stdout') expect(run.stdout).toMatch(/Plan: 2 create, 0 unchanged\.\n(.*\n)*kind: PackageVariantSet\n/);
      const after = lstatSync(device);
      expect([after.isFile(), after.ino, after.mode]).toEqual([false, before.ino, before.mode]);
    }
    const status = join(dir, 'real-status.yaml');
    writeFileSync(status, 'old\n');
    symlinkSync(status, join(dir, 'link.yaml'));
    expect(sync(['fleet.yaml', '--no-render', '--dry-run', '--status-out', 'link.yaml']).code).toBe(4);
    expect(lstatSync(join(dir, 'link.yaml')).isSymbolicLink()).toBe(true);
    expect(readFileSync(status, 'utf8')).toContain('kind: PackageVariantSet');
  });

  it('is refused before anything is fetched when it is a directory (issue 26)', () => {
    mkdirSync(join(dir, 'status.yaml'));
    const before = allRefs();
    const run = sync(['fleet.yaml', '--no-render', '--status-out', 'status.yaml']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('package-variant sync: cannot write the status to status.yaml: it is a directory\npackage-variant sync: nothing was pushed\n');
    expect(existsSync(join(dir, 'cache'))).toBe(false);
    expect(allRefs()).toBe(before);
  });

  it('is refused before anything is done when its directory cannot take it', () => {
    const before = allRefs();
    const run = sync(['fleet.yaml', '--no-render', '--status-out', join('missing', 'status.yaml')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`package-variant sync: cannot write the status to ${join('missing', 'status.yaml')}: no such directory\npackage-variant sync: nothing was pushed\n`);
    expect(allRefs()).toBe(before);
  });
});
