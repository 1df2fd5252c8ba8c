/**
 * Repositories a run found settled (src/sync/settled.ts): the next run with the same inputs and refs
 * takes their plan from the record and reads nothing of them but their fetch; anything moved, any
 * input changed, a render, or a record that is not the user's own, and the plan is made from the
 * content again. Whatever the record, the plan is the plan a run without records makes.
 */
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { readSyncInputs } from '../../src/sync/inputs';
import { planText } from '../../src/sync/plan';
import { planSync, writePlan } from '../../src/sync/run';
import type { SyncSettings } from '../../src/sync/settings';
import type { PackageTree } from '../../src/package/tree';
import { git } from '../pkg/git-repos';
import { configMap, kptfile } from '../pkg/trees';
import { catalogAndEdges, packageVariant, publish, syncSettings, writeFleet } from './porch-repos';

jest.setTimeout(60_000);

let dir: string;
const repo = (name: string) => join(dir, `${name}.git`);
const state = () => ({ PACKAGE_VARIANT_STATE_DIR: join(dir, 'state') });
const recordsDir = () => join(dir, 'state', 'sync-settled');

/** The repositories a run read beyond their fetch, by name. */
let read: string[] = [];

/** Settings that record and look up settled repositories, and note each repository read. */
function recording(over: Partial<SyncSettings> = {}): SyncSettings {
  const base = syncSettings(dir, over);
  return {
    ...base,
    settledRecords: state(),
    open: async (repository) => {
      const fetched = await base.open(repository);
      return { fetched: fetched.fetched, read: () => (read.push(repository.name), fetched.read()) };
    },
  };
}

const inputs = (template = '') => readSyncInputs([writeFleet(dir, { template })]);

/** The plan of a run with records, and of one without, as printed. */
async function bothPlans(template = '', over: Partial<SyncSettings> = {}): Promise<{ recorded: string; full: string; read: string[] }> {
  read = [];
  const withRecords = await planSync(inputs(template), recording(over));
  const readByRecorded = [...new Set(read)].sort();
  const without = await planSync(inputs(template), syncSettings(dir, over));
  return { recorded: planText(withRecords.plan, withRecords.urls), full: planText(without.plan, without.urls), read: readByRecorded };
}

/** Creates the drafts, then runs once more to find them settled and record it. */
async function settledFleet(): Promise<void> {
  const created = await planSync(inputs(), recording());
  expect(await writePlan(created.plan, created.remotes)).toEqual([]);
  read = [];
  const first = await planSync(inputs(), recording());
  expect(first.plan.downstreams.map((d) => d.action)).toEqual(['unchanged', 'unchanged']);
  expect(read).toEqual(expect.arrayContaining(['edge1', 'edge2']));
}

/** A fresh directory with the catalog and the edges, for each test of a block. */
function freshFleetEach(): void {
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pv-settled-'));
    catalogAndEdges(dir);
    read = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
}

describe('a repository found settled', () => {
  freshFleetEach();

  it('is not read again by a run with the same inputs, whose plan is the one a full run makes', async () => {
    await settledFleet();
    const { recorded, full, read: again } = await bothPlans();
    expect(again).not.toContain('edge1');
    expect(again).not.toContain('edge2');
    expect(recorded).toBe(full);
    expect(recorded).toMatch(/unchanged +app +draft edge1\.app\.packagevariant-1/);
  });

  it('is read again when one of its refs moved: a person\'s draft beside the controller\'s', async () => {
    await settledFleet();
    const main = git(['--git-dir', repo('edge1'), 'rev-parse', 'refs/heads/drafts/app/packagevariant-1']);
    git(['--git-dir', repo('edge1'), 'update-ref', 'refs/heads/drafts/app/by-hand', main]);
    const { recorded, full, read: again } = await bothPlans();
    expect(again).toContain('edge1');
    expect(again).not.toContain('edge2');
    expect(recorded).toBe(full);
    expect(recorded).toContain('by-hand');
  });

  it('is read again when a ref of its upstream moved, and when the inputs changed', async () => {
    await settledFleet();
    publish(repo('catalog'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }) });
    const upstreamMoved = await bothPlans();
    expect(upstreamMoved.read).toEqual(expect.arrayContaining(['edge1', 'edge2']));
    expect(upstreamMoved.recorded).toBe(upstreamMoved.full);
    const changed = await bothPlans('          zone: a\n');
    expect(changed.read).toEqual(expect.arrayContaining(['edge1', 'edge2']));
    expect(changed.recorded).toBe(changed.full);
    expect(changed.recorded).toMatch(/update +app/);
  });

  it('is read again under other settings of the run', async () => {
    await settledFleet();
    const published = await bothPlans('', { lifecycle: 'published' });
    expect(published.read).toEqual(expect.arrayContaining(['edge1', 'edge2']));
    expect(published.recorded).toBe(published.full);
    expect(published.recorded).toMatch(/publish +app/);
  });
});

describe('a record that is not the user\'s own is passed over, and the plan made from the content', () => {
  const records = () => readdirSync(recordsDir()).filter((name) => name.endsWith('.json'));
  // One fleet found settled for the block; each test starts from its state directory as recorded.
  let recordedState: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pv-settled-'));
    catalogAndEdges(dir);
    await settledFleet();
    recordedState = join(dir, 'recorded-state');
    cpSync(join(dir, 'state'), recordedState, { recursive: true });
  });
  beforeEach(() => {
    rmSync(join(dir, 'state'), { recursive: true, force: true });
    cpSync(recordedState, join(dir, 'state'), { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function afterTampering(tamper: (path: string) => void): Promise<void> {
    for (const name of records()) tamper(join(recordsDir(), name));
    const { recorded, full, read: again } = await bothPlans();
    expect(again).toEqual(expect.arrayContaining(['edge1', 'edge2']));
    expect(recorded).toBe(full);
  }

  it('is taken when untouched: the control for the cases below', async () => {
    const { recorded, full, read: again } = await bothPlans();
    expect(again).not.toContain('edge1');
    expect(again).not.toContain('edge2');
    expect(recorded).toBe(full);
  });

  it('a record whose plan was edited after it was sealed', async () => {
    await afterTampering((path) => writeFileSync(path, readFileSync(path, 'utf8').replace(/packagevariant-1/g, 'packagevariant-9')));
  });

  it('a record sealed with another key (another state directory, another user)', async () => {
    await afterTampering(() => writeFileSync(join(dir, 'state', 'journal-key'), Buffer.alloc(32, 7)));
  });

  it.each<[string, (path: string) => void]>([
    ['text that is no record', (path) => writeFileSync(path, 'not json')],
    [
      'a link to a record',
      (path) => {
        const target = join(dir, 'elsewhere.json');
        writeFileSync(target, readFileSync(path));
        rmSync(path);
        symlinkSync(target, path);
      },
    ],
    [
      'a named pipe',
      (path) => {
        rmSync(path);
        expect(spawnSync('mkfifo', [path]).status).toBe(0);
      },
    ],
    ['a record others may write', (path) => chmodSync(path, 0o666)],
    [
      'a key that cannot be read',
      () => {
        rmSync(join(dir, 'state', 'journal-key'), { force: true, recursive: true });
        mkdirSync(join(dir, 'state', 'journal-key'), { recursive: true });
      },
    ],
  ])('%s', async (_name, tamper) => {
    await afterTampering(tamper);
  });
});

describe('what is never recorded', () => {
  freshFleetEach();

  it('a plan with a render: the render runs again each time', async () => {
    const pipeline = `${kptfile('app')}pipeline:\n  mutators:\n  - image: example.invalid/fn:v1\n`;
    publish(repo('catalog'), 'app', 2, { Kptfile: pipeline, 'cm.yaml': configMap('cm', { x: '1' }) });
    let renders = 0;
    const render = async (tree: PackageTree) => ((renders += 1), tree);
    const fleet = () => readSyncInputs([writeFleet(dir, { workspace: 'v2' })]);
    const created = await planSync(fleet(), recording({ render }));
    expect(await writePlan(created.plan, created.remotes)).toEqual([]);
    for (let run = 0; run < 2; run += 1) {
      renders = 0;
      read = [];
      const again = await planSync(fleet(), recording({ render }));
      expect(again.plan.downstreams.map((d) => d.action)).toEqual(['unchanged', 'unchanged']);
      expect(renders).toBe(2);
      expect(read).toEqual(expect.arrayContaining(['edge1', 'edge2']));
    }
  });

  it('a plan that writes: the run after it reads the repository', async () => {
    const created = await planSync(inputs(), recording());
    expect(created.plan.downstreams.map((d) => d.action)).toEqual(['create', 'create']);
    expect(await writePlan(created.plan, created.remotes)).toEqual([]);
    read = [];
    await planSync(inputs(), recording());
    expect(read).toEqual(expect.arrayContaining(['edge1', 'edge2']));
  });
});

describe('the command', () => {
  freshFleetEach();

  it('takes the record on a second run, prints what --recheck prints, and records nothing in the package', async () => {
    const fleet = writeFleet(dir);
    expect(packageVariant(dir, ['sync', fleet]).code).toBe(4);
    const first = packageVariant(dir, ['sync', fleet]);
    const second = packageVariant(dir, ['sync', fleet]);
    const recheck = packageVariant(dir, ['sync', fleet, '--recheck']);
    expect(first.code).toBe(0);
    expect([second.code, second.stdout, second.stderr]).toEqual([first.code, first.stdout, first.stderr]);
    expect([recheck.code, recheck.stdout, recheck.stderr]).toEqual([first.code, first.stdout, first.stderr]);
    expect(readdirSync(recordsDir()).filter((name) => name.endsWith('.json'))).toHaveLength(3);
  });
});
