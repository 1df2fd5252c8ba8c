/**
 * Seeded local edits of a fetched kpt package, as a platform engineer makes them: setter values
 * changed and rendered into the resources (as `kpt fn render` with apply-setters does), a field
 * edited, labels and annotations added, resources added, deleted and renamed, README notes, local
 * files, a function added to the Kptfile pipeline, a subpackage dropped. Each edit changes the text
 * in place (the rest of the file stays byte for byte, as an editor leaves it) and is recorded as data.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { isMap, isScalar, isSeq, parseAllDocuments, parseDocument } from 'yaml';

const isKrmFile = (path) => /\.ya?ml$/.test(path) && posix.basename(path) !== 'Kptfile';
const isKptfile = (path) => posix.basename(path) === 'Kptfile';

/** Files below `root`, sorted, as paths relative to it. */
export function listFiles(root, sub = '') {
  const out = [];
  for (const name of readdirSync(join(root, sub)).sort()) {
    const rel = sub ? `${sub}/${name}` : name;
    if (statSync(join(root, rel)).isDirectory()) out.push(...listFiles(root, rel));
    else out.push(rel);
  }
  return out;
}

/** Package directories ('' for the root): those holding a Kptfile. */
function scopesOf(files) {
  return files.filter(isKptfile).map((f) => posix.dirname(f)).map((d) => (d === '.' ? '' : d));
}

function scopeOf(scopes, path) {
  return scopes.filter((s) => s === '' || path.startsWith(`${s}/`)).sort((a, b) => b.length - a.length)[0] ?? '';
}

const within = (scope, path) => scope === '' || path.startsWith(`${scope}/`);

function columnAt(text, offset) {
  return offset - text.lastIndexOf('\n', offset - 1) - 1;
}

const splice = (text, start, end, insert) => text.slice(0, start) + insert + text.slice(end);

/** A scalar as an editor would write it: plain where YAML reads it back as the same string. */
function scalarText(value, originalSource = '') {
  const text = String(value);
  const plainSafe = /^[A-Za-z0-9/_][A-Za-z0-9._/@:-]*$/.test(text) && !/:$/.test(text) && !/^(y|n|yes|no|on|off|true|false|null|~|[-+]?[0-9][0-9_.:eE+-]*)$/i.test(text);
  if (typeof value === 'number' || typeof value === 'boolean') return text;
  if (originalSource.startsWith("'")) return `'${text.replace(/'/g, "''")}'`;
  if (originalSource.startsWith('"') || !plainSafe) return JSON.stringify(text);
  return text;
}

/** The KRM documents of a file with their nodes, offsets into the file's text. */
function documentsOf(text) {
  return parseAllDocuments(text).filter((d) => !d.errors?.length && isMap(d.contents));
}

function identity(doc) {
  const m = doc.get('metadata');
  return { kind: String(doc.get('kind') ?? ''), name: String(isMap(m) ? (m.get('name') ?? '') : '') };
}

class Package {
  constructor(root) {
    this.root = root;
  }
  files() {
    return listFiles(this.root);
  }
  read(path) {
    return readFileSync(join(this.root, path), 'utf8');
  }
  write(path, text) {
    mkdirSync(dirname(join(this.root, path)), { recursive: true });
    writeFileSync(join(this.root, path), text);
  }
  remove(path) {
    rmSync(join(this.root, path), { recursive: true, force: true });
  }
  /** Every KRM resource: file, index among the file's documents, parsed document. */
  resources() {
    const out = [];
    for (const file of this.files().filter(isKrmFile)) {
      documentsOf(this.read(file)).forEach((doc, index) => {
        const { kind, name } = identity(doc);
        if (kind && name && doc.get('apiVersion')) out.push({ file, index, doc, kind, name });
      });
    }
    return out;
  }
}

// -- the edits ----------------------------------------------------------------------------------

const LABELS = [['team', 'payments'], ['env', 'prod'], ['cost-center', 'cc-4711'], ['owner', 'platform-team'], ['tier', 'backend'], ['app.kubernetes.io/part-of', 'shop']];
const ANNOTATIONS = [['example.com/owner', 'alice'], ['example.com/ticket', 'OPS-1234'], ['config.example.com/reviewed', 'true'], ['description', 'managed by the platform team']];
const WORDS = ['prod', 'eu', 'team-a', 'blue', 'canary', 'east'];
const NOTES = ['This variant is deployed by the platform team.', 'Local change: see OPS-1234 before updating.', 'Deployed to the EU production clusters.', 'Owned by team A; ask in #platform.'];

/** A new value for a scalar, of its type, that reads as a local choice. */
function changedValue(r, value) {
  if (typeof value === 'boolean') return !value;
  if (typeof value === 'number') return Number.isInteger(value) ? value + r.int(1, 4) : value * 2;
  const text = String(value);
  const image = /^(.+):([^:/]+)$/.exec(text);
  if (image && text.includes('/')) return `${image[1]}:${r.pick(['v9.9.9', 'stable', 'local-build'])}`;
  if (/^\d+$/.test(text)) return String(Number(text) + r.int(1, 9));
  if (/^\d+(\.\d+){1,3}$/.test(text)) return text.replace(/\d+$/, (d) => String(Number(d) + 1));
  if (/^[a-z]+-[a-z]+\d$/.test(text)) return text.replace(/\d$/, (d) => String((Number(d) + 1) % 10));
  return `${text}-${r.pick(WORDS)}`;
}

/** Scalar leaves of a resource a user would edit (not identity, not kpt's bookkeeping). */
function editableLeaves(doc) {
  const out = [];
  const visit = (node, path) => {
    if (isMap(node)) {
      if (node.flow) return;
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
        if (key === undefined) continue;
        visit(pair.value, [...path, key]);
      }
    } else if (isSeq(node)) {
      if (node.flow) return;
      node.items.forEach((item, i) => visit(item, [...path, i]));
    } else if (isScalar(node) && node.range && node.value !== null && typeof node.value !== 'object') {
      const p = path.join('.');
      if (/^(apiVersion|kind|metadata\.(name|namespace))$/.test(p)) return;
      if (/^metadata\.annotations\.(internal\.|config\.kubernetes\.io|kpt\.dev|cnrm\.cloud\.google\.com\/blueprint)/.test(p)) return;
      if (typeof node.value === 'string' && (node.value.includes('\n') || node.value.length > 120)) return;
      out.push({ path, node });
    }
  };
  visit(doc.contents, []);
  return out;
}

/** Inserts `lines` (already indented after the first) as the first entry of a block map. */
function insertIntoMap(text, map, entry) {
  const first = map.items[0]?.key;
  const at = first?.range?.[0];
  if (at === undefined) return undefined;
  const indent = ' '.repeat(columnAt(text, at));
  return splice(text, at, at, `${entry.split('\n').join(`\n${indent}`)}\n${indent}`);
}

function addMetadataEntry(r, pkg, which) {
  const candidates = pkg.resources().filter((res) => isMap(res.doc.get('metadata', true)) && !res.doc.get('metadata', true).flow);
  if (!candidates.length) return undefined;
  const res = r.pick(candidates);
  const [key, value] = r.pick(which === 'labels' ? LABELS : ANNOTATIONS);
  const text = pkg.read(res.file);
  const doc = documentsOf(text)[res.index];
  const metadata = doc.get('metadata', true);
  const existing = metadata.get(which, true);
  let next;
  if (isMap(existing) && !existing.flow && existing.items.length) {
    if (existing.has(key)) return undefined;
    next = insertIntoMap(text, existing, `${scalarText(key)}: ${scalarText(value)}`);
  } else if (existing === undefined) {
    next = insertIntoMap(text, metadata, `${which}:\n  ${scalarText(key)}: ${scalarText(value)}`);
  }
  if (!next) return undefined;
  pkg.write(res.file, next);
  return { op: which === 'labels' ? 'add-label' : 'add-annotation', file: res.file, resource: `${res.kind}/${res.name}`, key, value };
}

function setField(r, pkg, preferred) {
  const resources = pkg.resources().filter((res) => editableLeaves(res.doc).length);
  if (!resources.length) return undefined;
  const hot = resources.filter((res) => preferred.has(res.file));
  const res = r.pick(hot.length && r.chance(0.6) ? hot : resources);
  const text = pkg.read(res.file);
  const doc = documentsOf(text)[res.index];
  const leaf = r.pick(editableLeaves(doc));
  const to = changedValue(r, leaf.node.value);
  const [start, end] = leaf.node.range;
  pkg.write(res.file, splice(text, start, end, scalarText(to, text.slice(start, end))));
  return { op: 'set-field', file: res.file, resource: `${res.kind}/${res.name}`, path: leaf.path.join('.'), from: leaf.node.value, to };
}

/** The setters ConfigMap an apply-setters mutator of this package's Kptfile reads, if any. */
function settersFile(pkg, scope) {
  const kptfile = posix.join(scope, 'Kptfile');
  const doc = parseDocument(pkg.read(kptfile));
  const mutators = doc.getIn(['pipeline', 'mutators']);
  if (!isSeq(mutators)) return undefined;
  for (const m of mutators.items) {
    if (isMap(m) && /apply-setters/.test(String(m.get('image') ?? '')) && m.get('configPath')) {
      const file = posix.join(scope, String(m.get('configPath')));
      return existsSync(join(pkg.root, file)) ? file : undefined;
    }
  }
  return undefined;
}

function settersOf(pkg, file) {
  const doc = documentsOf(pkg.read(file))[0];
  const data = doc?.get('data', true);
  const out = new Map();
  if (isMap(data)) for (const pair of data.items) if (isScalar(pair.key) && isScalar(pair.value)) out.set(String(pair.key.value), pair.value);
  return out;
}

/**
 * What `kpt fn render` does with apply-setters: every field whose line comment is
 * `kpt-set: <template>` gets the template with the setters filled in, innermost package first, so
 * the outermost package whose setters cover the template wins. Returns the files it changed.
 */
function renderSetters(pkg) {
  const scopes = scopesOf(pkg.files()).sort((a, b) => b.length - a.length);
  const setterScopes = scopes.map((scope) => ({ scope, file: settersFile(pkg, scope) })).filter((s) => s.file);
  const values = new Map(setterScopes.map((s) => [s.scope, new Map([...settersOf(pkg, s.file)].map(([k, v]) => [k, String(v.value)]))]));
  const changed = [];
  for (const file of pkg.files().filter(isKrmFile)) {
    const text = pkg.read(file);
    const edits = [];
    for (const doc of parseAllDocuments(text)) {
      const visit = (node) => {
        if (isMap(node)) node.items.forEach((p) => visit(p.value));
        else if (isSeq(node)) node.items.forEach(visit);
        else if (isScalar(node) && node.range && /^\s*kpt-set:/.test(node.comment ?? '')) {
          const template = node.comment.replace(/^\s*kpt-set:\s*/, '').trim();
          const refs = [...template.matchAll(/\$\{([^}]+)\}/g)].map((m) => m[1]);
          let rendered;
          for (const { scope } of setterScopes) {
            const vals = values.get(scope);
            if (within(scope, file) && refs.length && refs.every((ref) => vals.has(ref))) rendered = template.replace(/\$\{([^}]+)\}/g, (_, ref) => vals.get(ref));
          }
          if (rendered !== undefined && rendered !== String(node.value) && !rendered.startsWith('[')) {
            const [start, end] = node.range;
            edits.push([start, end, scalarText(typeof node.value === 'number' && /^\d+$/.test(rendered) ? Number(rendered) : rendered, text.slice(start, end))]);
          }
        }
      };
      visit(doc.contents);
    }
    if (!edits.length) continue;
    let next = text;
    for (const [start, end, insert] of edits.sort((a, b) => b[0] - a[0])) next = splice(next, start, end, insert);
    pkg.write(file, next);
    changed.push(file);
  }
  return changed;
}

const SETTER_VALUES = ['prod-cluster', 'team-a-project', 'us-central1', 'europe-west4', 'shop-prod', 'platform-eu', '10.10.0.0/16', 'acme-infra'];

function setSetter(r, pkg) {
  const files = scopesOf(pkg.files()).map((scope) => settersFile(pkg, scope)).filter(Boolean);
  const withData = files.filter((f) => settersOf(pkg, f).size);
  if (!withData.length) return undefined;
  const file = r.pick(withData);
  const setters = [...settersOf(pkg, file)].filter(([, node]) => typeof node.value === 'string' && !node.value.includes('\n') && node.range);
  if (!setters.length) return undefined;
  const [key, node] = r.pick(setters);
  const to = r.chance(0.5) ? r.pick(SETTER_VALUES) : changedValue(r, node.value);
  const text = pkg.read(file);
  const [start, end] = node.range;
  pkg.write(file, splice(text, start, end, scalarText(to, text.slice(start, end))));
  const rendered = renderSetters(pkg);
  return { op: 'set-setter', file, key, from: node.value, to, rendered };
}

function setData(r, pkg) {
  const maps = pkg.resources().filter((res) => res.kind === 'ConfigMap' && isMap(res.doc.get('data', true)) && res.doc.get('data', true).items.some((p) => isScalar(p.value) && typeof p.value.value === 'string' && !p.value.value.includes('\n')));
  if (!maps.length) return undefined;
  const res = r.pick(maps);
  const text = pkg.read(res.file);
  const data = documentsOf(text)[res.index].get('data', true);
  const pair = r.pick(data.items.filter((p) => isScalar(p.value) && typeof p.value.value === 'string' && !p.value.value.includes('\n')));
  const to = changedValue(r, pair.value.value);
  const [start, end] = pair.value.range;
  pkg.write(res.file, splice(text, start, end, scalarText(to, text.slice(start, end))));
  return { op: 'set-data', file: res.file, resource: `${res.kind}/${res.name}`, key: String(pair.key.value), from: pair.value.value, to };
}

function addResource(r, pkg) {
  const scope = r.pick(scopesOf(pkg.files()));
  const name = `${r.pick(['local', 'variant', 'team'])}-${r.pick(['settings', 'overrides', 'config', 'flags'])}`;
  const body = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  owner: ${r.pick(['team-a', 'platform'])}\n  region: ${r.pick(['eu', 'us'])}\n`;
  const existing = pkg.files().filter((f) => isKrmFile(f) && scopeOf(scopesOf(pkg.files()), f) === scope);
  if (existing.length && r.chance(0.35)) {
    const file = r.pick(existing);
    if (pkg.resources().some((res) => res.file === file && res.kind === 'ConfigMap' && res.name === name)) return undefined;
    const text = pkg.read(file);
    pkg.write(file, `${text}${text.endsWith('\n') ? '' : '\n'}---\n${body}`);
    return { op: 'add-resource', file, resource: `ConfigMap/${name}`, appended: true };
  }
  const file = posix.join(scope, `${name}.yaml`);
  if (existsSync(join(pkg.root, file))) return undefined;
  pkg.write(file, body);
  return { op: 'add-resource', file, resource: `ConfigMap/${name}` };
}

/** The file's text without document `index` (its `---` marker with it); undefined when it was the only one. */
function withoutDocument(text, index) {
  const chunks = text.split(/^(?=---[ \t]*$)/m);
  const hasContent = (chunk) => chunk.replace(/^---[ \t]*$/m, '').replace(/^\s*#.*$/gm, '').trim() !== '';
  const content = chunks.map((c, i) => [c, i]).filter(([c]) => hasContent(c));
  if (content.length <= 1) return undefined;
  const drop = content[index][1];
  return chunks.filter((_, i) => i !== drop).join('');
}

/** Resources a user deletes are small ones: not a generated CRD of a thousand lines. */
const DELETABLE_LINES = 150;

function deleteResource(r, pkg, preferred) {
  const resources = pkg.resources().filter((res) => {
    const [start, , end] = res.doc.range;
    return pkg.read(res.file).slice(start, end).split('\n').length <= DELETABLE_LINES;
  });
  if (resources.length < 2) return undefined;
  const hot = resources.filter((res) => preferred.has(res.file));
  const res = r.pick(hot.length && r.chance(0.5) ? hot : resources);
  const next = withoutDocument(pkg.read(res.file), res.index);
  if (next === undefined) pkg.remove(res.file);
  else pkg.write(res.file, next);
  return { op: 'delete-resource', file: res.file, resource: `${res.kind}/${res.name}`, ...(next === undefined ? { fileRemoved: true } : {}) };
}

function renameResource(r, pkg) {
  const candidates = pkg.resources().filter((res) => /^metadata:[ \t]*#[ \t]*kpt-merge:/m.test(pkg.read(res.file)) && isScalar(res.doc.getIn(['metadata', 'name'], true)));
  if (!candidates.length) return undefined;
  const res = r.pick(candidates);
  const text = pkg.read(res.file);
  const node = documentsOf(text)[res.index].getIn(['metadata', 'name'], true);
  const to = `${res.name}-${r.pick(WORDS)}`;
  const [start, end] = node.range;
  pkg.write(res.file, splice(text, start, end, scalarText(to, text.slice(start, end))));
  return { op: 'rename-resource', file: res.file, resource: `${res.kind}/${res.name}`, to };
}

function editText(r, pkg, preferred) {
  const docs = pkg.files().filter((f) => /\.(md|txt)$/i.test(f));
  if (!docs.length) return undefined;
  const hot = docs.filter((f) => preferred.has(f));
  const file = r.pick(hot.length && r.chance(0.6) ? hot : docs);
  const lines = pkg.read(file).split('\n');
  const at = Math.min(lines.length, r.int(1, Math.max(1, Math.min(lines.length, 12))));
  const note = r.pick(NOTES);
  lines.splice(at, 0, '', note);
  pkg.write(file, lines.join('\n'));
  return { op: 'edit-text', file, line: at + 1, text: note };
}

function addFile(r, pkg) {
  const scope = r.pick(scopesOf(pkg.files()));
  const file = posix.join(scope, r.pick(['NOTES.md', 'docs/runbook.md', 'local/values.txt', 'OWNERS']));
  if (existsSync(join(pkg.root, file))) return undefined;
  pkg.write(file, `${r.pick(NOTES)}\n`);
  return { op: 'add-file', file };
}

function deleteFile(r, pkg, preferred) {
  const files = pkg.files().filter((f) => !isKrmFile(f) && !isKptfile(f));
  if (!files.length) return undefined;
  const hot = files.filter((f) => preferred.has(f));
  const file = r.pick(hot.length && r.chance(0.5) ? hot : files);
  pkg.remove(file);
  return { op: 'delete-file', file };
}

function addMutator(r, pkg) {
  const text = pkg.read('Kptfile');
  const doc = parseDocument(text);
  const [name, config] = r.pick([['set-labels:v0.2.0', 'env: prod'], ['set-annotations:v0.1.4', 'example.com/owner: team-a'], ['set-namespace:v0.4.1', 'namespace: team-a']]);
  const entry = `- image: gcr.io/kpt-fn/${name}\n  configMap:\n    ${config}`;
  const pipeline = doc.get('pipeline', true);
  const mutators = isMap(pipeline) ? pipeline.get('mutators', true) : undefined;
  let next;
  if (isSeq(mutators) && !mutators.flow && mutators.items.length) {
    const at = mutators.range[0];
    const indent = ' '.repeat(columnAt(text, at));
    next = splice(text, at, at, `${entry.split('\n').join(`\n${indent}`)}\n${indent}`);
  } else if (isMap(pipeline) && !pipeline.flow && mutators === undefined) {
    next = insertIntoMap(text, pipeline, `mutators:\n  ${entry.split('\n').join('\n  ')}`);
  } else if (pipeline === undefined) {
    next = `${text}${text.endsWith('\n') ? '' : '\n'}pipeline:\n  mutators:\n    ${entry.split('\n').join('\n    ')}\n`;
  }
  if (!next) return undefined;
  pkg.write('Kptfile', next);
  return { op: 'add-mutator', file: 'Kptfile', image: `gcr.io/kpt-fn/${name}` };
}

function deleteSubpackage(r, pkg) {
  const subs = scopesOf(pkg.files()).filter((s) => s !== '');
  if (!subs.length) return undefined;
  const scope = r.pick(subs);
  pkg.remove(scope);
  return { op: 'delete-subpackage', dir: scope };
}

const EDITS = [
  [3, setSetter],
  [2, setData],
  [3, setField],
  [2, (r, pkg) => addMetadataEntry(r, pkg, 'labels')],
  [1, (r, pkg) => addMetadataEntry(r, pkg, 'annotations')],
  [1.5, addResource],
  [1, deleteResource],
  [0.6, renameResource],
  [2, editText],
  [1, addFile],
  [0.7, deleteFile],
  [0.7, addMutator],
  [0.3, deleteSubpackage],
];

/**
 * Applies between one and five seeded edits to the package at `root`; `changedUpstream` holds the
 * paths the newer version changes (edits favour them, so that the update has something to merge).
 * Returns the edits as data.
 */
export function editPackage(r, root, changedUpstream) {
  const pkg = new Package(root);
  const ops = [];
  const wanted = r.int(1, 5);
  for (let attempt = 0; ops.length < wanted && attempt < 40; attempt++) {
    const edit = r.weighted(EDITS);
    const done = edit(r, pkg, changedUpstream);
    if (done) ops.push(done);
  }
  return ops;
}
