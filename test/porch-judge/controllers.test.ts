/**
 * Porch's own PackageVariantSet and PackageVariant controllers beside `package-variant sync`
 * (issue 28): one fleet on two copies of the same repositories, Porch's controllers run on one and
 * sync on the other, step by step, and after every step what each copy holds compared: every
 * PackageRevision Porch's code lists (name, lifecycle, revision, latest, tasks, upstream lock, every
 * file) and every ref. Needs Go; skipped, with one line, without it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSyncInputs } from '../../src/sync/inputs';
import { planSync, writePlan } from '../../src/sync/run';
import { configMap, kptfile } from '../pkg/trees';
import { catalogAndEdges, publish, syncSettings, writeFleet } from '../sync/porch-repos';
import { differences, leftBehind, porchControllers, porchLifecycle, withoutNamedDifferences, type FleetCopy } from './controllers';
import { describeWithJudge, porchList } from './judge';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-porch-controllers-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const REPOSITORIES = ['catalog', 'edge1', 'edge2'];

/** A copy of the fleet's repositories in `dir/name`, its fleet file naming them by absolute path. */
function fleetCopy(name: string): FleetCopy {
  const root = join(dir, name);
  mkdirSync(root);
  catalogAndEdges(root);
  return { root, fleet: join(root, 'fleet.yaml'), repositories: REPOSITORIES };
}

/** The copy's fleet file as the step has it: the set's upstream workspace, its package context, the edges it selects. */
function writeStep(copy: FleetCopy, step: { workspace: string; region: string; edges: readonly string[] }): void {
  writeFleet(copy.root, { workspace: step.workspace });
  const text = readFileSync(copy.fleet, 'utf8')
    .replaceAll('repo: ./', `repo: ${copy.root}/`)
    .replace('region: eu', `region: ${step.region}`)
    .replace(/name: (edge\d)\n  labels:\n    tier: edge/g, (line, edge: string) => (step.edges.includes(edge) ? line : line.replace('tier: edge', 'tier: gone')));
  writeFileSync(copy.fleet, text);
}

async function sync(copy: FleetCopy): Promise<void> {
  const planned = await planSync(readSyncInputs([copy.fleet]), syncSettings(copy.root, { allowDelete: true }));
  const failures = await writePlan(planned.plan, planned.remotes);
  if (failures.length > 0) throw new Error(`sync's push failed: ${JSON.stringify(failures)}`);
}

describeWithJudge("Porch's controllers and sync leave the same repositories", "Porch's controllers beside sync (test/porch-judge/controllers.test.ts)", () => {
  it('reads the Repositories of a fleet file sync reads, their relative paths from the file', () => {
    catalogAndEdges(dir);
    const listing = porchList(writeFleet(dir), join(dir, 'porch-cache'));
    expect(listing.repositories.map((r) => [r.name, r.packageRevisions.map((p) => `${p.name} ${p.lifecycle}`)])).toEqual([
      ['catalog', ['catalog.app.main Published', 'catalog.app.v1 Published']],
      ['edge1', []],
      ['edge2', []],
    ]);
  });

  it('create, edit, approve, upgrade, a target going and coming back', async () => {
    const [porchCopy, syncCopy] = [fleetCopy('porch'), fleetCopy('sync')];
    const found = new Map<string, string[]>();
    const step = async (name: string, fleet: { workspace: string; region: string; edges: readonly string[] }, between?: (copy: FleetCopy) => void) => {
      for (const copy of [porchCopy, syncCopy]) {
        between?.(copy);
        writeStep(copy, fleet);
      }
      const report = porchControllers(porchCopy);
      await sync(syncCopy);
      const seen = differences(porchCopy, leftBehind(porchCopy), syncCopy, leftBehind(syncCopy));
      if (!report.converged || Object.keys(report.errors).length > 0) seen.unshift(`Porch's controllers: ${JSON.stringify(report)}`);
      found.set(name, seen);
    };
    const approve = (workspace: string) => (copy: FleetCopy) => {
      for (const edge of ['edge1', 'edge2']) {
        porchLifecycle(copy, `${edge}.app.${workspace}`, 'Proposed');
        porchLifecycle(copy, `${edge}.app.${workspace}`, 'Published');
      }
    };
    const both = ['edge1', 'edge2'];
    await step('create', { workspace: 'v1', region: 'eu', edges: both });
    await step('edit a draft', { workspace: 'v1', region: 'us', edges: both });
    await step('approve', { workspace: 'v1', region: 'us', edges: both }, approve('packagevariant-1'));
    await step('edit a published revision', { workspace: 'v1', region: 'ap', edges: both });
    await step('approve the edit', { workspace: 'v1', region: 'ap', edges: both }, approve('packagevariant-2'));
    await step('upgrade', { workspace: 'v2', region: 'ap', edges: both }, (copy) => {
      publish(join(copy.root, 'catalog.git'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }) });
    });
    await step('a target goes away', { workspace: 'v2', region: 'ap', edges: ['edge1'] });
    await step('the target comes back', { workspace: 'v2', region: 'ap', edges: both });
    expect([...found].filter(([name]) => name !== 'the target comes back').flatMap(([name, seen]) => seen.map((d) => `${name}: ${d}`))).toEqual([]);
    // README "Departures from Porch": Porch's variant made again has a new UID and owns nothing, so
    // it clones a new draft beside the revisions whose deletion was proposed; sync's ownership is in
    // git, so it takes the package back (the proposals undone) and upgrades it. The Kptfiles differ by
    // that alone: a clone sets the upstream identifier single-quoted, an upgrade writes the Kptfile
    // again from its fields, plain.
    expect(found.get('the target comes back')).toEqual([
      'edge2.app.packagevariant-1 DeletionProposed: only Porch leaves it',
      'edge2.app.packagevariant-1 Published: only sync leaves it',
      'edge2.app.packagevariant-2 DeletionProposed: only Porch leaves it',
      'edge2.app.packagevariant-2 Published: only sync leaves it',
      `edge2.app.packagevariant-3 Draft: tasks: Porch [{"type":"clone","clone":{"upstreamRef":{"upstreamRef":{"name":"catalog.app.v2"}}}}], sync [{"type":"upgrade","upgrade":{"oldUpstreamRef":{"name":"catalog.app.v1"},"newUpstreamRef":{"name":"catalog.app.v2"},"localPackageRevisionRef":{"name":"edge2.app.packagevariant-2"},"strategy":"resource-merge"}}]`,
      expect.stringMatching(/^edge2\.app\.packagevariant-3 Draft: file Kptfile:\n--- Porch\n(?:(?!--- sync)[^])*identifier: 'kpt\.dev\|Kptfile\|default\|app'\n(?:(?!--- sync)[^])*--- sync\n[^]*identifier: kpt\.dev\|Kptfile\|default\|app\n/),
      'edge2: ref refs/heads/deletionProposed/app/v1: only Porch leaves it',
      'edge2: ref refs/heads/deletionProposed/app/v2: only Porch leaves it',
    ]);
  }, 10 * 60_000);
});

describe('the differences the comparison names and takes out', () => {
  it("takes out only sync's ownership record, and an annotations map it leaves empty", () => {
    const kptfileText = 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: # kpt-merge: /app\n  name: app\n  annotations:\n    package-variant.github.io/owner: PackageVariantSet/default/fleet\n    internal.kpt.dev/upstream-identifier: x\n    team: blue\n';
    expect(withoutNamedDifferences(kptfileText)).toBe('apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: # kpt-merge: /app\n  name: app\n  annotations:\n    internal.kpt.dev/upstream-identifier: x\n    team: blue\n');
    const owned = 'kind: Kptfile\nmetadata:\n  name: app\n  annotations:\n    package-variant.github.io/owner: x\ninfo: {}\n';
    expect(withoutNamedDifferences(owned)).toBe('kind: Kptfile\nmetadata:\n  name: app\ninfo: {}\n');
  });
});
