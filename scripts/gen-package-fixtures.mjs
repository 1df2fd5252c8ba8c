#!/usr/bin/env node
/**
 * Generates the package-level differential fixtures: seeded composite packages (subpackages with the
 * same resource names, nested three deep, added, deleted and changed on either side, an independent
 * subpackage with an upstream repository of its own) and non-KRM files (every row of kpt's rule,
 * binary files, executable bits), each run through the real `kpt pkg update` by
 * scripts/kpt-oracle.sh and recorded in test/fixtures/differential/packages/pkg-NNN.yaml.
 * test/differential/kpt-packages.test.ts runs `package-variant update pkg@v2` (git mode) on the same
 * repositories (scripts/kpt-oracle-repos.sh) and compares.
 *
 * Besides the seeded cases, the named cases (pkg-<name>.yaml) are written out by hand: what issue 19
 * found (a resource twice in a file upstream left alone; documents without apiVersion, a
 * kustomization.yaml, a bare list and a scalar document, which kpt reads as resources), each with
 * its local package as `kpt pkg get` wrote it where that matters.
 *
 * Usage: node scripts/gen-package-fixtures.mjs [--count N] [--seed S] [--jobs J] [--only 3,17] [--dry-run] [--named]
 *   --named    record only the named cases
 *   --count    number of cases (default 48: every family with every strategy, twice)
 *   --seed     base seed (default 20240611)
 *   --jobs     oracle runs in parallel (default: number of CPUs)
 *   --only     regenerate only these case numbers
 *   --dry-run  print the generated inputs of the --only cases (or case 0) and do not run kpt
 *
 * Deterministic: the same seed and count give byte-identical fixtures. Needs kpt 1.0.0-beta.56 and
 * git on PATH; takes about count x 1.5 s / jobs.
 */
import { spawn } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Document, stringify } from 'yaml';
import { kptErrorText, parseCaseArgs, recordCases, runAsScript } from './gen-differential-fixtures.mjs';
import { caseSeed, Rng } from './lib/seeded-random.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ORACLE = join(ROOT, 'scripts', 'kpt-oracle.sh');
const DEFAULT_OUT = join(ROOT, 'test', 'fixtures', 'differential', 'packages');

export const FAMILIES = ['siblings', 'add-delete', 'deep', 'independent', 'files', 'mixed'];
export const STRATEGIES = ['resource-merge', 'fast-forward', 'force-delete-replace'];

// ---------------------------------------------------------------------------------------------
// The package model: directory -> package; a package holds resources and other files
// ---------------------------------------------------------------------------------------------

const NAMES = ['config', 'app', 'settings', 'web', 'db'];
const IMAGES = ['nginx:1.25', 'nginx:1.26', 'redis:7.2', 'busybox:1.36', 'postgres:16.2'];
const VALUES = ['info', 'debug', 'eu-west-1', '30s', 'strict', 'fast', 'us-east-2', '5'];
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'kappa'];

const clone = (v) => JSON.parse(JSON.stringify(v));

function configMap(name, data) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

function deployment(name, image, replicas) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name, image }] } } },
  };
}

/** A package: its name (the Kptfile's), resources by file, other files by path (bytes or text), modes. */
function newPackage(r, name, shape) {
  const resources = {};
  resources['config.yaml'] = configMap(shape.cm, { mode: r.pick(VALUES), region: r.pick(VALUES) });
  if (shape.deploy) resources['deploy.yaml'] = deployment(shape.deploy, r.pick(IMAGES), r.int(1, 4));
  return { kptfile: { apiVersion: 'kpt.dev/v1', kind: 'Kptfile', metadata: { name }, info: { description: `${name} package` } }, resources, files: {}, modes: {} };
}

function binary(r, length = 24) {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = r.int(0, 255);
  bytes[0] = 0x89;
  bytes[1] = 0xff;
  return bytes;
}

function cloneTree(tree) {
  const out = new Map();
  for (const [dir, pkg] of tree) out.set(dir, { kptfile: clone(pkg.kptfile), resources: clone(pkg.resources), files: { ...pkg.files }, modes: { ...pkg.modes } });
  return out;
}

const join2 = (dir, path) => (dir ? `${dir}/${path}` : path);

/** The files of a tree: path -> text or bytes, and the modes that are not 644 (octal strings). */
function render(tree) {
  const files = {};
  const modes = {};
  for (const dir of [...tree.keys()].sort()) {
    const pkg = tree.get(dir);
    files[join2(dir, 'Kptfile')] = stringify(pkg.kptfile, { lineWidth: 0 });
    for (const [file, obj] of Object.entries(pkg.resources)) files[join2(dir, file)] = stringify(obj, { lineWidth: 0, indentSeq: false });
    for (const [file, content] of Object.entries(pkg.files)) files[join2(dir, file)] = content;
    for (const [file, mode] of Object.entries(pkg.modes)) modes[join2(dir, file)] = mode.toString(8);
  }
  return { files: Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1))), modes };
}

// ---------------------------------------------------------------------------------------------
// Edits: each returns a description, or undefined when it does not apply
// ---------------------------------------------------------------------------------------------

function editResource(r, tree, side) {
  const dir = r.pick([...tree.keys()]);
  const pkg = tree.get(dir);
  const file = r.pick(Object.keys(pkg.resources));
  const obj = pkg.resources[file];
  if (obj.kind === 'ConfigMap') {
    const key = r.pick(['mode', 'region', 'extra']);
    const value = `${r.pick(VALUES)}-${side}`;
    obj.data[key] = value;
    return `${side} ${join2(dir, file)} data.${key} = ${value}`;
  }
  if (r.chance(0.5)) {
    obj.spec.replicas = r.int(5, 9);
    return `${side} ${join2(dir, file)} replicas = ${obj.spec.replicas}`;
  }
  obj.spec.template.spec.containers[0].image = r.pick(IMAGES);
  return `${side} ${join2(dir, file)} image = ${obj.spec.template.spec.containers[0].image}`;
}

function addResource(r, tree, side) {
  const dir = r.pick([...tree.keys()]);
  const file = `extra-${side}.yaml`;
  const pkg = tree.get(dir);
  if (pkg.resources[file]) return undefined;
  pkg.resources[file] = configMap(`extra-${side}`, { added: side });
  return `${side} adds ${join2(dir, file)}`;
}

function deleteResource(r, tree, side) {
  const dir = r.pick([...tree.keys()]);
  const pkg = tree.get(dir);
  const files = Object.keys(pkg.resources);
  if (files.length < 2) return undefined;
  const file = r.pick(files);
  delete pkg.resources[file];
  return `${side} deletes ${join2(dir, file)}`;
}

function editKptfile(r, tree, side) {
  const dir = r.pick([...tree.keys()]);
  const value = `${r.pick(WORDS)} ${side}`;
  tree.get(dir).kptfile.info.description = value;
  return `${side} ${join2(dir, 'Kptfile')} info.description = ${value}`;
}

/** A subpackage whose resources have the same names as an existing package's. */
function addPackage(r, tree, side, dir) {
  if (tree.has(dir) || !tree.has(dir.includes('/') ? dir.slice(0, dir.lastIndexOf('/')) : '')) return undefined;
  const twin = tree.get(r.pick([...tree.keys()]));
  const name = dir.slice(dir.lastIndexOf('/') + 1);
  const pkg = newPackage(r, name, { cm: twin.resources['config.yaml'].metadata.name, deploy: twin.resources['deploy.yaml']?.metadata.name });
  if (r.chance(0.6)) pkg.files['README.md'] = `# ${name}\n\nAdded ${side}.\n`;
  tree.set(dir, pkg);
  return `${side} adds subpackage ${dir}`;
}

function deletePackage(tree, side, dir) {
  if (!tree.has(dir) || dir === '') return undefined;
  for (const other of [...tree.keys()]) if (other === dir || other.startsWith(`${dir}/`)) tree.delete(other);
  return `${side} deletes subpackage ${dir}`;
}

/** Non-KRM files: one edit, at random, of the kinds kpt's rule distinguishes. */
function editFile(r, tree, side) {
  const dir = r.pick([...tree.keys()]);
  const pkg = tree.get(dir);
  const paths = Object.keys(pkg.files);
  const kind = r.weighted([
    [3, 'change'],
    [2, 'add'],
    [1.5, 'delete'],
    [1, 'chmod'],
  ]);
  if (kind === 'add' || paths.length === 0) {
    const path = r.pick([`docs/${side}-notes.md`, `NOTES-${side}.txt`, `bin/${side}.sh`, `img/${side}.png`]);
    if (pkg.files[path]) return undefined;
    pkg.files[path] = path.endsWith('.png') ? binary(r) : `${side} ${r.pick(WORDS)}\n`;
    if (path.endsWith('.sh')) pkg.modes[path] = 0o755;
    return `${side} adds ${join2(dir, path)}`;
  }
  const path = r.pick(paths);
  if (kind === 'delete') {
    delete pkg.files[path];
    delete pkg.modes[path];
    return `${side} deletes ${join2(dir, path)}`;
  }
  if (kind === 'chmod') {
    pkg.modes[path] = pkg.modes[path] ? undefined : 0o755;
    if (!pkg.modes[path]) delete pkg.modes[path];
    return `${side} chmod ${pkg.modes[path] ? '+x' : '-x'} ${join2(dir, path)}`;
  }
  pkg.files[path] = Buffer.isBuffer(pkg.files[path]) ? binary(r) : `${pkg.files[path]}${side} ${r.pick(WORDS)}\n`;
  return `${side} changes ${join2(dir, path)}`;
}

function seedFiles(r, pkg, name) {
  pkg.files['README.md'] = `# ${name}\n\nThe ${name} package.\n`;
  if (r.chance(0.7)) pkg.files['docs/usage.md'] = `Use ${name} with care.\n`;
  if (r.chance(0.5)) {
    pkg.files['bin/render.sh'] = '#!/bin/sh\necho render\n';
    pkg.modes['bin/render.sh'] = 0o755;
  }
  if (r.chance(0.5)) pkg.files['img/logo.png'] = binary(r);
  if (r.chance(0.3) || name === 'pkg') pkg.files['.gitignore'] = 'out/\n';
}

// ---------------------------------------------------------------------------------------------
// Families
// ---------------------------------------------------------------------------------------------

/** The origin tree of a family: a root and subpackages whose resources share names. */
function originTree(r, family) {
  const tree = new Map();
  const shape = { cm: 'config', deploy: r.chance(0.6) ? 'app' : undefined };
  tree.set('', newPackage(r, 'pkg', shape));
  const subs = family === 'deep' ? ['a', 'a/b', 'a/b/c'] : family === 'independent' ? ['a'] : ['a', 'b'];
  for (const dir of subs) tree.set(dir, newPackage(r, dir.slice(dir.lastIndexOf('/') + 1), shape));
  if (family === 'files' || family === 'mixed' || r.chance(0.3)) for (const [dir, pkg] of tree) seedFiles(r, pkg, dir || 'pkg');
  return tree;
}

function repeat(r, n, edit, ops) {
  for (let i = 0, tries = 0; i < n && tries < n * 5; tries++) {
    const done = edit();
    if (done) {
      ops.push(done);
      i++;
    }
  }
}

export function generateCase(seed, family, strategy) {
  const r = new Rng(seed);
  const ops = [];
  const origin = originTree(r, family);
  const upstream = cloneTree(origin);
  const local = cloneTree(origin);
  // fast-forward succeeds only where local did not change: half its cases leave local alone.
  const localEdits = strategy === 'fast-forward' && r.chance(0.5) ? 0 : 1;
  const both = (n, edit) => {
    repeat(r, n, () => edit(upstream, 'upstream'), ops);
    repeat(r, n * localEdits, () => edit(local, 'local'), ops);
  };
  switch (family) {
    case 'siblings':
      both(r.int(2, 4), (t, side) => editResource(r, t, side));
      both(r.int(0, 1), (t, side) => (r.chance(0.5) ? addResource(r, t, side) : deleteResource(r, t, side)));
      both(r.int(0, 1), (t, side) => editKptfile(r, t, side));
      break;
    case 'add-delete': {
      ops.push(addPackage(r, upstream, 'upstream', r.pick(['c', 'a/new'])) ?? 'upstream adds nothing');
      const gone = r.pick(['a', 'b']);
      ops.push(deletePackage(upstream, 'upstream', gone));
      if (localEdits && r.chance(0.5)) {
        const edited = local.get(gone);
        edited.resources['config.yaml'].data.mode = 'kept-locally';
        ops.push(`local changes ${gone}/config.yaml, which upstream deleted`);
      }
      if (localEdits && r.chance(0.4)) ops.push(deletePackage(local, 'local', gone === 'a' ? 'b' : 'a'));
      if (localEdits && r.chance(0.4)) ops.push(addPackage(r, local, 'local', 'mine'));
      if (localEdits && r.chance(0.15)) ops.push(addPackage(r, local, 'local', upstream.has('c') ? 'c' : 'a/new') ?? 'local adds nothing');
      both(r.int(0, 2), (t, side) => editResource(r, t, side));
      break;
    }
    case 'deep':
      both(r.int(2, 4), (t, side) => editResource(r, t, side));
      if (r.chance(0.4)) ops.push(deletePackage(upstream, 'upstream', r.pick(['a/b/c', 'a/b'])));
      if (r.chance(0.4)) ops.push(addPackage(r, upstream, 'upstream', r.pick(['a/b/d', 'a/e'])) ?? 'upstream adds nothing');
      if (localEdits && r.chance(0.3)) ops.push(addPackage(r, local, 'local', 'a/b/c/d') ?? 'local adds nothing');
      break;
    case 'independent':
      both(r.int(1, 3), (t, side) => editResource(r, t, side));
      break;
    case 'files':
      both(r.int(2, 5), (t, side) => editFile(r, t, side));
      if (r.chance(0.5)) {
        // kpt skips every path that contains ".git"
        upstream.get('').files['.gitignore'] = `out/\n${r.pick(WORDS)}/\n`;
        ops.push('upstream changes .gitignore');
      }
      both(r.int(0, 1), (t, side) => editResource(r, t, side));
      break;
    case 'mixed':
      both(r.int(1, 3), (t, side) => editResource(r, t, side));
      both(r.int(1, 3), (t, side) => editFile(r, t, side));
      if (r.chance(0.5)) ops.push(addPackage(r, upstream, 'upstream', 'c') ?? 'upstream adds nothing');
      if (r.chance(0.4)) ops.push(deletePackage(upstream, 'upstream', 'b'));
      break;
  }
  const c = { seed, family, strategy, ops: ops.filter(Boolean), origin: render(origin), upstream: render(upstream), local: render(local) };
  if (family === 'independent') {
    // A package fetched into ext/ from a repository of its own, edited there and upstream.
    const subOrigin = new Map([['', newPackage(r, 'ext', { cm: 'config', deploy: 'app' })]]);
    if (r.chance(0.5)) seedFiles(r, subOrigin.get(''), 'ext');
    const subUpstream = cloneTree(subOrigin);
    const subLocal = cloneTree(subOrigin);
    const subOps = [];
    repeat(r, r.int(1, 3), () => editResource(r, subUpstream, 'upstream'), subOps);
    repeat(r, r.int(0, 2) * localEdits, () => editResource(r, subLocal, 'local'), subOps);
    if (r.chance(0.5)) repeat(r, 1, () => editFile(r, subUpstream, 'upstream'), subOps);
    c.ops.push(...subOps.map((op) => `ext: ${op}`));
    c.sub = { path: 'ext', origin: render(subOrigin), upstream: render(subUpstream) };
    const ext = render(subLocal);
    for (const [path, content] of Object.entries(ext.files)) if (path !== 'Kptfile') c.local.files[`ext/${path}`] = content;
    for (const [path, mode] of Object.entries(ext.modes)) c.local.modes[`ext/${path}`] = mode;
  }
  return c;
}

// ---------------------------------------------------------------------------------------------
// Oracle
// ---------------------------------------------------------------------------------------------

export function writeTree(dir, tree) {
  mkdirSync(dir, { recursive: true });
  for (const [rel, content] of Object.entries(tree.files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), content);
    chmodSync(join(dir, rel), parseInt(tree.modes?.[rel] ?? '644', 8));
  }
}

/** Files as text where they are UTF-8, else bytes; modes other than 644, as octal strings; empty directories. */
export function readTree(dir) {
  const files = {};
  const modes = {};
  const emptyDirs = [];
  const walk = (sub) => {
    const entries = readdirSync(join(dir, sub)).sort();
    if (sub && entries.length === 0) emptyDirs.push(sub);
    for (const entry of entries) {
      const rel = sub ? `${sub}/${entry}` : entry;
      const stat = lstatSync(join(dir, rel));
      if (stat.isDirectory()) walk(rel);
      else {
        const bytes = readFileSync(join(dir, rel));
        const text = bytes.toString('utf8');
        files[rel] = Buffer.from(text, 'utf8').equals(bytes) ? text : bytes;
        if ((stat.mode & 0o777) !== 0o644) modes[rel] = (stat.mode & 0o777).toString(8);
      }
    }
  };
  walk('');
  return { files, modes, ...(emptyDirs.length ? { emptyDirs } : {}) };
}

function run(cmd, args, env) {
  return new Promise((resolvePromise) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.resume();
    child.on('close', (code) => resolvePromise({ code, stderr }));
  });
}

/**
 * Runs one case through kpt: the package before the update (as committed) and after it, or kpt's
 * error. With `fetchedOnly`, only what `kpt pkg get` of origin writes.
 */
export async function runOracle(c, scratchRoot, { fetchedOnly = false } = {}) {
  const dir = mkdtempSync(join(scratchRoot, 'pkg-'));
  try {
    const trees = { origin: c.origin, upstream: c.upstream, local: c.local, ...(c.sub ? { 'sub-origin': c.sub.origin, 'sub-upstream': c.sub.upstream } : {}) };
    for (const [name, tree] of Object.entries(trees)) writeTree(join(dir, name), tree);
    const env = { KPT_ORACLE_LOCAL_OUT: join(dir, 'before'), ...(fetchedOnly ? { KPT_ORACLE_FETCHED_DIR: join(dir, 'fetched') } : {}) };
    if (c.sub) Object.assign(env, { KPT_ORACLE_SUB: c.sub.path, KPT_ORACLE_SUB_ORIGIN: join(dir, 'sub-origin'), KPT_ORACLE_SUB_UPSTREAM: join(dir, 'sub-upstream') });
    const res = await run('bash', [ORACLE, join(dir, 'origin'), join(dir, 'upstream'), join(dir, 'local'), join(dir, 'out'), c.strategy], env);
    if (res.code !== 0 && res.code !== 3) throw new Error(`kpt-oracle.sh exited ${res.code}:\n${res.stderr}`);
    if (fetchedOnly) return readTree(join(dir, 'fetched'));
    const before = readTree(join(dir, 'before'));
    if (res.code === 0) return { before, kpt: { exitCode: 0, ...readTree(join(dir, 'out')) } };
    return { before, kpt: { exitCode: 3, error: kptErrorText(res.stderr) } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The fixture: `local` is the package as kpt saw it (Kptfiles with their lock); files local left as in origin are aliases. */
export function fixtureText(index, c, oracle) {
  const fixture = {
    case: index,
    seed: c.seed,
    family: c.family,
    strategy: c.strategy,
    generator: 'scripts/gen-package-fixtures.mjs',
    ops: c.ops,
    ...(c.layout ? { layout: c.layout } : {}),
    origin: c.origin,
    upstream: c.upstream,
    local: oracle.before,
    ...(c.sub ? { sub: c.sub } : {}),
    kpt: oracle.kpt,
  };
  // Binary files are written as !!binary (base64).
  const doc = new Document(fixture, { customTags: ['binary'] });
  const originFiles = doc.getIn(['origin', 'files'], true);
  for (const side of [['upstream'], ['local'], ['kpt']]) {
    const map = doc.getIn([...side, 'files'], true);
    const source = side[0] === 'local' ? oracle.before : side[0] === 'kpt' ? oracle.kpt : c.upstream;
    for (const pair of map?.items ?? []) {
      const file = pair.key.value;
      const mine = source.files[file];
      const theirs = c.origin.files[file];
      if (typeof mine !== 'string' || mine !== theirs) continue;
      const target = originFiles.get(file, true);
      target.anchor ??= `o-${file.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
      pair.value = doc.createAlias(target);
    }
  }
  return doc.toString({ lineWidth: 0, blockQuote: 'literal' });
}

// ---------------------------------------------------------------------------------------------
// Named cases
// ---------------------------------------------------------------------------------------------

const kptfileText = (name) => stringify({ apiVersion: 'kpt.dev/v1', kind: 'Kptfile', metadata: { name }, info: { description: `${name} package` } }, { lineWidth: 0 });
const yamlText = (obj) => stringify(obj, { lineWidth: 0, indentSeq: false });
const tree = (files) => ({ files: { Kptfile: kptfileText('pkg'), ...files }, modes: {} });

/** A config file as free5gc's AMF package ships it: a ConfigMap's fields without apiVersion. */
const amfConfig = (version) =>
  yamlText({ kind: 'ConfigMap', metadata: { name: 'amf-configmap', labels: { app: 'free5gc' } }, data: { 'amfcfg.yaml': `info:\n  version: ${version}\n  description: AMF initial local configuration\n` } });
const settings = (mode) => yamlText(configMap('settings', { mode, region: 'eu-west-1' }));
const setters = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: setters\ndata:\n  license: |\n    ';
/** A kustomize JSON6902 patch in the layout kpt pkg get rewrites, without a final line break. */
const patch = (gw) => `-   op: replace\n    path: /data   # the whole map\n\n    value: {gw: "${gw}", ports: [1,2]}`;
const commented = (obj) => yamlText(obj).replace(/^/gm, '# ').replace(/# $/, '');
const LICENCE = '# Copyright 2024 Example Authors\n# Licensed under the Apache License, Version 2.0.\n';
const crd = (plural) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.example.com` },
  spec: { group: 'example.com', names: { kind: 'Widget', plural }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true }] },
});
const app = (image, replicas = 1) => yamlText(deployment('app', image, replicas));

/**
 * Each: origin, upstream and local as file texts, or `fetched` edits (`{ file, replace, with }`, or
 * `{ file, text }` for the whole file) applied to what `kpt pkg get` of origin wrote.
 */
export const NAMED_CASES = [
  {
    name: 'duplicate-in-unchanged-file',
    ops: ['local declares Deployment app twice in deploy.yaml; upstream leaves deploy.yaml as it was and changes settings.yaml'],
    origin: tree({ 'deploy.yaml': app('nginx:1.25'), 'settings.yaml': settings('fast') }),
    upstream: tree({ 'deploy.yaml': app('nginx:1.25'), 'settings.yaml': settings('safe') }),
    local: tree({ 'deploy.yaml': `${app('nginx:1.25')}---\n${app('nginx:1.25', 3)}`, 'settings.yaml': settings('fast') }),
  },
  {
    name: 'no-apiversion-deleted-upstream',
    ops: ['local as kpt pkg get wrote it (amf-config.yaml gets its kpt-merge comment and identifier)', 'upstream deletes amf-config.yaml, a ConfigMap without apiVersion, and changes settings.yaml'],
    origin: tree({ 'amf-config.yaml': amfConfig('1.0.3'), 'settings.yaml': settings('fast') }),
    upstream: tree({ 'settings.yaml': settings('safe') }),
    fetched: [],
  },
  {
    name: 'no-apiversion-changed-upstream',
    ops: [
      'local as kpt pkg get wrote it, then kustomization.yaml gets nameSuffix and values.yaml a new replicas',
      'upstream changes amf-config.yaml (no apiVersion), the namePrefix of kustomization.yaml (no kind) and the image of values.yaml (a plain map)',
    ],
    origin: tree({
      'amf-config.yaml': amfConfig('1.0.3'),
      'kustomization.yaml': 'resources:\n- settings.yaml\nnamePrefix: dev-\n',
      'values.yaml': 'image: nginx:1.25\nreplicas: 1\n',
      'settings.yaml': settings('fast'),
    }),
    upstream: tree({
      'amf-config.yaml': amfConfig('1.0.4'),
      'kustomization.yaml': 'resources:\n- settings.yaml\nnamePrefix: prod-\n',
      'values.yaml': 'image: nginx:1.26\nreplicas: 1\n',
      'settings.yaml': settings('fast'),
    }),
    fetched: [
      { file: 'kustomization.yaml', replace: 'namePrefix: dev-\n', with: 'namePrefix: dev-\nnameSuffix: -eu\n' },
      { file: 'values.yaml', replace: 'replicas: 1', with: 'replicas: 3' },
    ],
  },
  {
    name: 'bare-list-changed-on-both-sides',
    ops: ['upstream appends to zones.yaml, a YAML list; local appends another zone'],
    origin: tree({ 'zones.yaml': '- eu-west-1a\n- eu-west-1b\n', 'settings.yaml': settings('fast') }),
    upstream: tree({ 'zones.yaml': '- eu-west-1a\n- eu-west-1b\n- eu-west-1c\n', 'settings.yaml': settings('safe') }),
    local: tree({ 'zones.yaml': '- eu-west-1a\n- eu-west-1b\n- eu-west-1z\n', 'settings.yaml': settings('fast') }),
  },
  {
    name: 'scalar-document',
    ops: ['notes.yaml holds a plain scalar; upstream changes settings.yaml'],
    origin: tree({ 'notes.yaml': 'release notes go here\n', 'settings.yaml': settings('fast') }),
    upstream: tree({ 'notes.yaml': 'release notes go here\n', 'settings.yaml': settings('safe') }),
    local: tree({ 'notes.yaml': 'release notes go here\n', 'settings.yaml': settings('fast') }),
  },
  // Issue 27: three defects found on real catalogs, and where new and moved documents go.
  {
    name: 'block-scalar-at-end-unchanged-upstream',
    ops: ['setters.yaml ends with a `|` literal and no final line break (the value "LICENSE", which kpt pkg get writes as `|-`); upstream adds the line break (the value "LICENSE\\n") and changes settings.yaml'],
    origin: tree({ 'setters.yaml': `${setters}LICENSE`, 'settings.yaml': settings('fast') }),
    upstream: tree({ 'setters.yaml': `${setters}LICENSE\n`, 'settings.yaml': settings('safe') }),
    fetched: [],
  },
  {
    name: 'block-scalar-at-end-changed-upstream',
    ops: ['setters.yaml ends with a `|` literal and no final line break; upstream changes its text, still without one'],
    origin: tree({ 'setters.yaml': `${setters}LICENSE`, 'settings.yaml': settings('fast') }),
    upstream: tree({ 'setters.yaml': `${setters}NEWLICENSE`, 'settings.yaml': settings('fast') }),
    fetched: [],
  },
  {
    name: 'list-document-deleted-upstream',
    ops: ['patch.yaml is a kustomize JSON6902 patch (a YAML list) without a final line break, which kpt pkg get rewrites; upstream deletes it'],
    origin: tree({ 'patch.yaml': patch('example/gw'), 'settings.yaml': settings('fast') }),
    upstream: tree({ 'settings.yaml': settings('fast') }),
    fetched: [],
  },
  {
    name: 'list-document-changed-upstream',
    ops: ['patch.yaml is a kustomize JSON6902 patch (a YAML list) without a final line break, which kpt pkg get rewrites; upstream changes its value'],
    origin: tree({ 'patch.yaml': patch('example/gw'), 'settings.yaml': settings('fast') }),
    upstream: tree({ 'patch.yaml': patch('example/gw2'), 'settings.yaml': settings('fast') }),
    fetched: [],
  },
  {
    name: 'comment-only-file-replaced',
    ops: ['a.yaml holds only comments (a notice and a commented-out ConfigMap cm), b.yaml the live cm; upstream makes cm live in a.yaml and deletes b.yaml'],
    layout: ['a.yaml'],
    origin: tree({ 'a.yaml': `# Notice: enable the ConfigMap below by uncommenting it.\n#\n${commented(configMap('cm', { a: '1' }))}`, 'b.yaml': yamlText(configMap('cm', { a: '1' })) }),
    upstream: tree({ 'a.yaml': `# Notice: the ConfigMap.\n${yamlText(configMap('cm', { a: '1' }))}` }),
    fetched: [],
  },
  {
    name: 'documents-added-at-the-top',
    ops: ['upstream adds a ConfigMap above the only one of first.yaml, which its licence header now opens', 'and adds two above and between the two of second.yaml'],
    layout: ['first.yaml', 'second.yaml'],
    origin: tree({ 'first.yaml': `${LICENCE}${yamlText(configMap('one', { k: '1' }))}`, 'second.yaml': `${yamlText(configMap('two', { k: '1' }))}---\n${yamlText(configMap('three', { k: '1' }))}` }),
    upstream: tree({
      'first.yaml': `${LICENCE}${yamlText(configMap('top', { k: '1' }))}---\n${yamlText(configMap('one', { k: '1' }))}`,
      'second.yaml': [configMap('zero', { k: '1' }), configMap('two', { k: '1' }), configMap('between', { k: '1' }), configMap('three', { k: '1' })].map(yamlText).join('---\n'),
    }),
    fetched: [],
  },
  {
    name: 'directory-renamed',
    ops: ['upstream renames manifests/ to deploy/: a CRD declared in core.yaml and in crds.yaml (each file opening with a licence header) moves with both files, as do a Deployment and a ConfigMap'],
    // kpt pkg get drops core.yaml's header, a part of comments before `---`: kpt's core.yaml has none.
    layout: ['deploy/crds.yaml', 'deploy/config.yaml'],
    ...(() => {
      const files = {
        'core.yaml': `${LICENCE}---\n${yamlText(crd('widgets'))}---\n${app('nginx:1.25')}`,
        'crds.yaml': `${LICENCE}${yamlText(crd('widgets'))}`,
        'config.yaml': settings('fast'),
      };
      const under = (dir) => Object.fromEntries(Object.entries(files).map(([name, text]) => [`${dir}/${name}`, text]));
      return { origin: tree(under('manifests')), upstream: tree(under('deploy')) };
    })(),
    fetched: [],
  },
].map((c) => ({ ...c, family: 'named', strategy: 'resource-merge' }));

/** A named case's local package: as given, or kpt pkg get's text of origin with the edits. */
async function namedLocal(c, scratch) {
  if (!c.fetched) return c.local;
  const fetched = await runOracle({ ...c, upstream: c.origin, local: c.origin }, scratch, { fetchedOnly: true });
  const files = { ...fetched.files };
  for (const edit of c.fetched) {
    if (!files[edit.file]?.includes(edit.replace)) throw new Error(`${c.name}: ${edit.file} holds no ${JSON.stringify(edit.replace)}`);
    files[edit.file] = files[edit.file].replace(edit.replace, edit.with);
  }
  return { files, modes: {} };
}

/** The fixture of a named case: its name where the seeded ones have a number and a seed. */
function namedFixtureText(c, oracle) {
  return fixtureText(c.name, { ...c, seed: 0 }, oracle).replace(/^case: .*\nseed: 0\n/, `name: ${c.name}\n`);
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

/** Case i: family and strategy cycle so every family meets every strategy. */
export function caseSpec(base, i) {
  return { seed: caseSeed(base, i), family: FAMILIES[i % FAMILIES.length], strategy: STRATEGIES[Math.floor(i / FAMILIES.length) % STRATEGIES.length] };
}

async function recordNamed(opts) {
  mkdirSync(opts.out, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'kpt-pkg-named-'));
  try {
    for (const c of NAMED_CASES) {
      const local = await namedLocal(c, scratch);
      const oracle = await runOracle({ ...c, local }, scratch);
      writeFileSync(join(opts.out, `pkg-${c.name}.yaml`), namedFixtureText(c, oracle));
      console.log(`pkg-${c.name}.yaml: kpt ${oracle.kpt.exitCode === 0 ? 'updated' : 'refused'}`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function main() {
  const argv = process.argv.slice(2);
  const namedOnly = argv.includes('--named');
  const opts = parseCaseArgs(argv.filter((a) => a !== '--named'), { count: 48, seed: 20240611, out: DEFAULT_OUT }, import.meta.url);
  if (namedOnly) return recordNamed(opts);
  const indices = opts.only ?? Array.from({ length: opts.count }, (_, i) => i);
  const generate = (i) => {
    const spec = caseSpec(opts.seed, i);
    return generateCase(spec.seed, spec.family, spec.strategy);
  };
  if (opts.dryRun) {
    for (const i of opts.only ?? [0]) console.log(stringify({ case: i, ...generate(i) }, { lineWidth: 0, customTags: ['binary'] }));
    return;
  }
  mkdirSync(opts.out, { recursive: true });
  if (!opts.only) for (const f of readdirSync(opts.out)) if (/^pkg-\d+\.yaml$/.test(f)) rmSync(join(opts.out, f));
  await recordCases(indices, opts, 'kpt-pkg-', async (i, scratch) => {
    const c = generate(i);
    const oracle = await runOracle(c, scratch);
    writeFileSync(join(opts.out, `pkg-${String(i).padStart(3, '0')}.yaml`), fixtureText(i, c, oracle));
    return oracle.kpt.exitCode === 0;
  });
  if (!opts.only) await recordNamed(opts);
}

runAsScript(import.meta.url, main);
