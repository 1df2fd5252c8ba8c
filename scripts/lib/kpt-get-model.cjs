'use strict';
/**
 * What `kpt pkg get` (1.0.0-beta.56) writes into the resource files of a package it fetches, as far
 * as a text transform can say it: the `# kpt-merge: ns/name` comment on `metadata:`, the
 * `internal.kpt.dev/upstream-identifier` annotation, `,kpt-pkg` on Config Connector's blueprint
 * annotation, and flow scalars that kyaml writes back on one line. The real-history fixtures record
 * only what this model misses, as a patch per package tree: the model keeps them small, and a
 * mistake in it costs bytes, never correctness. The Kptfile is left alone (the cases record it).
 */
const { readdirSync, readFileSync, statSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { isMap, isPair, isScalar, parseAllDocuments } = require('yaml');

const IDENTIFIER = 'internal.kpt.dev/upstream-identifier';
const BLUEPRINT = 'cnrm.cloud.google.com/blueprint';

function lineEnd(text, offset) {
  const end = text.indexOf('\n', offset);
  return end === -1 ? text.length : end;
}

function columnAt(text, offset) {
  return offset - text.lastIndexOf('\n', offset - 1) - 1;
}

/** Where a new last entry of a block map goes: the start of the line after its content. */
function afterMap(text, map) {
  const end = map.range[1];
  if (text[end - 1] === '\n') return end;
  const eol = lineEnd(text, end);
  return eol === text.length ? text.length : eol + 1;
}

/** Edits ([start, end, replacement]) for one document's bookkeeping. */
function documentEdits(text, doc) {
  const edits = [];
  const root = doc.contents;
  if (!isMap(root)) return edits;
  const metaPair = root.items.find((p) => isScalar(p.key) && p.key.value === 'metadata');
  const meta = metaPair?.value;
  const kind = root.get('kind');
  const apiVersion = String(root.get('apiVersion') ?? '');
  if (!isMap(meta) || meta.flow || typeof kind !== 'string' || !meta.get('name')) return edits;
  const name = String(meta.get('name'));
  const namespace = meta.get('namespace') === undefined || meta.get('namespace') === null ? '' : String(meta.get('namespace'));

  const keyEnd = metaPair.key.range[1];
  const rest = text.slice(keyEnd, lineEnd(text, keyEnd));
  if (/^:[ \t]*$/.test(rest)) edits.push([keyEnd, keyEnd + rest.length, `: # kpt-merge: ${namespace}/${name}`]);

  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  const entry = `${IDENTIFIER}: '${group}|${kind}|${namespace || 'default'}|${name}'`;
  const annotations = meta.get('annotations', true);
  if (isMap(annotations) && !annotations.flow && annotations.items.length) {
    const blueprint = annotations.items.find((p) => isScalar(p.key) && p.key.value === BLUEPRINT);
    if (blueprint && isScalar(blueprint.value) && !String(blueprint.value.value).includes('kpt-pkg') && blueprint.value.type === 'PLAIN') {
      edits.push([blueprint.value.range[1], blueprint.value.range[1], ',kpt-pkg']);
    }
    if (!annotations.has(IDENTIFIER)) {
      const indent = ' '.repeat(columnAt(text, annotations.items[0].key.range[0]));
      const at = afterMap(text, annotations);
      edits.push([at, at, `${at === text.length && !text.endsWith('\n') ? '\n' : ''}${indent}${entry}\n`]);
    }
  } else if ((annotations === undefined || (isMap(annotations) && annotations.flow && !annotations.items.length)) && meta.items.length) {
    if (annotations !== undefined) {
      // kyaml drops an empty `annotations: {}` and writes the new map after the other keys
      const pair = meta.items.find((p) => p.value === annotations);
      const start = pair.key.range[0] - columnAt(text, pair.key.range[0]);
      edits.push([start, lineEnd(text, annotations.range[1]) + 1, '']);
    }
    const indent = ' '.repeat(columnAt(text, meta.items[0].key.range[0]));
    const at = afterMap(text, meta);
    edits.push([at, at, `${at === text.length && !text.endsWith('\n') ? '\n' : ''}${indent}annotations:\n${indent}  ${entry}\n`]);
  }

  // kyaml writes a plain or quoted scalar that spans lines on one line: each line break folds to a space
  const visit = (node) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node.items)) for (const item of node.items) visit(isPair(item) ? item.value : item);
    else if (isScalar(node) && ['PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE'].includes(node.type) && node.range) {
      const source = text.slice(node.range[0], node.range[1]);
      if (source.includes('\n') && !/\n[ \t]*\n/.test(source)) edits.push([node.range[0], node.range[1], source.replace(/[ \t]*\n[ \t]*/g, ' ')]);
    }
  };
  visit(root);
  return edits;
}

/** A resource file's text as the model says `kpt pkg get` writes it. */
function fetchedText(text) {
  const edits = [];
  for (const doc of parseAllDocuments(text)) if (!doc.errors.length) edits.push(...documentEdits(text, doc));
  let out = text;
  for (const [start, end, replacement] of edits.sort((a, b) => b[0] - a[0] || b[1] - a[1])) out = out.slice(0, start) + replacement + out.slice(end);
  return out;
}

/** Rewrites every `*.yaml`/`*.yml` file below `root` (not the Kptfiles) as the model says. */
function applyKptGetModel(root, sub = '') {
  for (const name of readdirSync(join(root, sub)).sort()) {
    const rel = sub ? `${sub}/${name}` : name;
    const full = join(root, rel);
    if (statSync(full).isDirectory()) applyKptGetModel(root, rel);
    else if (/\.ya?ml$/.test(name)) {
      const text = readFileSync(full, 'utf8');
      const next = fetchedText(text);
      if (next !== text) writeFileSync(full, next);
    }
  }
}

module.exports = { applyKptGetModel, fetchedText };
