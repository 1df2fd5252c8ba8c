/**
 * Every PackageVariant and PackageVariantSet example of the design document syncs (issue 21): each
 * design scenario's objects (the example, its Repositories, the objects it selects or injects) go to
 * sync as files, with every Repository a local bare repository; the upstream packages are published
 * in Porch's layout, with the scenario's package as their content where it has one. Each variant
 * gets its draft, and a second sync has nothing to do.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { readSyncInputs } from '../../src/sync/inputs';
import { planSync, writePlan } from '../../src/sync/run';
import type { SyncSettings } from '../../src/sync/settings';
import { designScenarios } from '../design-examples/scenarios';
import { kptfile } from '../pkg/trees';
import { emptyRepository, publish, refsOf, show, syncSettings } from './porch-repos';

// Each test runs several syncs on real git repositories: seconds each on a busy 2-core machine.
jest.setTimeout(60_000);

type Doc = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; spec?: Record<string, unknown>; items?: Doc[] };

const docsOf = (text: string): Doc[] => parseAllDocuments(text).map((d) => d.toJS() as Doc).filter(Boolean);
const isRepository = (doc: Doc) => doc.kind === 'Repository' && doc.apiVersion === 'config.porch.kpt.dev/v1alpha1';
const isVariant = (doc: Doc) => doc.kind === 'PackageVariant' || doc.kind === 'PackageVariantSet';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-sync-design-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const settings = (over: Partial<SyncSettings> = {}): SyncSettings => syncSettings(dir, over);

describe('the design examples through sync', () => {
  const scenarios = designScenarios().filter((scenario) => docsOf(scenario.functionConfig).some((doc) => isVariant(doc) || doc.kind === 'List'));

  it.each(scenarios.map((scenario) => [scenario.name, scenario] as const))('%s', async (_name, scenario) => {
    const config = docsOf(scenario.functionConfig).flatMap((doc) => (doc.kind === 'List' ? doc.items! : [doc]));
    const packageDocs = Object.entries(scenario.files).filter(([path]) => path !== 'Kptfile' && !path.startsWith('package-variants/')).flatMap(([, text]) => docsOf(text));
    const isPackage = !packageDocs.some(isRepository);
    const objects = [...config, ...(isPackage ? [] : packageDocs)];
    const variants = objects.filter(isVariant);
    // Every Repository the variants name, given or not, as a local bare repository; downstreams are deployment repositories.
    const repositories = new Map(objects.filter(isRepository).map((doc) => [doc.metadata.name, doc]));
    const upstreams = new Map<string, Set<string>>();
    for (const variant of variants) {
      const { upstream, downstream } = variant.spec as { upstream: { repo: string; package: string }; downstream?: { repo: string } };
      (upstreams.get(upstream.repo) ?? upstreams.set(upstream.repo, new Set()).get(upstream.repo)!).add(upstream.package);
      for (const name of [upstream.repo, downstream?.repo].filter((n): n is string => !!n)) {
        if (!repositories.has(name)) repositories.set(name, { apiVersion: 'config.porch.kpt.dev/v1alpha1', kind: 'Repository', metadata: { name, namespace: 'default' }, spec: {} });
      }
    }
    for (const [name, doc] of repositories) {
      doc.spec = { ...doc.spec, type: 'git', deployment: !upstreams.has(name), git: { repo: `./${name}.git`, branch: 'main' } };
      emptyRepository(join(dir, `${name}.git`));
    }
    for (const [repo, packages] of upstreams) {
      for (const pkg of packages) {
        const files = isPackage ? { ...scenario.files, Kptfile: scenario.files.Kptfile!.replace(/name: .*/, `name: ${pkg}`) } : { Kptfile: kptfile(pkg) };
        publish(join(dir, `${repo}.git`), pkg, 1, files);
      }
    }
    const others = objects.filter((doc) => !isRepository(doc));
    writeFileSync(join(dir, 'inputs.yaml'), [...repositories.values(), ...others].map((doc) => stringify(doc)).join('---\n'));

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
