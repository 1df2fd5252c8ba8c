/**
 * `--shard I/N`: for N = 1, 3 and 7, the shards' plans are disjoint, never write one repository
 * twice, and together are the plan of one unsharded run; the hash that assigns a repository is
 * stable.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSyncInputs } from '../../src/sync/inputs';
import { planSync, writePlan } from '../../src/sync/run';
import type { SyncSettings } from '../../src/sync/settings';
import { readShard, shardOf } from '../../src/sync/shard';
import { configMap, kptfile } from '../pkg/trees';
import { emptyRepository, publish, syncSettings, writeFleet } from './porch-repos';

// Each test runs several syncs on real git repositories: seconds each on a busy 2-core machine.
jest.setTimeout(60_000);

const EDGES = Array.from({ length: 9 }, (_, i) => `edge${i}`);
let dir: string;
const settings = (over: Partial<SyncSettings> = {}): SyncSettings => syncSettings(dir, over);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pv-sync-shard-'));
  emptyRepository(join(dir, 'catalog.git'));
  publish(join(dir, 'catalog.git'), 'app', 1, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '1' }) });
  publish(join(dir, 'catalog.git'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }) });
  for (const edge of EDGES) emptyRepository(join(dir, `${edge}.git`));
  // A fleet in several states: published everywhere, then a third of it left to delete.
  const first = await planSync(readSyncInputs([writeFleet(dir, { edges: EDGES })]), settings({ lifecycle: 'published' }));
  expect(await writePlan(first.plan, first.remotes)).toEqual([]);
  const file = writeFleet(dir, { edges: EDGES, workspace: 'v2' });
  let text = readFileSync(file, 'utf8');
  for (const edge of EDGES.filter((_, i) => i % 3 === 0)) text = text.replace(`name: ${edge}\n  labels:\n    tier: edge`, `name: ${edge}\n  labels:\n    tier: retired`);
  writeFileSync(file, text);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A plan as comparable rows: every downstream's line, every repository's ref moves. */
async function planRows(shard?: { index: number; count: number }) {
  const { plan } = await planSync(readSyncInputs([join(dir, 'fleet.yaml')]), settings({ allowDelete: true, ...(shard ? { shard } : {}) }));
  return {
    downstreams: plan.downstreams.map((d) => JSON.stringify([d.repository, d.pkg, d.variant, d.action, d.detail, d.refs])),
    writes: plan.writes.map((w) => JSON.stringify([w.repository, w.updates.map((u) => [u.ref, u.expected, typeof u.target])])),
  };
}

describe('sharding', () => {
  it.each([1, 3, 7])('%i shards: disjoint plans whose union is the unsharded plan', async (count) => {
    const whole = await planRows();
    expect(whole.downstreams.length).toBe(EDGES.length);
    const shards = await Promise.all(Array.from({ length: count }, (_, index) => planRows({ index, count })));
    const downstreams = shards.flatMap((s) => s.downstreams);
    const writes = shards.flatMap((s) => s.writes);
    expect(new Set(downstreams).size).toBe(downstreams.length);
    expect(new Set(writes.map((w) => JSON.parse(w)[0])).size).toBe(writes.length);
    expect([...downstreams].sort()).toEqual([...whole.downstreams].sort());
    expect([...writes].sort()).toEqual([...whole.writes].sort());
  }, 120_000);

  it('assigns a repository by a stable hash of its namespace and name: the first four bytes of its SHA-256, modulo N', () => {
    // sha256("default/edge0") begins bd7cbb0a (3179068170), sha256("prod/cluster-0042") ab186944 (2870503748).
    expect([shardOf('default/edge0', 7), shardOf('default/edge0', 1000), shardOf('prod/cluster-0042', 7), shardOf('prod/cluster-0042', 1000), shardOf('default/edge0', 1)]).toEqual([5, 170, 0, 748, 0]);
    expect([readShard('2/7'), readShard('7/7'), readShard('0/0'), readShard('a/b')]).toEqual([{ index: 2, count: 7 }, undefined, undefined, undefined]);
  });
});
