/**
 * Issue 26 items 12 and 14: names and entries sync reads that git, a file system or Kubernetes would
 * refuse. A package name or a Repository directory that cannot be a path of a package (the one path
 * check: `.git` in HFS+'s and NTFS's spellings) or part of a ref (git's ref-name rules) makes its
 * downstream invalid before anything is planned, and the other downstreams of the same repository
 * are pushed; a PackageVariant or set named as Kubernetes refuses makes no downstream; an upstream's
 * symbolic links and submodules, which sync never writes, are named in the plan.
 */
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { readSyncInputs } from '../../src/sync/inputs';
import { planText } from '../../src/sync/plan';
import { planSync, writePlan } from '../../src/sync/run';
import type { Lifecycle } from '../../src/sync/state';
import { git } from '../pkg/git-repos';
import { configMap, writeFiles } from '../pkg/trees';
import { refsOf, syncSettings } from '../sync/porch-repos';
import { catalogPerTest, commitOnMain, writeVariants, type VariantEntry } from '../sync/variant-fleet';

jest.setTimeout(60_000);

const { dir, repo } = catalogPerTest();

async function run(file: string, lifecycle: Lifecycle = 'published') {
  const planned = await planSync(readSyncInputs([file]), syncSettings(dir(), { lifecycle }));
  const failures = await writePlan(planned.plan, planned.remotes);
  return { ...planned, failures, rows: planned.plan.downstreams.map((d) => [d.repository, d.pkg, d.action, d.detail]) };
}

const BAD_NAMES: readonly (readonly [string, string])[] = [
  ['\u200c.git', `it lies in "\u200c.git", which git takes for .git: git's, not the package's`],
  ['team a', '"team a" holds " ", which git refuses in a ref name'],
  ['a:b', '"a:b" holds ":", which git refuses in a ref name'],
  ['x.lock', '"x.lock" ends with ".lock", which git refuses in a ref name'],
  ['git~1', `it lies in "git~1", which git takes for .git: git's, not the package's`],
  ['.git.', `it lies in ".git.", which git takes for .git: git's, not the package's`],
  ['n'.repeat(300), "a name of 300 bytes is longer than the 255 a ref's file may have"],
];

describe('item 12: package names and Repository directories git or a file system cannot take', () => {
  it('a PackageVariant\'s downstream package: that downstream is invalid, the repository\'s other packages are pushed', async () => {
    const bad: VariantEntry[] = BAD_NAMES.map(([pkg], i) => ({ name: `bad-${i}`, repo: 'edge1', pkg }));
    const { rows, failures } = await run(writeVariants(dir(), [...bad, { name: 'good', repo: 'edge1', pkg: 'app' }]));
    expect(failures).toEqual([]);
    expect(rows).toEqual([
      ...BAD_NAMES.map(([pkg, why], i) => ['edge1', pkg, 'invalid', `PackageVariant default/bad-${i}: spec.downstream.package ${JSON.stringify(pkg)} cannot be a package path: ${why}`]),
      ['edge1', 'app', 'create', 'catalog/app v1 (catalog.app.v1)'],
    ]);
    expect(refsOf(repo('edge1'))).toMatch(/refs\/tags\/app\/v1 /);
    expect(git(['--git-dir', repo('edge1'), 'ls-tree', '--name-only', 'main'])).toBe('README.md\napp');
  });

  it('a name a PackageVariantSet generates: that downstream is invalid, the set\'s others go through', async () => {
    const long = 'n'.repeat(300);
    const set = `apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata:\n  name: fleet\nspec:\n  upstream: {repo: catalog, package: app, revision: 1}\n  targets:\n  - repositories:\n    - name: edge1\n      packageNames: [good, x.lock, ${long}]\n`;
    const { rows, failures } = await run(writeVariants(dir(), [], {}, [set]));
    expect(failures).toEqual([]);
    expect(rows).toEqual([
      ['edge1', 'x.lock', 'invalid', 'PackageVariant default/fleet-edge1-x.lock: spec.downstream.package "x.lock" cannot be a package path: "x.lock" ends with ".lock", which git refuses in a ref name'],
      ['edge1', long, 'invalid', expect.stringMatching(/^PackageVariant default\/fleet-edge1-n{42}-[0-9a-f]{8}: spec\.downstream\.package "n{300}" cannot be a package path: a name of 300 bytes is longer than the 255 a ref's file may have$/)],
      ['edge1', 'good', 'create', 'catalog/app v1 (catalog.app.v1)'],
    ]);
    expect(refsOf(repo('edge1'))).toMatch(/refs\/tags\/good\/v1 /);
  });

  it.each([
    ['\u200c.git', `it lies in "\u200c.git", which git takes for .git: git's, not the package's`],
    ['clusters/team a', '"team a" holds " ", which git refuses in a ref name'],
  ])('a Repository\'s spec.git.directory %j: its downstreams are invalid and never fetched, the other repositories are pushed', async (directory, why) => {
    const before = refsOf(repo('edge2'));
    const { rows, failures } = await run(
      writeVariants(
        dir(),
        [
          { name: 'one', repo: 'edge1', pkg: 'app' },
          { name: 'two', repo: 'edge2', pkg: 'app' },
        ],
        { edge2: directory },
      ),
    );
    expect(failures).toEqual([]);
    expect(rows).toEqual([
      ['edge1', 'app', 'create', 'catalog/app v1 (catalog.app.v1)'],
      ['edge2', 'app', 'invalid', `Repository edge2 (${join(dir(), 'variants.yaml')} (document 3)): spec.git.directory ${JSON.stringify(directory)} cannot be the directory of its packages: ${why}`],
    ]);
    expect(refsOf(repo('edge2'))).toBe(before);
    expect(refsOf(repo('edge1'))).toMatch(/refs\/tags\/app\/v1 /);
  });
});

describe('item 14: names Kubernetes refuses, and what sync never writes', () => {
  it('a PackageVariant or set named as Kubernetes refuses makes no downstream, naming the file, line and field; the others go through', async () => {
    const set = `apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata:\n  name: Fleet\nspec:\n  upstream: {repo: catalog, package: app, revision: 1}\n  targets:\n  - repositories:\n    - name: edge2\n`;
    const file = writeVariants(
      dir(),
      [
        { name: 'Bad_Name', repo: 'edge1', pkg: 'bad' },
        { name: 'good', repo: 'edge1', pkg: 'app' },
      ],
      {},
      [set],
    );
    const { plan, rows, variants, sets } = await run(file, 'draft');
    const lines = readFileSync(file, 'utf8').split('\n');
    const refusal = (kind: string, name: string, written: string) =>
      `${file}: ${kind} ${name}: metadata.name: ${JSON.stringify(name)} is a name Kubernetes refuses: a ${kind}'s name is a DNS-1123 subdomain, at most 253 characters of lower-case letters, digits, '-' and '.', beginning and ending with a letter or digit (${file} line ${lines.indexOf(`  name: ${written}`) + 1}, column 9)`;
    const variant = refusal('PackageVariant', 'Bad_Name', '"Bad_Name"');
    const ofSet = refusal('PackageVariantSet', 'Fleet', 'Fleet');
    expect(rows).toEqual([
      ['edge1', 'bad', 'invalid', variant],
      ['edge1', 'app', 'create', 'catalog/app v1 (catalog.app.v1)'],
    ]);
    expect(plan.problems.map((p) => p.message)).toEqual([ofSet]);
    expect(variants.find((v) => v.object.metadata.name === 'Bad_Name')!.stalled).toBe(variant);
    expect(sets).toEqual([expect.objectContaining({ label: 'PackageVariantSet default/Fleet', problem: { reason: 'ValidationError', message: ofSet } })]);
    expect(refsOf(repo('edge1'))).toMatch(/refs\/heads\/drafts\/app\/packagevariant-1 /);
    expect(refsOf(repo('edge2'))).not.toMatch(/drafts\//);
  });

  /** Publishes app v2 in the catalog: v1's files, but cm.yaml a symbolic link and vendor/lib a submodule. */
  const publishLinked = () =>
    commitOnMain(
      repo('catalog'),
      'Approving package revision app/2\n\nkpt:{"package":"app","workspaceName":"v2","revision":"2"}',
      (work) => {
        git(['rm', '-q', 'app/cm.yaml'], work);
        writeFiles(join(work, 'app'), { 'real.yaml': configMap('real', { x: '2' }) });
        symlinkSync('real.yaml', join(work, 'app/cm.yaml'));
        git(['update-index', '--add', '--cacheinfo', `160000,${git(['rev-parse', 'HEAD'], work)},app/vendor/lib`], work);
        // An empty directory is a submodule not checked out: staging the clone keeps it.
        mkdirSync(join(work, 'app/vendor/lib'), { recursive: true });
      },
      ['app/v2'],
    );

  it('an upstream\'s symbolic link and submodule are named in the plan of a create, and the submodule in that of an upgrade', async () => {
    const first = await run(writeVariants(dir(), [{ name: 'up', repo: 'edge2', pkg: 'app' }]));
    expect(first.failures).toEqual([]);
    publishLinked();
    const { plan, urls, failures } = await run(
      writeVariants(dir(), [
        { name: 'new', repo: 'edge1', pkg: 'app', revision: 2 },
        { name: 'up', repo: 'edge2', pkg: 'app', revision: 2 },
      ]),
      'draft',
    );
    expect(failures).toEqual([]);
    const link = "warning: the upstream's cm.yaml is a symbolic link (git mode 120000), which sync never writes: the downstream leaves it out";
    const submodule = "warning: the upstream's vendor/lib is a submodule (a gitlink, git mode 160000), which sync never writes: the downstream leaves it out";
    const text = planText(plan, urls);
    const [edge1, edge2] = text.split(/^repository edge2 .*\n/m) as [string, string];
    expect(edge1).toMatch(/^ {2}create +app .*\n {6}/m);
    expect(edge1).toContain(`      ${link}\n`);
    expect(edge1).toContain(`      ${submodule}\n`);
    expect(edge2).toMatch(/^ {2}upgrade +app /m);
    expect(edge2).toContain(`      ${submodule}\n`);
    const draft = /refs\/heads\/drafts\/app\/packagevariant-1 (\w+)/.exec(refsOf(repo('edge1')))![1]!;
    expect(git(['--git-dir', repo('edge1'), 'ls-tree', '-r', '--name-only', draft, 'app'])).toBe(['app/Kptfile', 'app/package-context.yaml', 'app/real.yaml'].join('\n'));
  });
});
