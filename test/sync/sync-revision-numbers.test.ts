/**
 * Issue 26, items 5 and 11 on local bare repositories: a downstream's revision numbers read from its
 * tags as Porch reads them (`<pkg>/3` is revision 3 as `<pkg>/v3` is), the next one past the largest,
 * and a number Porch's API cannot hold refused for that downstream alone, naming the tag.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planOutcome, type PlannedDownstream } from '../../src/sync/plan';
import { planSync, writePlan } from '../../src/sync/run';
import type { SyncSettings } from '../../src/sync/settings';
import { git } from '../pkg/git-repos';
import { discoverRevisions } from './porch-discovery';
import { catalogAndEdges, fleetInputs, refsOf, show, syncFleet, syncSettings } from './porch-repos';

jest.setTimeout(60_000);

let dir: string;
const repo = (name: string) => join(dir, `${name}.git`);

const settings = (over: Partial<SyncSettings> = {}): SyncSettings => syncSettings(dir, over);

/** The fleet with `region` in its package context. */
const inRegion = (region: string) => (text: string) => text.replace('region: eu', `region: ${region}`);
const regionIs = (region: string) => fleetInputs(dir, {}, inRegion(region));
const sync = (region: string, over: Partial<SyncSettings> = {}) => syncFleet(dir, over, {}, inRegion(region));

const entryOf = (entries: readonly PlannedDownstream[], repository: string) => entries.find((e) => e.repository === repository)!;
/** A tag put by hand on the commit of edge1's app/v1. */
const tagByHand = (name: string) => git(['--git-dir', repo('edge1'), 'tag', name, 'refs/tags/app/v1']);
const appTags = (edge: string) => git(['--git-dir', repo(edge), 'tag', '--list', 'app/*']).split('\n').sort();

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-sync-rev-'));
  catalogAndEdges(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('revision numbers as Porch reads them', () => {
  it('counts a tag <pkg>/3 as revision 3: the next published revision is 4', async () => {
    await sync('eu', { lifecycle: 'published' });
    tagByHand('app/3');
    const plan = await sync('us', { lifecycle: 'published' });
    expect(entryOf(plan.downstreams, 'edge1').refs).toEqual(['main', 'tag app/v4']);
    expect(appTags('edge1')).toEqual(['app/3', 'app/v1', 'app/v4']);
    expect(discoverRevisions(repo('edge1'), 'edge1').filter((r) => r.lifecycle === 'Published').map((r) => r.revision).sort((a, b) => a - b)).toEqual([-1, 1, 3, 4]);
  });

  it('reads a ten-digit revision it published, and publishes the one after it', async () => {
    await sync('eu', { lifecycle: 'published' });
    tagByHand('app/v999999999');
    expect(entryOf((await sync('us', { lifecycle: 'published' })).downstreams, 'edge1').refs).toEqual(['main', 'tag app/v1000000000']);
    expect(entryOf((await sync('eu', { lifecycle: 'published' })).downstreams, 'edge1').refs).toEqual(['main', 'tag app/v1000000001']);
  });

  it('never publishes a revision past the largest Porch can hold: that downstream alone is invalid, naming the tag and repository', async () => {
    await sync('eu', { lifecycle: 'published' });
    tagByHand('app/v2147483647');
    const before = refsOf(repo('edge1'));
    const { plan, remotes } = await planSync(regionIs('us'), settings({ lifecycle: 'published' }));
    expect(entryOf(plan.downstreams, 'edge1')).toMatchObject({
      action: 'invalid',
      detail: 'app of Repository edge1 has revision 2147483647 (tag app/v2147483647), the largest Porch can hold: no further revision of it can be published',
    });
    expect(entryOf(plan.downstreams, 'edge2')).toMatchObject({ action: 'edit', refs: ['main', 'tag app/v2'] });
    expect(planOutcome(plan)).toBe('attention');
    expect(await writePlan(plan, remotes)).toEqual([]);
    expect(refsOf(repo('edge1'))).toBe(before);
    expect(show(repo('edge2'), 'app/v2:app/package-context.yaml')).toContain('region: us');
  });

  it('refuses a package whose tag names a revision Porch cannot read, naming the tag and repository, and goes on with the others', async () => {
    await sync('eu', { lifecycle: 'published' });
    tagByHand('app/v99999999999');
    const before = refsOf(repo('edge1'));
    const { plan, remotes } = await planSync(regionIs('us'), settings());
    expect(entryOf(plan.downstreams, 'edge1')).toMatchObject({
      action: 'invalid',
      detail: 'tag app/v99999999999 of Repository edge1 names revision 99999999999, past the largest Porch can read (2147483647): the package is left alone until the tag is removed',
    });
    expect(entryOf(plan.downstreams, 'edge2')).toMatchObject({ action: 'edit' });
    expect(await writePlan(plan, remotes)).toEqual([]);
    expect(refsOf(repo('edge1'))).toBe(before);
  });
});
