/**
 * Issue 26 items 3 and 4: packages never nest. A package is never created in a directory that holds
 * packages (approving it would replace the directory on the branch, removing them) or files, nor
 * inside another package (Porch: "packages cannot be nested"); the plan says why, naming what is
 * there, and nothing is written for that downstream while the others go through.
 */
import { join } from 'node:path';
import { readSyncInputs } from '../../src/sync/inputs';
import { planSync, writePlan } from '../../src/sync/run';
import { git } from '../pkg/git-repos';
import { configMap, kptfile, writeFiles, type Files } from '../pkg/trees';
import { publish, refsOf, syncSettings } from './porch-repos';
import { catalogPerTest, commitOnMain, writeVariants, type VariantEntry } from './variant-fleet';

jest.setTimeout(60_000);

const { dir: testDir, repo } = catalogPerTest();

/** `files` at `path` on main of `repository`, with no tag: a package (or files) only on the branch, as a person or kpt pkg get leaves it. */
const commitOnBranch = (repository: string, path: string, files: Files) => commitOnMain(repository, `Add ${path}`, (work) => writeFiles(join(work, path), files));

const pkg = (name: string): Files => ({ Kptfile: kptfile(name), 'cm.yaml': configMap(name, { x: '1' }) });

/** Plans and writes `variants` published; the plan's entries as [repository, package, action, detail]. */
async function published(variants: readonly VariantEntry[], directories: Record<string, string> = {}) {
  const { plan, remotes } = await planSync(readSyncInputs([writeVariants(testDir(), variants, directories)]), syncSettings(testDir(), { lifecycle: 'published' }));
  expect(await writePlan(plan, remotes)).toEqual([]);
  return plan.downstreams.map((d) => [d.repository, d.pkg, d.action, d.detail]);
}

describe('item 3: a package is never created over the packages in its directory', () => {
  it('refuses catalog where catalog/gcp/bucket and three more packages live, naming them, and leaves the branch as it was', async () => {
    publish(repo('edge1'), 'catalog/gcp/bucket', 1, pkg('bucket'));
    publish(repo('edge1'), 'catalog/gcp/sql', 1, pkg('sql'));
    publish(repo('edge1'), 'catalog/aws/s3', 1, pkg('s3'));
    commitOnBranch(repo('edge1'), 'catalog/net', pkg('net'));
    const before = refsOf(repo('edge1'));
    const entries = await published([
      { name: 'catalog', repo: 'edge1', pkg: 'catalog' },
      { name: 'app', repo: 'edge2', pkg: 'app' },
    ]);
    expect(entries).toEqual([
      [
        'edge1',
        'catalog',
        'invalid',
        'package path "catalog" holds 4 packages (catalog/aws/s3, catalog/gcp/bucket, catalog/gcp/sql, catalog/net): packages cannot be nested, and a package made there would take their place on branch main; nothing is written',
      ],
      ['edge2', 'app', 'create', 'catalog/app v1 (catalog.app.v1)'],
    ]);
    expect(refsOf(repo('edge1'))).toBe(before);
    expect(git(['--git-dir', repo('edge1'), 'ls-tree', '-r', '--name-only', 'main', 'catalog'])).toBe(
      ['catalog/aws/s3/Kptfile', 'catalog/aws/s3/cm.yaml', 'catalog/gcp/bucket/Kptfile', 'catalog/gcp/bucket/cm.yaml', 'catalog/gcp/sql/Kptfile', 'catalog/gcp/sql/cm.yaml', 'catalog/net/Kptfile', 'catalog/net/cm.yaml'].join('\n'),
    );
    expect(refsOf(repo('edge2'))).toMatch(/refs\/tags\/app\/v1 /);
  });

  it('refuses a directory on the branch that holds files of no package, naming them', async () => {
    commitOnBranch(repo('edge1'), 'docs', { 'README.md': 'ours\n', 'guide/setup.md': 'ours too\n' });
    const before = refsOf(repo('edge1'));
    expect(await published([{ name: 'docs', repo: 'edge1', pkg: 'docs' }])).toEqual([
      ['edge1', 'docs', 'invalid', 'package path "docs" is a directory on branch main holding 2 files of no package (docs/README.md, docs/guide/setup.md): a package made there would remove them; nothing is written'],
    ]);
    expect(refsOf(repo('edge1'))).toBe(before);
  });
});

describe('item 4: a package is never created inside another', () => {
  it('refuses basens/sub where basens is a package, published or only on the branch, with Porch\'s message', async () => {
    publish(repo('edge1'), 'basens', 1, pkg('basens'));
    commitOnBranch(repo('edge2'), 'clusters/basens', pkg('basens'));
    const before = [refsOf(repo('edge1')), refsOf(repo('edge2'))];
    const entries = await published(
      [
        { name: 'sub1', repo: 'edge1', pkg: 'basens/sub' },
        { name: 'sub2', repo: 'edge2', pkg: 'basens/sub' },
        { name: 'other', repo: 'edge2', pkg: 'other' },
      ],
      { edge2: 'clusters' },
    );
    expect(entries).toEqual([
      ['edge1', 'basens/sub', 'invalid', 'package path "basens/sub" conflicts with existing package "basens": packages cannot be nested'],
      ['edge2', 'basens/sub', 'invalid', 'package path "basens/sub" conflicts with existing package "basens": packages cannot be nested'],
      ['edge2', 'other', 'create', 'catalog/app v1 (catalog.app.v1)'],
    ]);
    expect(refsOf(repo('edge1'))).toBe(before[0]);
    expect(refsOf(repo('edge2'))).toMatch(/refs\/tags\/clusters\/other\/v1 /);
    expect(refsOf(repo('edge2'))).not.toMatch(/basens\/sub/);
  });

  it('of two packages one run would create one inside the other, creates the outer one only', async () => {
    const entries = await published([
      { name: 'outer', repo: 'edge1', pkg: 'team' },
      { name: 'inner', repo: 'edge1', pkg: 'team/sub' },
    ]);
    expect(entries).toEqual([
      ['edge1', 'team', 'create', 'catalog/app v1 (catalog.app.v1)'],
      ['edge1', 'team/sub', 'invalid', 'package path "team/sub" conflicts with package "team", which PackageVariant default/outer creates: packages cannot be nested'],
    ]);
    expect(git(['--git-dir', repo('edge1'), 'ls-tree', '-r', '--name-only', 'main', 'team'])).toBe(['team/Kptfile', 'team/cm.yaml', 'team/package-context.yaml'].join('\n'));
  });
});
