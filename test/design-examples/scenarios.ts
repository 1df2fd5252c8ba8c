/**
 * Every YAML example of the design document (test/fixtures/design-examples/), made runnable: the
 * package it runs on, the functionConfig, and what the resulting package must hold. The in-process
 * suite (design-examples.test.ts) and the kpt suite (test/e2e/design-examples.test.ts) run the same
 * scenarios. How each example is used:
 *
 *  1  PackageVariant my-pv, a fragment (`...` stands for the rest of its spec): the `...` is
 *     replaced by an upstream and a downstream, and it runs on a package whose Kptfile already has
 *     a mutator.
 *  2  A Kptfile snippet: the expected head of that Kptfile's mutators after example 1; the
 *     package's own mutator must follow.
 *  3  PackageVariantSet with a repositories target, over the Repositories of the design's table at
 *     lines 504-509: the PackageVariants must be the table at lines 493-501, all with the set's
 *     upstream.
 *  4  A spec (two repositorySelectors, package names under the second), given example 3's
 *     apiVersion, kind and metadata, over the same Repositories: the table at lines 530-540.
 *  5  A spec (objectSelector over Teams), given the same header. The design shows no Teams and no
 *     table; four Teams are supplied, two with org=hr and role=dev, and a Repository named after
 *     each: one PackageVariant per matching Team, in the repository of its name, package foo.
 *  6  PackageVariantSet base-ns: three PackageVariants in cluster-01, ns-1, ns-2 and ns-3, with the
 *     set's upstream, as the text after it says.
 *  7  The same with template labels: its PackageVariants must be example 8's.
 *  8  Three PackageVariants, example 7's result: compared spec for spec with what example 7 makes
 *     (the design's names, example-aaaa..., are placeholders; the function names them as Porch
 *     does). Each also runs as a PackageVariant on a base-ns package; its labels are for the
 *     PackageRevision, so the package comes out as it went in.
 *  9  A spec with labelExprs and injectorExprs, given the same header, over the Repositories of the
 *     table at lines 772-777: its PackageVariants must be example 10's.
 * 10  Three PackageVariants, example 9's result: compared with what example 9 makes, and each runs
 *     as a PackageVariant, in a List with the three regions' ServiceEndpoints, on package foo whose
 *     ServiceEndpoints `service-endpoints` is a required injection point: it gets its region's spec.
 */
import { parseAllDocuments } from 'yaml';
import { CONTEXT, type Files } from '../variant/variant-helpers';
import { designTable, readExample, type DesignExample } from './design-doc';

export interface Outcome {
  /** The package after the run, path → text. */
  readonly files: Files;
  /** True when the files are in the function's output order; false when read back sorted by path. */
  readonly ordered: boolean;
}

export interface Scenario {
  readonly name: string;
  /** The design examples (fixture numbers) it runs or checks against. */
  readonly examples: readonly number[];
  /** The package the function runs on. */
  readonly files: Files;
  readonly functionConfig: string;
  /** Jest assertions on the resulting package. */
  check(outcome: Outcome): void;
}

interface PackageVariantDoc {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec: { upstream: unknown; downstream: { repo: string; package: string }; injectors?: unknown; [field: string]: unknown };
}

function documents<T>(text: string): T[] {
  return parseAllDocuments(text).map((doc) => doc.toJS() as T);
}

/** An example of several documents, each as its own text. */
const documentTexts = (text: string): string[] => text.split(/^---$/m).map((part) => part.replace(/^\n/, ''));

/** Each line indented as a List item (`- ` then two spaces). */
const listItem = (text: string): string =>
  text
    .trimEnd()
    .split('\n')
    .map((line, i) => (i === 0 ? `- ${line}` : `  ${line}`))
    .join('\n');

const listOf = (name: string, items: readonly string[]): string => `apiVersion: v1\nkind: List\nmetadata:\n  name: ${name}\nitems:\n${items.map(listItem).join('\n')}\n`;

/** A spec-only example with the apiVersion, kind and metadata of the design's own set (example 3). */
function withSetHeader(spec: DesignExample): string {
  const full = readExample('03-set-repositories.yaml').text;
  return `${full.slice(0, full.indexOf('\nspec:') + 1)}${spec.text}`;
}

/** `region=useast1, env=prod, org=hr` as a YAML flow map. */
const labelsOf = (cell: string): string => `{${cell.split(',').map((pair) => pair.trim().replace('=', ': ')).join(', ')}}`;

/** The Repositories of a design table of repository names and labels, as a package file. */
function repositoriesFrom(lines: readonly [number, number]): string {
  return designTable(...lines, ['Repository', 'Labels'])
    .map(
      ([name, labels]) =>
        `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: ${name}\n  namespace: default\n  labels: ${labelsOf(labels ?? '')}\nspec:\n  type: git\n  deployment: true\n  git:\n    repo: https://git.example.com/fleet/${name}.git\n    branch: main\n`,
    )
    .join('---\n');
}

/** A package's Kptfile; `rest` (top-level YAML) follows `info`. */
const kptfile = (name: string, description: string, rest = ''): string =>
  `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n  annotations:\n    config.kubernetes.io/local-config: "true"\ninfo:\n  description: ${description}\n${rest}`;

const FLEET_KPTFILE = kptfile('fleet', "The fleet's deployment repositories and the PackageVariants made for them");

const FLEET: Files = { Kptfile: FLEET_KPTFILE, 'repositories.yaml': repositoriesFrom([504, 509]) };

/** The PackageVariants the run wrote, in file order. */
function variantsOf(files: Files): PackageVariantDoc[] {
  return Object.entries(files)
    .filter(([path]) => path.startsWith('package-variants/'))
    .flatMap(([, text]) => documents<PackageVariantDoc>(text))
    .filter((doc) => doc.kind === 'PackageVariant');
}

/** (repository, package) of each PackageVariant: in output order, or sorted when the order is not known. */
function pairsOf(outcome: Outcome, expected: readonly string[][]): { actual: string[][]; expected: string[][] } {
  const actual = variantsOf(outcome.files).map((variant) => [variant.spec.downstream.repo, variant.spec.downstream.package]);
  const key = (row: readonly string[]) => row.join('/');
  const sort = (rows: string[][]) => (outcome.ordered ? rows : [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)));
  return { actual: sort(actual), expected: sort(expected.map((row) => [...row])) };
}

const setOf = (set: string) => documents<{ metadata: { name: string; namespace: string }; spec: { upstream: unknown } }>(set)[0]!;

/** Each PackageVariant is named as Porch names it and sits in the set's namespace. */
function expectNamedBySet(outcome: Outcome, set: string): void {
  const { metadata } = setOf(set);
  for (const variant of variantsOf(outcome.files)) {
    const { repo, package: pkg } = variant.spec.downstream;
    expect(variant.metadata).toMatchObject({ name: `${metadata.name}-${repo}-${pkg}`, namespace: metadata.namespace });
  }
}

/** The PackageVariants are exactly `table`, each with the set's upstream. */
function expectFanOut(outcome: Outcome, set: string, table: readonly string[][]): void {
  const { actual, expected } = pairsOf(outcome, table);
  expect(actual).toEqual(expected);
  expectNamedBySet(outcome, set);
  for (const variant of variantsOf(outcome.files)) expect(variant.spec.upstream).toEqual(setOf(set).spec.upstream);
}

/** The design's PackageVariant as the function writes it: one injector written alone is a list of one. */
function inPorchForm(variant: PackageVariantDoc): PackageVariantDoc['spec'] {
  const { injectors } = variant.spec;
  return injectors === undefined || Array.isArray(injectors) ? variant.spec : { ...variant.spec, injectors: [injectors] };
}

/**
 * The run wrote the design's PackageVariants: the same apiVersion, kind, namespace and spec, for the
 * same downstreams. The design's names are placeholders (`example-aaaa`): only the set's name in them
 * is checked; the function names them as Porch does.
 */
function expectDesignVariants(outcome: Outcome, set: string, design: DesignExample): void {
  expectNamedBySet(outcome, set);
  const expected = documents<PackageVariantDoc>(design.text);
  const actual = variantsOf(outcome.files);
  const pairs = pairsOf(outcome, expected.map((v) => [v.spec.downstream.repo, v.spec.downstream.package]));
  expect(pairs.actual).toEqual(pairs.expected);
  for (const want of expected) {
    const got = actual.find((v) => v.spec.downstream.repo === want.spec.downstream.repo && v.spec.downstream.package === want.spec.downstream.package);
    expect(got).toBeDefined();
    expect({ apiVersion: got!.apiVersion, kind: got!.kind, namespace: got!.metadata.namespace }).toEqual({
      apiVersion: want.apiVersion,
      kind: want.kind,
      namespace: want.metadata.namespace,
    });
    expect(got!.spec).toEqual(inPorchForm(want));
    expect(want.metadata.name.startsWith(`${setOf(set).metadata.name}-`)).toBe(true);
  }
}

/** Every file of `files` holds the same documents after the run (formatting aside). */
function expectUnchanged(outcome: Outcome, files: Files): void {
  expect(Object.keys(outcome.files).sort()).toEqual(Object.keys(files).sort());
  for (const [path, text] of Object.entries(files)) expect(documents(outcome.files[path]!)).toEqual(documents(text));
}

// --- examples 1 and 2 -------------------------------------------------------------------------

/** What the design's `...` stands for: the rest of a PackageVariant spec (supplied here). */
const PIPELINE_SPEC_REST = `  upstream:
    repo: platform-catalog
    package: base-ns
    revision: v1
  downstream:
    repo: cluster-01
    package: my-ns`;

const UPSTREAM_MUTATOR = { image: 'gcr.io/kpt-fn/apply-setters:v0.2', configMap: { namespace: 'example' } };

const NAMESPACE_PACKAGE: Files = {
  Kptfile: kptfile(
    'my-ns',
    'A namespace, cloned from platform-catalog/base-ns',
    `pipeline:\n  mutators:\n  - image: ${UPSTREAM_MUTATOR.image}\n    configMap:\n      namespace: ${UPSTREAM_MUTATOR.configMap.namespace}\n`,
  ),
  'namespace.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: example\n',
};

function pipelineScenario(): Scenario {
  const variant = readExample('01-package-variant-pipeline.yaml');
  const prepended = documents<{ pipeline: { mutators: unknown[] } }>(readExample('02-kptfile-pipeline.yaml').text)[0]!.pipeline.mutators;
  return {
    name: "1-2: PackageVariant my-pv's pipeline, prepended as the design's Kptfile shows",
    examples: [1, 2],
    files: NAMESPACE_PACKAGE,
    functionConfig: variant.text.replace(/^ {2}\.\.\.$/m, PIPELINE_SPEC_REST),
    check(outcome) {
      const kptfile = documents<{ pipeline: { mutators: unknown[]; validators?: unknown } }>(outcome.files.Kptfile!)[0]!;
      expect(prepended).toHaveLength(2);
      expect(kptfile.pipeline).toEqual({ mutators: [...prepended, UPSTREAM_MUTATOR] });
    },
  };
}

// --- examples 3 to 7 and 9: fan-out ------------------------------------------------------------

const TEAMS = [
  { name: 'hr-dev-payroll', labels: '{org: hr, role: dev}' },
  { name: 'hr-ops', labels: '{org: hr, role: ops}' },
  { name: 'finance-dev', labels: '{org: finance, role: dev}' },
  { name: 'hr-dev-benefits', labels: '{org: hr, role: dev}' },
];

const teamsFile = TEAMS.map(({ name, labels }) => `apiVersion: krm-platform.bigco.com/v1\nkind: Team\nmetadata:\n  name: ${name}\n  namespace: default\n  labels: ${labels}\nspec:\n  owner: ${name}@bigco.com\n`).join('---\n');

const teamRepositories = TEAMS.map(
  ({ name }) => `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: ${name}\n  namespace: default\nspec:\n  type: git\n  git:\n    repo: https://git.example.com/teams/${name}.git\n    branch: main\n`,
).join('---\n');

function fanOutScenarios(): Scenario[] {
  const repositories = readExample('03-set-repositories.yaml');
  const selectors = withSetHeader(readExample('04-spec-repository-selector.yaml'));
  const objects = withSetHeader(readExample('05-spec-object-selector.yaml'));
  const baseNs = readExample('06-set-base-ns.yaml');
  const labelled = readExample('07-set-base-ns-labels.yaml');
  const expressions = withSetHeader(readExample('09-spec-expressions.yaml'));
  const table = (from: number, to: number) => designTable(from, to, ['Repository', 'Package Name']);
  return [
    {
      name: '3: a repositories target gives the table at lines 493-501',
      examples: [3],
      files: FLEET,
      functionConfig: repositories.text,
      check: (outcome) => expectFanOut(outcome, repositories.text, table(493, 501)),
    },
    {
      name: '4: repositorySelectors, package names under the second, give the table at lines 530-540',
      examples: [4],
      files: FLEET,
      functionConfig: selectors,
      check: (outcome) => expectFanOut(outcome, selectors, table(530, 540)),
    },
    {
      name: '5: an objectSelector gives one PackageVariant per matching Team',
      examples: [5],
      files: { Kptfile: FLEET_KPTFILE, 'teams.yaml': teamsFile, 'repositories.yaml': teamRepositories },
      functionConfig: objects,
      check: (outcome) =>
        expectFanOut(outcome, objects, [
          ['hr-dev-benefits', 'foo'],
          ['hr-dev-payroll', 'foo'],
        ]),
    },
    {
      name: '6: base-ns three times in cluster-01',
      examples: [6],
      files: FLEET,
      functionConfig: baseNs.text,
      check: (outcome) =>
        expectFanOut(outcome, baseNs.text, [
          ['cluster-01', 'ns-1'],
          ['cluster-01', 'ns-2'],
          ['cluster-01', 'ns-3'],
        ]),
    },
    {
      name: "7-8: template labels give example 8's PackageVariants",
      examples: [7, 8],
      files: FLEET,
      functionConfig: labelled.text,
      check: (outcome) => expectDesignVariants(outcome, labelled.text, readExample('08-variants-base-ns-labels.yaml')),
    },
    {
      name: "9-10: labelExprs and injectorExprs give example 10's PackageVariants",
      examples: [9, 10],
      files: { Kptfile: FLEET_KPTFILE, 'repositories.yaml': repositoriesFrom([772, 777]) },
      functionConfig: expressions,
      check: (outcome) => expectDesignVariants(outcome, expressions, readExample('10-variants-expressions.yaml')),
    },
  ];
}

// --- examples 8 and 10 as PackageVariants -------------------------------------------------------

const BASE_NS_PACKAGE: Files = {
  Kptfile: kptfile('base-ns', 'A namespace'),
  'package-context.yaml': CONTEXT,
  'namespace.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: base-ns\n',
};

function labelledVariantScenarios(): Scenario[] {
  return documentTexts(readExample('08-variants-base-ns-labels.yaml').text).map((variant, i) => ({
    name: `8: PackageVariant ${i + 1} of 3 runs on base-ns and leaves it as it is`,
    examples: [8],
    files: BASE_NS_PACKAGE,
    functionConfig: variant,
    check: (outcome) => expectUnchanged(outcome, BASE_NS_PACKAGE),
  }));
}

const ENDPOINTS_API = 'krm-platform.bigco.com/v1';

/** The in-cluster ServiceEndpoints of each region the design's injectors name. */
const REGION_ENDPOINTS = ['useast1', 'useast2', 'uswest1'].map((region) => ({
  name: `${region}-endpoints`,
  spec: { database: `db.${region}.bigco.com`, cache: `cache.${region}.bigco.com` },
}));

const FOO_PACKAGE: Files = {
  Kptfile: kptfile('foo', "An application that reads its region's service endpoints"),
  'service-endpoints.yaml': `apiVersion: ${ENDPOINTS_API}
kind: ServiceEndpoints
metadata:
  name: service-endpoints
  annotations:
    config.kubernetes.io/local-config: "true"
    kpt.dev/config-injection: required
spec:
  database: db.example.com
  cache: cache.example.com
`,
};

function injectingVariantScenarios(): Scenario[] {
  const candidates = REGION_ENDPOINTS.map(
    ({ name, spec }) => `apiVersion: ${ENDPOINTS_API}\nkind: ServiceEndpoints\nmetadata:\n  name: ${name}\n  namespace: default\nspec:\n  database: ${spec.database}\n  cache: ${spec.cache}`,
  );
  return documentTexts(readExample('10-variants-expressions.yaml').text).map((variant, i) => {
    const injector = (documents<PackageVariantDoc>(variant)[0]!.spec.injectors as { name: string }).name;
    return {
      name: `10: PackageVariant ${i + 1} of 3 injects ${injector} into package foo`,
      examples: [10],
      files: FOO_PACKAGE,
      functionConfig: listOf('design-example-10', [variant, ...candidates]),
      check(outcome) {
        const [point] = documents<{ metadata: { annotations: Record<string, string> }; spec: unknown }>(outcome.files['service-endpoints.yaml']!);
        expect(point!.spec).toEqual(REGION_ENDPOINTS.find((endpoints) => endpoints.name === injector)!.spec);
        expect(point!.metadata.annotations['kpt.dev/injected-resource-name']).toBe(injector);
        const [kptfile] = documents<{ info: { readinessGates: unknown[] }; status: { conditions: { type: string; status: string }[] } }>(outcome.files.Kptfile!);
        const type = 'config.injection.ServiceEndpoints.service-endpoints';
        expect(kptfile!.info.readinessGates).toEqual([{ conditionType: type }]);
        expect(kptfile!.status.conditions).toEqual([expect.objectContaining({ type, status: 'True' })]);
      },
    };
  });
}

/** Every scenario, in the design's order. */
export function designScenarios(): Scenario[] {
  const scenarios = [pipelineScenario(), ...fanOutScenarios(), ...labelledVariantScenarios(), ...injectingVariantScenarios()];
  return scenarios.sort((a, b) => a.examples[0]! - b.examples[0]!);
}
