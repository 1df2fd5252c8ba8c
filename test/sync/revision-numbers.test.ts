/**
 * Issue 26, items 5 and 11: revision numbers as Porch reads them from tags. A tag `<pkg>/3` is
 * revision 3, so the next approval is `<pkg>/v4`; ten-digit revisions are read; a tag whose number
 * is beyond what Porch's clients read makes that one downstream invalid, naming the tag.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSyncInputs } from '../../src/sync/inputs';
import { planSync, writePlan } from '../../src/sync/run';
import type { SyncSettings } from '../../src/sync/settings';
import { git } from '../pkg/git-repos';
import { catalogAndEdges, refsOf, syncSettings, writeFleet } from './porch-repos';

// Each test runs several syncs on real git repositories: seconds each on a busy 2-core machine.
jest.setTimeout(60_000);

let dir: string;
const repo = (name: string) => join(dir, `${name}.git`);

/** The fleet, with the region of its package context: a new region is an edit of every downstream. */
function fleet(region: string) {
  const file = writeFleet(dir);
  writeFileSync(file, readFileSync(file, 'utf8').replace('region: eu', `region: ${region}`));
  return readSyncInputs([file]);
}

async function publishAll(region: string, over: Partial<SyncSettings> = {}) {
  const planned = await planSync(fleet(region), syncSettings(dir, { lifecycle: 'published', ...over }));
  expect(await writePlan(planned.plan, planned.remotes)).toEqual([]);
  return planned.plan;
}

const tags = (name: string) => refsOf(repo(name)).split('\n').filter((line) => line.includes('refs/tags/')).map((line) => line.split(' ')[0]!.replace(/^refs\/tags\//, ''));
const tagAt = (name: string, tag: string, at: string) => git(['--git-dir', repo(name), 'tag', tag, at]);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-sync-revisions-'));
  catalogAndEdges(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('revision numbers from tags', () => {
  it('reads <pkg>/3 as revision 3, as Porch does, and publishes <pkg>/v4 next', async () => {
    await publishAll('eu');
    tagAt('edge1', 'app/3', 'app/v1');
    await publishAll('us');
    expect(tags('edge1').sort()).toEqual(['app/3', 'app/v1', 'app/v4']);
    expect(tags('edge2').sort()).toEqual(['app/v1', 'app/v2']);
  });

  it('reads ten-digit revisions: after v999999999 come v1000000000 and v1000000001', async () => {
    await publishAll('eu');
    tagAt('edge1', 'app/v999999999', 'app/v1');
    await publishAll('us');
    await publishAll('ap');
    expect(tags('edge1').sort()).toEqual(['app/v1', 'app/v1000000000', 'app/v1000000001', 'app/v999999999']);
  });

  it('stops only the downstream whose tag holds a number Porch cannot read, naming the tag', async () => {
    await publishAll('eu');
    tagAt('edge1', 'app/v99999999999', 'app/v1');
    const before = refsOf(repo('edge1'));
    const plan = await publishAll('us');
    expect(plan.downstreams.map((d) => [d.repository, d.action, d.detail])).toEqual([
      ['edge1', 'invalid', 'tag app/v99999999999 holds a revision number above 2147483647, the largest Porch\'s clients read: remove or rename it, then sync again'],
      ['edge2', 'edit', expect.any(String)],
    ]);
    expect(refsOf(repo('edge1'))).toBe(before);
    expect(tags('edge2').sort()).toEqual(['app/v1', 'app/v2']);
  });
});
