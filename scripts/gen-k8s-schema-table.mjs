#!/usr/bin/env node
// Derives the compact merge-schema table for built-in Kubernetes kinds from the OpenAPI v2 definitions.
//
//   node scripts/gen-k8s-schema-table.mjs [path-to-openapi.json.gz]
//
// Default input: ../shared/data/kubernetes-openapi-v1.21.2.json.gz relative to the repository root.
// Output: src/merge/schema/builtin-table.json (commit it; never edit it by hand). Re-running on the same input gives
// a byte-identical file.
//
// Table format (read by src/merge/schema/builtin-table.ts):
//   kinds:  "<group>/<Kind>" -> type name; the group is "" for core, the version is not part of the key.
//   types:  type name -> { fields: { <field>: Entry }, defaults?: { <field>: value }, atomic?: true }
//   Entry:  "scalar"
//         | "unknown"                                    opaque value (RawExtension, JSON, FieldsV1): no schema below
//         | ["struct", <type name>, Markers?]
//         | ["map", Entry, "atomic"?]                    string-keyed map (additionalProperties); granular unless "atomic"
//         | ["list", Entry, "map", [<key>...], Markers?]
//         | ["list", Entry, "set" | "atomic", Markers?]
//   Markers: the raw OpenAPI extensions that decided the entry (listType, listMapKeys, patchStrategy, patchMergeKey),
//            kept so a kyaml-compatible merge can tell patch-strategy lists from list-type-only lists.
//   defaults: defaults of fields that are keys of associative lists, the only defaults the merge needs.
//   atomic:  x-kubernetes-map-type: atomic on the definition itself (a struct replaced as a whole, e.g. LabelSelector).

import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const inputPath = process.argv[2]
  ? resolve(process.argv[2])
  : resolve(repoRoot, '../shared/data/kubernetes-openapi-v1.21.2.json.gz');
const outputPath = resolve(repoRoot, 'src/merge/schema/builtin-table.json');

// Kubernetes v1.21.2 publishes no `default` values for built-in types, so defaults of list-key fields are listed here.
// Each entry is checked against the field's description (and must be a key of some associative list), and an OpenAPI
// `default`, where one exists, takes precedence. Server-side apply uses such defaults to identify list items that
// omit the key field: `- containerPort: 80` and `- {containerPort: 80, protocol: TCP}` are the same port.
const KEY_DEFAULTS = [
  // Container.ports and EphemeralContainer.ports: "Protocol for port. Must be UDP, TCP, or SCTP. Defaults to \"TCP\"."
  { definition: 'io.k8s.api.core.v1.ContainerPort', field: 'protocol', value: 'TCP', evidence: /Defaults to "TCP"/ },
  // ServiceSpec.ports: "The IP protocol for this port. Supports \"TCP\", \"UDP\", and \"SCTP\". Default is TCP."
  { definition: 'io.k8s.api.core.v1.ServicePort', field: 'protocol', value: 'TCP', evidence: /Default is TCP\./ },
];

const openapi = JSON.parse(gunzipSync(readFileSync(inputPath)).toString('utf8'));
const defs = openapi.definitions;
if (!defs || typeof defs !== 'object') throw new Error(`${inputPath}: no "definitions"`);

const notes = [];
const note = (text) => notes.push(text);

function shortName(definition) {
  const parts = definition.split('.');
  const isVersion = (s) => /^v\d+((alpha|beta)\d+)?$/.test(s);
  return (isVersion(parts[parts.length - 2]) ? parts.slice(-3) : parts.slice(-2)).join('.');
}

const shortNames = new Map();
for (const definition of Object.keys(defs)) {
  const short = shortName(definition);
  const clash = shortNames.get(short);
  if (clash !== undefined) throw new Error(`short name ${short} is shared by ${clash} and ${definition}`);
  shortNames.set(short, definition);
}

// Version choice per group/kind: stable beats beta beats alpha, then the higher major, then the higher
// pre-release number (v1 > v1beta2 > v1beta1 > v1alpha1; autoscaling v1 > v2beta2 > v2beta1). This is the
// priority Kubernetes itself gives versions. The table is keyed by group and kind only, so a resource written
// in an older version (or in one removed before 1.21, e.g. apps/v1beta1) is merged with this version's schema.
function versionRank(version) {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(version);
  if (!m) return [-1, 0, 0];
  const stability = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
  return [stability, Number(m[1]), m[3] === undefined ? 0 : Number(m[3])];
}
function compareVersionsDesc(a, b) {
  const ra = versionRank(a);
  const rb = versionRank(b);
  for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return rb[i] - ra[i];
  return a < b ? -1 : a > b ? 1 : 0;
}

const candidates = new Map();
for (const [definition, def] of Object.entries(defs)) {
  const gvks = def['x-kubernetes-group-version-kind'];
  if (!Array.isArray(gvks)) continue;
  // DeleteOptions and WatchEvent are registered in every group: request envelopes, not resources.
  if (new Set(gvks.map((g) => g.group)).size > 1) continue;
  for (const { group, version, kind } of gvks) {
    const key = `${group}/${kind}`;
    if (!candidates.has(key)) candidates.set(key, []);
    candidates.get(key).push({ version, definition });
  }
}

const kinds = {};
let multiVersion = 0;
for (const [key, versions] of candidates) {
  versions.sort((a, b) => compareVersionsDesc(a.version, b.version));
  kinds[key] = versions[0].definition;
  if (versions.length > 1) multiVersion++;
  const newestMajor = Math.max(...versions.map((v) => versionRank(v.version)[1]));
  if (versionRank(versions[0].version)[1] < newestMajor) {
    note(`${key}: took ${versions[0].version} over ${versions.slice(1).map((v) => v.version).join(', ')}`);
  }
}
note(`${multiVersion} group/kinds are served in several versions; the newest stable one was taken`);

const refName = (ref) => {
  const prefix = '#/definitions/';
  if (typeof ref !== 'string' || !ref.startsWith(prefix)) throw new Error(`unsupported $ref ${ref}`);
  const name = ref.slice(prefix.length);
  if (!defs[name]) throw new Error(`dangling $ref ${ref}`);
  return name;
};
const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean']);
const hasProperties = (def) => def.properties && Object.keys(def.properties).length > 0;

function markersOf(prop) {
  const m = {};
  if (prop['x-kubernetes-list-type'] !== undefined) m.listType = prop['x-kubernetes-list-type'];
  if (prop['x-kubernetes-list-map-keys'] !== undefined) m.listMapKeys = prop['x-kubernetes-list-map-keys'];
  if (prop['x-kubernetes-patch-strategy'] !== undefined) m.patchStrategy = prop['x-kubernetes-patch-strategy'];
  if (prop['x-kubernetes-patch-merge-key'] !== undefined) m.patchMergeKey = prop['x-kubernetes-patch-merge-key'];
  return Object.keys(m).length > 0 ? m : undefined;
}

const types = {};
const pending = [];
const keyUses = new Map();

function structEntry(definition) {
  if (!(shortName(definition) in types) && !pending.includes(definition)) pending.push(definition);
  return ['struct', shortName(definition)];
}

function entryFor(schema, where) {
  if (schema.$ref !== undefined) {
    const definition = refName(schema.$ref);
    const def = defs[definition];
    if (hasProperties(def)) return structEntry(definition);
    if (def.additionalProperties) return mapEntry(def, where);
    if (SCALAR_TYPES.has(def.type)) return 'scalar';
    return 'unknown';
  }
  if (schema.type === 'array') return listEntry(schema, where);
  if (schema.type === 'object') {
    if (hasProperties(schema)) throw new Error(`${where}: inline object schemas are not supported`);
    if (schema.additionalProperties) return mapEntry(schema, where);
    return 'unknown';
  }
  if (SCALAR_TYPES.has(schema.type)) return 'scalar';
  return 'unknown';
}

function mapEntry(schema, where) {
  const value = schema.additionalProperties === true ? 'unknown' : entryFor(schema.additionalProperties, `${where}{}`);
  const mapType = schema['x-kubernetes-map-type'];
  return mapType === 'atomic' ? ['map', value, 'atomic'] : ['map', value];
}

function listEntry(prop, where) {
  const item = prop.items ? entryFor(prop.items, `${where}[]`) : 'unknown';
  const markers = markersOf(prop);
  const listType = prop['x-kubernetes-list-type'];
  const listMapKeys = prop['x-kubernetes-list-map-keys'];
  const mergeKey = prop['x-kubernetes-patch-merge-key'];
  const patchMerge = (prop['x-kubernetes-patch-strategy'] ?? '').split(',').includes('merge');
  const objectItems = Array.isArray(item) && item[0] === 'struct';

  if (listMapKeys && mergeKey !== undefined && !(listMapKeys.length === 1 && listMapKeys[0] === mergeKey)) {
    note(`${where}: list-map-keys [${listMapKeys}] vs patch-merge-key ${mergeKey}; keyed by [${listMapKeys}]`);
  }
  if (listType !== undefined && listType !== 'map' && patchMerge) {
    note(`${where}: x-kubernetes-list-type ${listType} but patch-strategy merge (key ${mergeKey ?? 'none'}); patch strategy wins`);
  }
  if (listType !== undefined && listType !== 'atomic' && !patchMerge) {
    note(`${where}: x-kubernetes-list-type ${listType} without a patch strategy (kyaml merges it atomically)`);
  }

  let semantics = 'atomic';
  let keys;
  if (listType === 'map' || patchMerge) {
    keys = listMapKeys ?? (mergeKey !== undefined ? [mergeKey] : []);
    const itemDefinition = objectItems ? shortNames.get(item[1]) : undefined;
    const missing = itemDefinition ? keys.filter((k) => !defs[itemDefinition].properties[k]) : [];
    if (keys.length > 0 && itemDefinition && missing.length === 0) {
      semantics = 'map';
      for (const key of keys) {
        const uses = keyUses.get(`${itemDefinition}.${key}`) ?? [];
        uses.push(where);
        keyUses.set(`${itemDefinition}.${key}`, uses);
      }
    } else if (keys.length === 0 && item === 'scalar') {
      semantics = 'set';
    } else if (missing.length > 0) {
      note(`${where}: key [${missing}] is not a field of ${item[1]}; treated as atomic`);
    } else {
      note(`${where}: associative markers on a list of ${JSON.stringify(item)} with keys [${keys}]; treated as atomic`);
    }
  } else if (listType === 'set') {
    if (item === 'scalar') semantics = 'set';
    else note(`${where}: list-type set on a list of ${JSON.stringify(item)}; treated as atomic`);
  }
  const entry = semantics === 'map' ? ['list', item, 'map', keys] : ['list', item, semantics];
  if (markers) entry.push(markers);
  return entry;
}

for (const definition of new Set(Object.values(kinds))) structEntry(definition);
while (pending.length > 0) {
  const definition = pending.shift();
  const def = defs[definition];
  const short = shortName(definition);
  const fields = {};
  for (const [field, prop] of Object.entries(def.properties)) {
    const where = `${short}.${field}`;
    const entry = entryFor(prop, where);
    if (prop['x-kubernetes-patch-strategy'] !== undefined && entry[0] === 'struct') {
      entry.push({ patchStrategy: prop['x-kubernetes-patch-strategy'] });
    } else if (prop['x-kubernetes-patch-strategy'] !== undefined && !Array.isArray(entry)) {
      note(`${where}: patch-strategy ${prop['x-kubernetes-patch-strategy']} on a ${entry} field; ignored`);
    }
    fields[field] = entry;
  }
  const type = { fields };
  if (def['x-kubernetes-map-type'] === 'atomic') type.atomic = true;
  types[short] = type;
}

for (const [definition, def] of Object.entries(defs)) {
  for (const [field, prop] of Object.entries(def.properties ?? {})) {
    if (prop.default !== undefined && keyUses.has(`${definition}.${field}`)) {
      const type = types[shortName(definition)];
      type.defaults = { ...type.defaults, [field]: prop.default };
    }
  }
}
for (const { definition, field, value, evidence } of KEY_DEFAULTS) {
  const prop = defs[definition]?.properties?.[field];
  if (!prop) throw new Error(`key default ${definition}.${field}: no such field`);
  if (!keyUses.has(`${definition}.${field}`)) throw new Error(`key default ${definition}.${field}: not a list key`);
  if (!evidence.test(prop.description ?? '')) {
    throw new Error(`key default ${definition}.${field}: description does not say ${evidence}: ${prop.description}`);
  }
  const type = types[shortName(definition)];
  if (type.defaults?.[field] === undefined) type.defaults = { ...type.defaults, [field]: value };
}
for (const [keyField, uses] of keyUses) {
  const cut = keyField.lastIndexOf('.');
  const [definition, field] = [keyField.slice(0, cut), keyField.slice(cut + 1)];
  const prop = defs[definition].properties[field];
  const required = (defs[definition].required ?? []).includes(field);
  const defaulted = types[shortName(definition)].defaults?.[field] !== undefined;
  if (!required && !defaulted) note(`key ${shortName(definition)}.${field} is optional and has no default (${uses.join(', ')})`);
  if (required && /default/i.test(prop?.description ?? '')) {
    note(`key ${shortName(definition)}.${field} is required; its description mentions a default, not recorded`);
  }
}

const kindsOut = {};
for (const [key, definition] of Object.entries(kinds)) kindsOut[key] = shortName(definition);

function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key]);
    return out;
  }
  return value;
}
function block(name, object, last) {
  const keys = Object.keys(object).sort();
  const lines = keys.map((k, i) => `    ${JSON.stringify(k)}: ${JSON.stringify(sortKeys(object[k]))}${i < keys.length - 1 ? ',' : ''}`);
  return [`  ${JSON.stringify(name)}: {`, ...lines, `  }${last ? '' : ','}`];
}
const source = { file: basename(inputPath), kubernetesVersion: openapi.sources?.[0]?.kubernetesVersion ?? null };
const text = [
  '{',
  `  "format": 1,`,
  `  "source": ${JSON.stringify(sortKeys(source))},`,
  ...block('kinds', kindsOut, false),
  ...block('types', types, true),
  '}',
  '',
].join('\n');

mkdirSync(dirname(outputPath), { recursive: true });
writeFileSync(outputPath, text);

for (const line of [...new Set(notes)].sort()) console.log(`note: ${line}`);
console.log(
  `wrote ${outputPath}: ${Object.keys(kindsOut).length} kinds, ${Object.keys(types).length} types, ` +
    `${Buffer.byteLength(text)} bytes (${(Buffer.byteLength(text) / 1024).toFixed(1)} KiB)`,
);
