/**
 * Every PackageVariant and PackageVariantSet example of the design document syncs (issue 21): each
 * design scenario's objects (the example, its Repositories, the objects it selects or injects) go to
 * sync as files, with every Repository a local bare repository; the upstream packages are published
 * in Porch's layout, with the scenario's package as their content where it has one. Each variant
 * gets its draft, and a second sync has nothing to do.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSyncInputs } from '../../src/sync/inputs';
import { planSync, writePlan } from '../../src/sync/run';
import type { SyncSettings } from '../../src/sync/settings';
import { designFleet, docsOf, syncedDesignScenarios } from './design-fleet';
import { refsOf, show, syncSettings } from './porch-repos';

// Each test runs several syncs on real git repositories: seconds each on a busy 2-core machine.
jest.setTimeout(60_000);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-sync-design-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const settings = (over: Partial<SyncSettings> = {}): SyncSettings => syncSettings(dir, over);

describe('the design examples through sync', () => {
  it.each(syncedDesignScenarios().map((scenario) => [scenario.name, scenario] as const))('%s', async (_name, scenario) => {
    const { variants, others } = designFleet(dir, scenario);

    const { plan, remotes } = await planSync(readSyncInputs([join(dir, 'inputs.yaml')]), settings());
    expect(plan.problems).toEqual([]);
    expect(plan.downstreams.filter((d) => d.action !== 'create')).toEqual([]);
    expect(plan.downstreams.length).toBeGreaterThanOrEqual(variants.length);
    expect(await writePlan(plan, remotes)).toEqual([]);
    let injections = 0;
    for (const d of plan.downstreams) {
      const draft = new RegExp(`refs/heads/drafts/${d.pkg}/packagevariant-1 (\\w+)`).exec(refsOf(join(dir, `${d.repository}.git`)));
      expect(draft).not.toBeNull();
      expect(show(join(dir, `${d.repository}.git`), `${draft![1]}:${d.pkg}/Kptfile`)).toContain(`name: ${d.pkg.split('/').pop()}`);
      // A variant that injects one of the objects given: the draft holds its data (the design's example 10).
      const injected = (variants.find((v) => v.kind === 'PackageVariant')?.spec?.injectors as { name: string }[] | { name: string } | undefined) ?? [];
      for (const { name } of [injected].flat()) {
        const source = others.find((o) => o.kind === 'ServiceEndpoints' && o.metadata.name === name);
        if (!source) continue;
        expect(docsOf(show(join(dir, `${d.repository}.git`), `${draft![1]}:${d.pkg}/service-endpoints.yaml`))[0]!.spec).toEqual(source.spec);
        injections += 1;
      }
    }
    expect(injections).toBe(scenario.name.startsWith('10:') ? 1 : 0);
    const again = await planSync(readSyncInputs([join(dir, 'inputs.yaml')]), settings());
    expect(again.plan.downstreams.map((d) => d.action)).toEqual(plan.downstreams.map(() => 'unchanged'));
  });
});
