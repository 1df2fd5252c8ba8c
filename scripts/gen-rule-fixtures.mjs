#!/usr/bin/env node
/**
 * Records what real `kpt pkg update` makes of one case per merge rule of README "Merging upstream
 * changes" that issue 12 set right (nulls on both sides, deletions against deletions, keyless
 * elements, schema defaults, comments, the blueprint attribution, one identity in two files, two ports
 * with one name), as test/fixtures/differential/rule-N-*.yaml in the format of the seeded cases
 * (gen-differential-fixtures.mjs). Two cases are real upgrades of a published blueprint, read from the
 * GoogleCloudPlatform/blueprints mirror: three files of `catalog/acm` (acm-blueprint v0.1.1 to v0.1.2)
 * and the two files of `catalog/anthos-cluster/acm` that declare the same Services
 * (anthos-cluster-blueprint v0.1.1 to v0.1.2), license headers left out. Their fixtures hold no copy
 * of the files: the recipe (repository, commits, directory, file names, local edits) and kpt's output
 * as a tree patch, rebuilt from the mirror by scripts/lib/mirrored-rule-fixture.cjs, which checks
 * each before it is written.
 *
 * Usage: node scripts/gen-rule-fixtures.mjs [--only 2,7] [--out DIR]
 *
 * Mirrors: $PV_MIRROR_DIR (default ~/.cache/package-variant/mirrors)/<owner>+<name>/repo, as for the
 * real-history corpus; `node scripts/mirror-repos.mjs` makes them.
 * Deterministic: the same inputs give byte-identical fixtures. Needs kpt 1.0.0-beta.56, git, and the
 * blueprints mirror for the two real cases; about 1-2 s of kpt per case.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { parse, stringify } from 'yaml';
import { fixtureText, runOracle } from './gen-differential-fixtures.mjs';
import gitTrees from './lib/git-trees.cjs';
import mirroredRule from './lib/mirrored-rule-fixture.cjs';
import realHistory from './lib/real-history-fixture.cjs';
import treePatch from './lib/tree-patch.cjs';

const { git, hermeticGitEnv, mirrorGitDir, mirrorRoot, repositoryOf, writeFiles } = gitTrees;
const { applyEdits, fetchedFiles, mirroredFiles, missingMirror, rebuildMirroredCase } = mirroredRule;
const { treeDigest } = realHistory;
const { diffTrees } = treePatch;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DEFAULT_OUT = join(ROOT, 'test', 'fixtures', 'differential');
const GENERATOR = 'scripts/gen-rule-fixtures.mjs';
const BLUEPRINTS = 'https://github.com/GoogleCloudPlatform/blueprints';

const lines = (...l) => `${l.join('\n')}\n`;

const service = (name, ports) =>
  lines('apiVersion: v1', 'kind: Service', 'metadata:', `  name: ${name}`, 'spec:', '  selector:', `    app: ${name}`) + (ports === undefined ? '' : `  ports:\n${ports}`);

const port = (name, number, extra = '') => `  - name: ${name}\n    port: ${number}\n${extra}`;

const deployment = (env) =>
  lines(
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    '  name: web',
    'spec:',
    '  selector:',
    '    matchLabels:',
    '      app: web',
    '  template:',
    '    metadata:',
    '      labels:',
    '        app: web',
    '    spec:',
    '      containers:',
    '      - name: web',
    '        image: nginx:1.25',
  ) + env;

const env = (vars) => `        env:\n${vars.map(([k, v]) => `        - name: ${k}\n          value: "${v}"\n`).join('')}`;

const configMap = (labels, data, namespaceComment = ' # kpt-set: ${namespace}') =>
  lines('apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: settings', `  namespace: apps${namespaceComment}`, '  labels:') + labels + `data:\n${data}`;

const network = (name, blueprint) =>
  lines('apiVersion: compute.cnrm.cloud.google.com/v1beta1', 'kind: ComputeNetwork', 'metadata:', `  name: ${name}`, '  annotations:', `    cnrm.cloud.google.com/blueprint: ${blueprint}`, 'spec:', '  routingMode: GLOBAL');

const subnetwork = (blueprint) =>
  lines('apiVersion: compute.cnrm.cloud.google.com/v1beta1', 'kind: ComputeSubnetwork', 'metadata:', '  name: subnet') +
  (blueprint ? lines('  annotations:', `    cnrm.cloud.google.com/blueprint: ${blueprint}`) : '') +
  lines('spec:', '  region: us-central1');

/** Files of catalog/acm whose namespaces lose their kpt-set comment and whose attribution is bumped, and the setters. */
const ACM_FILES = ['membership.yaml', 'services.yaml', 'setters.yaml'];
/** The two files of catalog/anthos-cluster/acm that declare the same two Services. */
const DUPLICATED_FILES = ['acm-membership-api.yaml', 'services.yaml'];

function cases() {
  return [
    {
      rule: 1,
      name: 'both-null',
      title: 'a null on both sides is removed; a local null against an upstream deletion is no conflict',
      origin: { 'settings.yaml': configMap('    app: web\n    tier: backend\n    team: a\n', '  mode: fast\n') },
      upstream: { 'settings.yaml': configMap('    app: web\n    tier: null\n', '  mode: fast\n') },
      local: { 'settings.yaml': configMap('    app: web\n    tier: null\n    team: null\n', '  mode: fast\n') },
      ops: ['upstream and local set metadata.labels.tier to null', 'upstream deletes metadata.labels.team, local sets it to null'],
    },
    {
      rule: 2,
      name: 'deleted-lists',
      title: 'a list deleted on one side while the other only removed elements from it stays deleted',
      origin: {
        'service.yaml': service('web', port('http', 80) + port('admin', 9000)),
        'metrics.yaml': service('metrics', port('http', 80) + port('prom', 9090)),
        'deployment.yaml': deployment(env([['MODE', 'fast'], ['LEVEL', 'info']])),
      },
      upstream: {
        'service.yaml': service('web', port('admin', 9000)),
        'metrics.yaml': service('metrics', undefined),
        'deployment.yaml': deployment(env([['LEVEL', 'info']])),
      },
      local: {
        'service.yaml': service('web', undefined),
        'metrics.yaml': service('metrics', port('prom', 9090)),
        'deployment.yaml': deployment(''),
      },
      ops: [
        'local deletes Service web spec.ports, upstream removes its http port',
        'upstream deletes Service metrics spec.ports, local removes its http port',
        'local deletes the container env, upstream removes MODE',
      ],
    },
    {
      rule: 3,
      name: 'keyless-element',
      title: "an element without its key is taken as the side that changed the list has it",
      origin: { 'service.yaml': service('web', port('http', 80)), 'settings.yaml': configMap('    app: web\n', '  mode: fast\n') },
      upstream: {
        'service.yaml': service('web', `${port('http', 80)}  - name: metrics\n    targetPort: 9090\n`),
        'settings.yaml': configMap('    app: web\n', '  mode: safe\n'),
      },
      local: { 'service.yaml': service('web', port('http', 80)), 'settings.yaml': configMap('    app: web\n', '  mode: fast\n') },
      ops: ['upstream adds a Service port without `port`; local leaves the Service alone', 'upstream changes ConfigMap data.mode'],
    },
    {
      rule: 4,
      name: 'schema-default',
      title: 'a missing key field and its schema default are the same value',
      origin: { 'service.yaml': service('web', port('http', 80, '    protocol: TCP\n')) },
      upstream: { 'service.yaml': service('web', port('http', 80)) },
      local: { 'service.yaml': service('web', port('http', 80, '    protocol: UDP\n')) },
      ops: ['upstream drops protocol: TCP from port 80', 'local sets its protocol to UDP'],
    },
    {
      rule: 5,
      name: 'comments',
      title: "upstream's comment changes are taken where local changed neither value nor comment",
      origin: { 'settings.yaml': configMap('    app: web\n', '  class: standard # {"$kpt-set":"storage-class"}\n  size: 1Gi # kpt-set: ${size}\n  mode: fast\n') },
      upstream: {
        'settings.yaml': configMap('    app: web\n    # end of labels\n', '  # the storage class\n  class: standard # kpt-set: ${storage-class}\n  size: 1Gi # kpt-set: ${storage-size}\n  mode: fast\n', ''),
      },
      local: { 'settings.yaml': configMap('    app: web\n', '  class: standard # {"$kpt-set":"storage-class"}\n  size: 5Gi # kpt-set: ${size}\n  mode: fast\n') },
      ops: ['upstream rewrites the setter comments of data.class and data.size, drops the one on metadata.namespace, adds a head and a foot comment', 'local changes data.size'],
    },
    {
      rule: 5,
      name: 'acm-blueprint-v0.1.1-v0.1.2',
      title: 'a real upgrade: acm-blueprint v0.1.1 to v0.1.2 drops kpt-set comments and bumps the blueprint attribution',
      mirrored: { repo: BLUEPRINTS, directory: 'catalog/acm', files: ACM_FILES, origin: 'acm-blueprint-v0.1.1', upstream: 'acm-blueprint-v0.1.2' },
      edits: [{ file: 'setters.yaml', replace: 'cluster-name: cluster-name', with: 'cluster-name: prod-cluster' }],
      ops: ['local fetched by kpt pkg get, then setters.yaml cluster-name set to prod-cluster'],
    },
    {
      rule: 6,
      name: 'blueprint-attribution',
      title: "cnrm.cloud.google.com/blueprint merges as a field; kpt pkg get's kpt-pkg entry is no local change",
      fetched: true,
      origin: { 'bumped.yaml': network('bumped', 'cnrm/net/v0.1.0'), 'kept.yaml': network('kept', 'cnrm/net/v0.1.0'), 'subnet.yaml': subnetwork(undefined) },
      upstream: { 'bumped.yaml': network('bumped', 'cnrm/net/v0.1.1'), 'kept.yaml': network('kept', 'cnrm/net/v0.1.0'), 'subnet.yaml': subnetwork('cnrm/net/v0.1.1') },
      ops: ['local fetched by kpt pkg get (`,kpt-pkg` appended, bare `kpt-pkg` added)', 'upstream bumps one attribution, adds one, leaves one'],
    },
    {
      rule: 7,
      name: 'anthos-cluster-acm-v0.1.1-v0.1.2',
      title: 'a real upgrade: anthos-cluster-blueprint v0.1.1 to v0.1.2, whose acm package declares two Services in two files each',
      mirrored: { repo: BLUEPRINTS, directory: 'catalog/anthos-cluster/acm', files: DUPLICATED_FILES, origin: 'anthos-cluster-blueprint-v0.1.1', upstream: 'anthos-cluster-blueprint-v0.1.2' },
      edits: [{ file: 'services.yaml', replace: 'deletion-policy: abandon', with: 'deletion-policy: delete' }],
      ops: ['local fetched by kpt pkg get, then the first Service of services.yaml gets deletion-policy: delete'],
    },
    {
      rule: 8,
      name: 'port-names',
      title: 'both sides renumber the port named grpc: the merged list would name two ports grpc',
      origin: { 'service.yaml': service('web', port('http', 80) + port('grpc', 9000)) },
      upstream: { 'service.yaml': service('web', port('http', 80) + port('grpc', 9090)) },
      local: { 'service.yaml': service('web', port('http', 80) + port('grpc', 8081)) },
      ops: ['upstream changes the grpc port 9000 to 9090', 'local changes it to 8081'],
    },
  ];
}

/** Origin's resource files exactly as `kpt pkg get` writes them: `# kpt-merge` comments, identifier annotations, `kpt-pkg` attributions. */
async function fetchedByGet(c, scratch) {
  const run = await runOracle({ ...c, upstream: c.origin, local: c.origin }, scratch, { withFetched: true });
  if (run.exitCode !== 0) throw new Error(`kpt pkg get of origin failed: ${run.error}`);
  return Object.fromEntries(Object.keys(c.origin).map((file) => [file, run.fetched[file]]));
}

/** The recipe with the commits its tags name, and origin's and upstream's files from the mirror. */
function fromMirror(mirrored, mirrors, env) {
  const missing = missingMirror({ mirrored }, mirrors);
  if (missing) throw new Error(`mirror ${missing} missing under ${mirrors} (git clone --mirror ${mirrored.repo} ${mirrors}/${missing}/repo)`);
  const gitDir = mirrorGitDir(mirrors, repositoryOf(mirrored.repo));
  const version = (ref) => ({ ref, commit: git(['--git-dir', gitDir, 'rev-parse', `${ref}^{commit}`], { env }).trim() });
  const recipe = { ...mirrored, origin: version(mirrored.origin), upstream: version(mirrored.upstream) };
  return { recipe, origin: mirroredFiles(recipe, 'origin', mirrors, env), upstream: mirroredFiles(recipe, 'upstream', mirrors, env) };
}

/**
 * A mirrored case's fixture: the recipe; local as the residue of `kpt pkg get` over the kpt-get
 * model, the edits and a digest; kpt's output as a tree patch from local or from upstream as the
 * model fetches it, whichever is smaller, and a digest.
 */
function mirroredFixture(c, recipe, fetched, input, kpt, dir) {
  const at = (name, files) => {
    writeFiles(join(dir, name), files);
    return join(dir, name);
  };
  const local = { residue: diffTrees(at('model', fetchedFiles(input.origin)), at('fetched', fetched)), edits: c.edits, manifest: treeDigest(at('local', input.local)) };
  let outcome = { exitCode: kpt.exitCode, error: kpt.error };
  if (kpt.exitCode === 0) {
    const out = at('kpt', kpt.files);
    const fromLocal = diffTrees(join(dir, 'local'), out);
    const fromUpdated = diffTrees(at('updated', fetchedFiles(input.upstream)), out);
    const [base, patch] = fromLocal.length < fromUpdated.length ? ['local', fromLocal] : ['updated', fromUpdated];
    outcome = { exitCode: 0, base, patch, manifest: treeDigest(out) };
  }
  return { rule: c.rule, title: c.title, strategy: input.strategy, generator: GENERATOR, ops: c.ops, mirrored: recipe, local, kpt: outcome };
}

/** The fixture's text, once it rebuilds from the mirror into exactly the packages and the outcome kpt was given and gave. */
function checkedText(fixture, input, kpt, mirrors) {
  const text = stringify(fixture, { lineWidth: 0, blockQuote: 'literal' });
  const rebuilt = rebuildMirroredCase(parse(text), mirrors);
  for (const side of ['origin', 'upstream', 'local']) {
    if (!isDeepStrictEqual(rebuilt[side], input[side])) throw new Error(`${fixture.mirrored.directory}: the fixture does not rebuild ${side}`);
  }
  if (!isDeepStrictEqual(rebuilt.kpt, kpt.exitCode === 0 ? { exitCode: 0, files: kpt.files } : { exitCode: kpt.exitCode, error: kpt.error })) {
    throw new Error(`${fixture.mirrored.directory}: the fixture does not rebuild kpt's outcome`);
  }
  return text;
}

function parseArgs(argv) {
  const opts = { out: DEFAULT_OUT, only: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--out') opts.out = resolve(argv[++i]);
    else if (a === '--only') opts.only = argv[++i].split(',').map(Number);
    else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const mirrors = mirrorRoot();
  mkdirSync(opts.out, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'kpt-rules-'));
  try {
    const env = hermeticGitEnv(join(scratch, 'git'), mirrors);
    for (const c of cases().filter((c) => !opts.only || opts.only.includes(c.rule))) {
      const file = `rule-${c.rule}-${c.name}.yaml`;
      const real = c.mirrored && fromMirror(c.mirrored, mirrors, env);
      const base = { strategy: 'resource-merge', ...c, ...(real && { origin: real.origin, upstream: real.upstream }) };
      const fetched = c.fetched || real ? await fetchedByGet(base, scratch) : undefined;
      const input = { ...base, local: fetched ? applyEdits(fetched, c.edits ?? []) : base.local };
      const kpt = await runOracle(input, scratch);
      const text = real
        ? checkedText(mirroredFixture(c, real.recipe, fetched, input, kpt, mkdtempSync(join(scratch, 'fixture-'))), input, kpt, mirrors)
        : fixtureText({ rule: c.rule, title: c.title }, input, kpt, GENERATOR);
      writeFileSync(join(opts.out, file), text);
      console.log(`${file}: kpt ${kpt.exitCode === 0 ? 'updated' : 'refused'}`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
