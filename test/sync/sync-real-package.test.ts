/**
 * sync on a real package: nephio-project/catalog's infra/capi/nephio-workload-cluster (a Porch-layout
 * catalog: tags `<package path>/v2.0.0`, `/v3.0.0`; a pipeline, a package context, a README, eleven
 * PackageVariants as resources), read straight from the mirror, sent to a deployment repository,
 * edited in its draft, published, then upgraded to v3.0.0 through the command line, then found
 * settled and planned from that record. Plain git is the judge. Skipped, with one line, where the
 * mirror is missing.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIRROR_HINT, mirrorGitDir, mirrorRoot, repositoryOf } from '../../scripts/lib/git-trees.cjs';
import { REPO_ROOT } from '../helpers';
import { git } from '../pkg/git-repos';
import { emptyRepository, GIT_ENV, show } from './porch-repos';
import { describeUnless } from '../skip-notice';

const MAIN = join(REPO_ROOT, 'dist/main.js');
const PACKAGE = 'infra/capi/nephio-workload-cluster';
const catalog = mirrorGitDir(mirrorRoot(process.env), repositoryOf('https://github.com/nephio-project/catalog'));
const hasMirror = existsSync(catalog) && spawnSync('git', ['--git-dir', catalog, 'rev-parse', '--verify', '-q', `${PACKAGE}/v3.0.0`]).status === 0;
const describeWithMirror = describeUnless(
  hasMirror ? undefined : `the nephio-project/catalog mirror is not at ${catalog} (${MIRROR_HINT})`,
  'sync on a real package (test/sync/sync-real-package.test.ts)',
);

describeWithMirror('sync on nephio-workload-cluster from the Nephio catalog', () => {
  let dir: string;
  const edge = () => join(dir, 'edge.git');
  const fleet = (revision: string) => `apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata: {name: catalog}
spec: {type: git, git: {repo: ${JSON.stringify(catalog)}}}
---
apiVersion: config.porch.kpt.dev/v1alpha1
kind: Repository
metadata: {name: edge, labels: {tier: edge}}
spec: {type: git, deployment: true, git: {repo: ./edge.git}}
---
apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata: {name: clusters}
spec:
  upstream: {repo: catalog, package: ${PACKAGE}, revision: ${revision}}
  targets:
  - repositorySelector: {matchLabels: {tier: edge}}
    template:
      downstream: {package: cluster-a}
      packageContext: {data: {site: edge}}
`;
  function syncExiting(code: number, ...args: string[]) {
    const run = spawnSync(process.execPath, [MAIN, 'sync', 'fleet.yaml', '--no-render', ...args], { cwd: dir, env: { ...GIT_ENV, PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache'), PACKAGE_VARIANT_STATE_DIR: join(dir, 'state') }, encoding: 'utf8' });
    expect({ code: run.status, stderr: run.status === code ? '' : run.stderr }).toEqual({ code, stderr: '' });
    return run.stdout;
  }
  const sync = (...args: string[]) => syncExiting(4, ...args);
  const upstreamText = (tag: string, file: string) => git(['--git-dir', catalog, 'show', `${PACKAGE}/${tag}:${PACKAGE}/${file}`]);

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pv-sync-real-'));
    emptyRepository(edge());
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the draft from v2.0.0, publishes it with an edit, and upgrades to v3.0.0 keeping the edit', () => {
    writeFileSync(join(dir, 'fleet.yaml'), fleet('v2.0.0'));
    expect(sync()).toContain(`  create      cluster-a  catalog/${PACKAGE} v2.0.0 (catalog.infra.capi.nephio-workload-cluster.v2.0.0) -> drafts/cluster-a/packagevariant-1`);

    const work = join(dir, 'work');
    git(['clone', '-q', '-b', 'drafts/cluster-a/packagevariant-1', edge(), work]);
    const edited = join(work, 'cluster-a/pv-cluster.yaml');
    writeFileSync(edited, readFileSync(edited, 'utf8').replace('approval.nephio.org/policy: initial', 'approval.nephio.org/policy: always'));
    git(['-C', work, 'commit', '-qam', 'cluster-a: always approve']);
    git(['-C', work, 'push', '-q', 'origin', 'HEAD']);
    expect(sync('--lifecycle', 'published')).toContain('  publish     cluster-a  draft edge.cluster-a.packagevariant-1 -> main, tag cluster-a/v1');

    writeFileSync(join(dir, 'fleet.yaml'), fleet('v3.0.0'));
    expect(sync('--lifecycle', 'published')).toContain(`  upgrade     cluster-a  ${PACKAGE}/v2.0.0 -> ${PACKAGE}/v3.0.0 from edge.cluster-a.packagevariant-1 (v1) -> main, tag cluster-a/v2`);

    // The edit is kept beside v3.0.0's change to the same file.
    const cluster = show(edge(), 'cluster-a/v2:cluster-a/pv-cluster.yaml');
    expect(cluster).toContain('approval.nephio.org/policy: always');
    expect(cluster).toContain('revision: main');
    // Every other resource, the README and the pipeline's config are v3.0.0's, byte for byte but for
    // the merge key Porch's clone and upgrade give each resource (the `kpt-merge` comment and the
    // upstream identifier annotation), as kpt pkg get does.
    const files = git(['--git-dir', edge(), 'ls-tree', '--name-only', 'cluster-a/v2', 'cluster-a/']).split('\n').map((path) => path.slice('cluster-a/'.length));
    expect(files).toEqual(git(['--git-dir', catalog, 'ls-tree', '--name-only', `${PACKAGE}/v3.0.0`, `${PACKAGE}/`]).split('\n').map((path) => path.slice(PACKAGE.length + 1)));
    for (const file of files.filter((f) => !['Kptfile', 'package-context.yaml', 'pv-cluster.yaml'].includes(f))) {
      const text = show(edge(), `cluster-a/v2:cluster-a/${file}`);
      if (file.endsWith('.yaml')) expect(text).toMatch(/^metadata: # kpt-merge: \/\S+$/m);
      if (file.endsWith('.yaml')) expect(text).toMatch(/^ {4}internal\.kpt\.dev\/upstream-identifier: '[\w.]*\|\w+\|default\|[\w.-]+'$/m);
      const withoutKey = text.replace(/^(metadata:) # kpt-merge: \S+$/m, '$1').replace(/^ {2}annotations:\n {4}internal\.kpt\.dev\/upstream-identifier: .*\n(?! {4})|^ {4}internal\.kpt\.dev\/upstream-identifier: .*\n/m, '');
      expect([file, withoutKey]).toEqual([file, upstreamText('v3.0.0', file)]);
    }
    // The Kptfile records v3.0.0 and its commit, as kpt pkg get would, and keeps the pipeline.
    const kptfile = show(edge(), 'cluster-a/v2:cluster-a/Kptfile');
    expect(kptfile).toContain(`    ref: ${PACKAGE}/v3.0.0\n    commit: ${git(['--git-dir', catalog, 'rev-parse', `${PACKAGE}/v3.0.0^{commit}`])}\n`);
    expect(kptfile).toContain('  - image: gcr.io/kpt-fn/apply-replacements:v0.1.1\n    configPath: apply-replacements.yaml');
    expect(show(edge(), 'cluster-a/v2:cluster-a/package-context.yaml')).toMatch(/\n {2}name: cluster-a\n {2}package-path: cluster-a\n {2}site: edge$/);
    // The mirror is only read.
    expect(git(['--git-dir', catalog, 'for-each-ref', '--format=%(refname)', 'refs/heads/drafts', 'refs/tags/cluster-a'])).toBe('');
  });

  it('finds it settled once upgraded, and plans from that record what a run from its content plans', () => {
    const settled = syncExiting(0, '--lifecycle', 'published');
    expect(settled).toContain('  unchanged   cluster-a');
    const records = join(dir, 'state', 'sync-settled');
    const written = () => readdirSync(records).map((name) => [name, statSync(join(records, name)).mtimeMs]);
    const recorded = written();
    expect(recorded).toHaveLength(2);
    // Taken, not made again: a run that plans from the content records anew.
    expect(syncExiting(0, '--lifecycle', 'published')).toBe(settled);
    expect(written()).toEqual(recorded);
    expect(syncExiting(0, '--lifecycle', 'published', '--recheck')).toBe(settled);
  });
});
