/**
 * One bad thing stops one downstream, with a message that names it, and nothing else (issue 26): a
 * package file nested past the parser's bound, upstream or downstream, makes its downstream
 * invalid while the others are planned and pushed. Fleet files are read within the function's
 * input limits, a refusal naming the file and the line.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError, readSyncInputs } from '../../src/sync/inputs';
import { planSync, writePlan } from '../../src/sync/run';
import { git } from '../pkg/git-repos';
import { configMap, kptfile } from '../pkg/trees';
import { aliasBomb, catalogAndEdges, publish, refsOf, show, syncSettings, writeFleet } from './porch-repos';

let dir: string;
const repo = (name: string) => join(dir, `${name}.git`);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-sync-bad-'));
  catalogAndEdges(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A ConfigMap whose data nests `levels` flow lists on one line. */
const deepFlow = (levels: number) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  x: ${'['.repeat(levels)}${']'.repeat(levels)}\n`;
/** A ConfigMap whose data nests `levels` block maps, a key a line, each a column deeper. */
const deepBlock = (levels: number) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n${Array.from({ length: levels }, (_, i) => `${' '.repeat(i + 2)}k:\n`).join('')}${' '.repeat(levels + 2)}x\n`;

/** A PackageVariant from the catalog's `pkg` to `edge`'s `app`; `more`: further lines of its spec. */
const variant = (name: string, pkg: string, edge: string, region = 'eu', more = '') =>
  `---\napiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: ${name}\nspec:\n  upstream: {repo: catalog, package: ${pkg}, revision: 1}\n  downstream: {repo: ${edge}, package: app}\n  packageContext:\n    data:\n      region: ${region}\n${more}`;

/** A person publishes the next revision of edge's `app`: the latest one with `deep.yaml` added. */
function publishDeepEdit(edge: string, revision: number): void {
  const base = git(['--git-dir', repo(edge), 'rev-parse', `refs/tags/app/v${revision - 1}`]);
  const files = Object.fromEntries(git(['--git-dir', repo(edge), 'ls-tree', '-r', '--name-only', base, 'app/']).split('\n').map((path) => [path.slice('app/'.length), `${show(repo(edge), `${base}:${path}`)}\n`]));
  publish(repo(edge), 'app', revision, { ...files, 'deep.yaml': deepFlow(100_000) }, 'by-hand');
}

/** The Repositories of the fleet and the variants given. */
function fleetOf(...variants: string[]): string {
  const file = writeFleet(dir);
  const repositories = readFileSync(file, 'utf8').split('---\napiVersion: config.porch.kpt.dev/v1alpha2')[0]!;
  writeFileSync(file, repositories + variants.join(''));
  return file;
}

describe('a package file nested past the bound', () => {
  it.each([
    ['flow collections 100,000 levels deep', deepFlow(100_000), 6],
    ['block maps 5,000 levels deep', deepBlock(5_000), 205],
  ])('upstream (%s) makes its downstream invalid, naming the file and the bound; the others are pushed', async (_what, deep, line) => {
    publish(repo('catalog'), 'deep', 1, { Kptfile: kptfile('deep'), 'cm.yaml': configMap('cm', { x: '1' }), 'deep.yaml': deep });
    const file = fleetOf(variant('bad', 'deep', 'edge1'), variant('good', 'app', 'edge2'));
    const { plan, remotes } = await planSync(readSyncInputs([file]), syncSettings(dir));
    expect(plan.downstreams.map((d) => [d.repository, d.action, d.detail])).toEqual([
      ['edge1', 'invalid', `upstream catalog.deep.v1: deep.yaml: nested too deeply: past 200 levels at line ${line} of its document; YAML nested deeper than that is not read (see "Safety" in the README)`],
      ['edge2', 'create', 'catalog/app v1 (catalog.app.v1)'],
    ]);
    const edge1 = refsOf(repo('edge1'));
    expect(await writePlan(plan, remotes)).toEqual([]);
    expect(refsOf(repo('edge1'))).toBe(edge1);
    expect(refsOf(repo('edge2'))).toMatch(/refs\/heads\/drafts\/app\/packagevariant-1/);
  });

  it('downstream (a published revision someone edited) makes its downstream invalid, naming the revision and the file', async () => {
    const first = await planSync(readSyncInputs([fleetOf(variant('a', 'app', 'edge1'), variant('b', 'app', 'edge2'))]), syncSettings(dir, { lifecycle: 'published' }));
    expect(await writePlan(first.plan, first.remotes)).toEqual([]);
    publishDeepEdit('edge1', 2);
    const { plan } = await planSync(readSyncInputs([fleetOf(variant('a', 'app', 'edge1', 'us'), variant('b', 'app', 'edge2', 'us'))]), syncSettings(dir));
    expect(plan.downstreams.map((d) => [d.repository, d.action, d.detail])).toEqual([
      ['edge1', 'invalid', 'edge1.app.by-hand: deep.yaml: nested too deeply: past 200 levels at line 6 of its document; YAML nested deeper than that is not read (see "Safety" in the README)'],
      ['edge2', 'edit', 'the variant changes edge2.app.packagevariant-1 (v1)'],
    ]);
  });

  it('downstream, in a package to orphan, leaves that package as it is and says why', async () => {
    const orphan = '  deletionPolicy: orphan\n';
    const first = await planSync(readSyncInputs([fleetOf(variant('a', 'app', 'edge1', 'eu', orphan), variant('b', 'app', 'edge2'))]), syncSettings(dir, { lifecycle: 'published' }));
    expect(await writePlan(first.plan, first.remotes)).toEqual([]);
    publishDeepEdit('edge1', 2);
    const edge1 = refsOf(repo('edge1'));
    const { plan, remotes } = await planSync(readSyncInputs([fleetOf(variant('b', 'app', 'edge2'))]), syncSettings(dir, { allowDelete: true }));
    expect(plan.downstreams.map((d) => [d.repository, d.action, d.detail])).toEqual([
      ['edge1', 'invalid', 'PackageVariant/default/a no longer asks for it; deletionPolicy orphan: by-hand cannot be read: deep.yaml: nested too deeply: past 200 levels at line 6 of its document; YAML nested deeper than that is not read (see "Safety" in the README)'],
      ['edge2', 'unchanged', ''],
    ]);
    expect(await writePlan(plan, remotes)).toEqual([]);
    expect(refsOf(repo('edge1'))).toBe(edge1);
  });
});

describe('fleet files', () => {
  /** The message readSyncInputs refuses `files` with. */
  function refusal(files: Record<string, string>): string {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    try {
      readSyncInputs(Object.keys(files).map((name) => join(dir, name)));
    } catch (error) {
      if (error instanceof InputError) return error.message;
      throw error;
    }
    throw new Error('the inputs were read');
  }

  it('are read up to 64 MiB in a run, the file that passes it named and not read to its end', () => {
    const line = `# ${'x'.repeat(1021)}\n`;
    const fleet = readFileSync(writeFleet(dir), 'utf8');
    const started = Date.now();
    expect(refusal({ 'a.yaml': fleet, 'b.yaml': line.repeat(65_536) })).toBe(
      `${join(dir, 'b.yaml')}: more than 67,108,864 bytes of input files with those before it: sync reads at most 67,108,864 bytes in 2,500,000 lines and flow entries of input files in a run, as the function does (see "Safety" in the README)`,
    );
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('are read up to 2,500,000 lines and flow entries in a run', () => {
    expect(refusal({ 'lines.yaml': '#\n'.repeat(2_500_001) })).toMatch(/lines\.yaml: 2,500,001 lines and flow entries of input files with those before it: sync reads at most/);
  });

  it("hand to the full parser only what the function's budget allows, naming the file and the line", () => {
    const json = `[\n${'1,'.repeat(600_000)}1]\n`;
    expect(refusal({ 'fleet.yaml': readFileSync(writeFleet(dir), 'utf8'), 'big.json': json })).toBe(
      `${join(dir, 'big.json')}: the input needs the full YAML parser for more than it reads in a run (600,003 lines and flow entries in one item): it parses at most 16,777,216 characters, 600,000 lines and flow entries (250,000 in one item) and 100,000 documents, for items outside the simple YAML the function reads itself and for the items a run changes (see "Safety" in the README) (${join(dir, 'big.json')} line 1)`,
    );
    const deep = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\ndata:\n  x: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`;
    expect(refusal({ 'a.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n', 'b.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n---\n${deep}` })).toBe(
      `${join(dir, 'b.yaml')} (document 2): nested too deeply: past 200 levels at line 6 of its document; YAML nested deeper than that is not read (see "Safety" in the README) (${join(dir, 'b.yaml')} line 11)`,
    );
  });

  it("name a refused field at the file's own line, in any document of a file of many", () => {
    const pv = (name: string, extra = '') => `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: ${name}\nspec:\n  upstream: {repo: catalog, package: app, revision: 1}\n  downstream: {repo: edge1, package: ${name}}\n${extra}`;
    const text = ['# variants\n', pv('a'), pv('b', '  typo: 1\n'), pv('c'), pv('d', '  other: 2\n')].join('---\n');
    const lines = text.split('\n');
    const file = join(dir, 'variants.yaml');
    expect(refusal({ 'variants.yaml': text }).split('\n')).toEqual([
      `${file}: PackageVariant b: spec.typo: unknown field "typo" (${file} line ${lines.indexOf('  typo: 1') + 1}, column 3)`,
      `${file}: PackageVariant d: spec.other: unknown field "other" (${file} line ${lines.indexOf('  other: 2') + 1}, column 3)`,
    ]);
  });

  it('refuse an alias bomb, naming the file and the line', () => {
    expect(refusal({ 'bomb.yaml': aliasBomb() })).toBe(
      `${join(dir, 'bomb.yaml')} (document 2): its YAML aliases expand too far to be read safely: Excessive alias count indicates a resource exhaustion attack (${join(dir, 'bomb.yaml')} line 6)`,
    );
  });
});
