// Checks of a merged package against the generator's expectations (bench/lib/generate-packages.mjs),
// and comparisons of two merged packages: shared by the update benchmarks. Node builtins and yaml.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';

const KPT_IDENTIFIER = 'internal.kpt.dev/upstream-identifier';

export function listFiles(root, dir = '') {
  const found = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) found.push(...listFiles(root, path));
    else found.push(path);
  }
  return found.sort();
}

/**
 * Checks a merged package against the generator's expectations. Returns { checked, failures: [..],
 * headCommentLost }. strict: untouched and local-only files must be byte-identical to local, and
 * upstream-only files equal upstream including list order (true for the CLI, which writes only
 * changed files; kpt rewrites every file and appends new list entries, so its output is checked
 * with strict=false: parsed, named list entries compared in any order).
 */
export function verifyMerged(gen, dir, { strict }) {
  const failures = [];
  const fail = (message) => failures.push(message);
  const present = new Set(listFiles(dir).filter((p) => !p.startsWith('.')));
  let checked = 0;
  let headCommentLost = 0;
  if (!present.has('Kptfile')) fail('Kptfile missing');
  for (const [path, localText] of gen.files.local) {
    if (path === 'Kptfile') continue;
    if (!present.has(path)) {
      fail(`${path}: missing`);
      continue;
    }
    const text = readFileSync(join(dir, path), 'utf8');
    const expectation = gen.expectations.get(path);
    checked += 1;
    if (localText.startsWith('# ') && !text.startsWith(localText.slice(0, localText.indexOf('\n') + 1))) headCommentLost += 1;
    if (!expectation || expectation.kind === 'local-only') {
      if (strict ? text !== localText : !isDeepStrictEqual(canonical(strip(parse(text))), canonical(parse(localText)))) fail(`${path} (${expectation?.kind ?? 'untouched'}): differs from local`);
      if (!expectation) continue;
    }
    let js;
    try {
      js = strip(parse(text));
    } catch (error) {
      fail(`${path}: does not parse: ${error.message}`);
      continue;
    }
    const same = strict ? isDeepStrictEqual(js, parse(gen.files.upstream.get(path))) : isDeepStrictEqual(canonical(js), canonical(parse(gen.files.upstream.get(path))));
    if (expectation.kind === 'upstream-only' && !same) fail(`${path} (upstream-only): differs from upstream`);
    for (const check of expectation.checks) if (!check.check(js)) fail(`${path} (${expectation.kind}): ${check.side} edit "${check.description}" missing`);
    for (const lost of expectation.overridden) if (lost.check(js)) fail(`${path} (conflict): local "${lost.description}" kept, upstream should win`);
  }
  for (const path of present) if (!gen.files.local.has(path)) fail(`${path}: unexpected file`);
  return { checked, failures, headCommentLost };
}

/** Drops kpt's upstream-identifier annotation (kpt adds it to every resource it merges). */
export function strip(js) {
  const annotations = js?.metadata?.annotations;
  if (annotations && KPT_IDENTIFIER in annotations) delete annotations[KPT_IDENTIFIER];
  return js;
}

/** Sorts lists of named objects by name (kpt appends new list entries; the CLI keeps upstream's order). */
export function canonical(value) {
  if (Array.isArray(value)) {
    const items = value.map(canonical);
    return items.every((item) => item && typeof item === 'object' && typeof item.name === 'string')
      ? items.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))
      : items;
  }
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, canonical(v)]));
  return value;
}

/**
 * Parsed comparison of two merged packages' deployment files: { differ: paths that differ,
 * orderOnly: how many of those differ only in the order of named list entries }.
 */
export function comparePackages(gen, a, b) {
  const differ = [];
  let orderOnly = 0;
  for (const path of gen.files.local.keys()) {
    if (path === 'Kptfile') continue;
    const pa = join(a, path);
    const pb = join(b, path);
    if (!existsSync(pa) || !existsSync(pb)) {
      differ.push(path);
      continue;
    }
    const ja = strip(parse(readFileSync(pa, 'utf8')));
    const jb = strip(parse(readFileSync(pb, 'utf8')));
    if (isDeepStrictEqual(ja, jb)) continue;
    differ.push(path);
    if (isDeepStrictEqual(canonical(ja), canonical(jb))) orderOnly += 1;
  }
  return { differ, orderOnly };
}

export function sameBytes(gen, a, b) {
  return [...gen.files.local.keys()].every((path) => {
    const pa = join(a, path);
    const pb = join(b, path);
    return existsSync(pa) && existsSync(pb) && readFileSync(pa).equals(readFileSync(pb));
  });
}
