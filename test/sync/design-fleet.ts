/**
 * The design document's PackageVariant and PackageVariantSet examples as fleets on this machine:
 * each scenario's objects (the example, its Repositories, the objects it selects or injects) in one
 * input file, every Repository a local bare repository (downstreams deployment repositories), the
 * upstream packages published in Porch's layout, with the scenario's package as their content where
 * it has one.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { designScenarios, type Scenario as DesignScenario } from '../design-examples/scenarios';
import { kptfile } from '../pkg/trees';
import { emptyRepository, publish } from './porch-repos';

export type Doc = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; spec?: Record<string, unknown>; items?: Doc[] };

export const docsOf = (text: string): Doc[] => parseAllDocuments(text).map((d) => d.toJS() as Doc).filter(Boolean);
const isRepository = (doc: Doc) => doc.kind === 'Repository' && doc.apiVersion === 'config.porch.kpt.dev/v1alpha1';
const isVariant = (doc: Doc) => doc.kind === 'PackageVariant' || doc.kind === 'PackageVariantSet';

/** The scenarios that hold a PackageVariant or a PackageVariantSet. */
export const syncedDesignScenarios = (): DesignScenario[] => designScenarios().filter((scenario) => docsOf(scenario.functionConfig).some((doc) => isVariant(doc) || doc.kind === 'List'));

export interface DesignFleet {
  readonly variants: readonly Doc[];
  /** The objects given besides Repositories: variants, sets, injection sources, selected objects. */
  readonly others: readonly Doc[];
  /** Every Repository, with whether it is a deployment repository. */
  readonly repositories: readonly { readonly name: string; readonly deployment: boolean }[];
}

/** The scenario's repositories in `dir` (`<name>.git`) and its objects in `dir/inputs.yaml`. */
export function designFleet(dir: string, scenario: DesignScenario): DesignFleet {
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
  return { variants, others, repositories: [...repositories.keys()].map((name) => ({ name, deployment: !upstreams.has(name) })) };
}
