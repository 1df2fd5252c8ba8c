// Summarises a V8 .cpuprofile (node --cpu-prof): top functions by self and by total time, with
// bundle positions mapped back to src/ through the bundle's source map.
//
// Usage: node bench/lib/cpuprofile-summary.mjs PROFILE.cpuprofile... [--top 25] [--by function|file|phase]
//   The source map is found next to each bundle (<url>.map), e.g. dist/function.js.map.
//   --by file   aggregates self/total time per source file instead of per function.
//   --by phase  the time of an update by phase (PHASES below: the outermost marker on the stack wins),
//               averaged over the profiles given: where its time goes, as the README reports it.
// Node builtins only.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Map([...BASE64].map((c, i) => [c, i]));

/** Decodes a v3 source map into per-generated-line sorted segments [col, sourceIndex, line, col, nameIndex?]. */
export function decodeSourceMap(map) {
  const lines = [];
  let source = 0;
  let origLine = 0;
  let origCol = 0;
  let name = 0;
  for (const lineText of map.mappings.split(';')) {
    const segments = [];
    let genCol = 0;
    for (const segment of lineText.split(',')) {
      if (!segment) continue;
      const values = [];
      let value = 0;
      let shift = 0;
      for (const char of segment) {
        const digit = DIGIT.get(char);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          values.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      genCol += values[0];
      if (values.length >= 4) {
        source += values[1];
        origLine += values[2];
        origCol += values[3];
        if (values.length >= 5) name += values[4];
        segments.push([genCol, source, origLine, origCol, values.length >= 5 ? name : -1]);
      }
    }
    lines.push(segments);
  }
  return { sources: map.sources, names: map.names ?? [], lines };
}

export function lookup(decoded, line, column) {
  const segments = decoded.lines[line];
  if (!segments || segments.length === 0) return null;
  let lo = 0;
  let hi = segments.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (segments[mid][0] <= column) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (found < 0) return null;
  const [, source, origLine, , name] = segments[found];
  return { source: decoded.sources[source], line: origLine + 1, name: name >= 0 ? decoded.names[name] : undefined };
}

export function summarise(profile, { by = 'function' } = {}) {
  const maps = new Map();
  const mapFor = (url) => {
    if (!url || !url.startsWith('file://')) return null;
    if (!maps.has(url)) {
      const file = `${fileURLToPath(url)}.map`;
      maps.set(url, existsSync(file) ? decodeSourceMap(JSON.parse(readFileSync(file, 'utf8'))) : null);
    }
    return maps.get(url);
  };
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i + 1] ?? 0; // the time until the next sample is spent here
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + delta);
  }
  const keyOf = new Map();
  const label = (node) => {
    if (keyOf.has(node.id)) return keyOf.get(node.id);
    const { functionName, url, lineNumber, columnNumber } = node.callFrame;
    let key;
    const decoded = mapFor(url);
    const mapped = decoded ? lookup(decoded, lineNumber, columnNumber) : null;
    const short = (path) => path.replace(/^(\.\.\/)+/, '').replace(/^.*node_modules\//, 'node_modules/');
    if (mapped) key = by === 'file' ? short(mapped.source) : `${mapped.name || functionName || "(anonymous)"} ${short(mapped.source)}:${mapped.line}`;
    else if (!url) key = functionName ? `(${functionName})` : '(program)';
    else key = by === 'file' ? url.replace(/^file:\/\//, '') : `${functionName || '(anonymous)'} ${url.replace(/^file:\/\//, '').replace(/^node:/, 'node:')}:${lineNumber + 1}`;
    keyOf.set(node.id, key);
    return key;
  };
  const selfBy = new Map();
  const totalBy = new Map();
  const onStack = new Map();
  // Iterative DFS: total time of a key counts each subtree once, however deep the recursion.
  const root = profile.nodes[0];
  const subtree = new Map();
  const order = [];
  const stack = [root.id];
  while (stack.length) {
    const id = stack.pop();
    order.push(id);
    for (const child of nodes.get(id).children ?? []) stack.push(child);
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const node = nodes.get(order[i]);
    let sum = self.get(node.id) ?? 0;
    for (const child of node.children ?? []) sum += subtree.get(child);
    subtree.set(node.id, sum);
  }
  const visit = [[root.id, false]];
  while (visit.length) {
    const [id, leaving] = visit.pop();
    const node = nodes.get(id);
    const key = label(node);
    if (leaving) {
      onStack.set(key, onStack.get(key) - 1);
      continue;
    }
    selfBy.set(key, (selfBy.get(key) ?? 0) + (self.get(id) ?? 0));
    if (!onStack.get(key)) totalBy.set(key, (totalBy.get(key) ?? 0) + subtree.get(id));
    onStack.set(key, (onStack.get(key) ?? 0) + 1);
    visit.push([id, true]);
    for (const child of node.children ?? []) visit.push([child, false]);
  }
  const totalTime = subtree.get(root.id);
  return { totalMs: totalTime / 1000, rows: [...selfBy.keys()].map((key) => ({ key, selfMs: selfBy.get(key) / 1000, totalMs: (totalBy.get(key) ?? 0) / 1000 })) };
}

/**
 * The phases of an update, by the function (source-mapped name) that starts each: a sample counts
 * for the outermost of them on its stack, so a parse inside the writing-back counts as rendering.
 */
const PHASES = [
  ['module load', /^(loadBundle)$/],
  ['lock and recovery', /^(lockPackage|recoverInterrupted)$/],
  ['read', /^(readDiskTree)$/],
  ['git', /^(uncommittedChanges|readTrees|fetchVersions|resolve)$/],
  ['scan (documents, identities)', /^(readKrmVersions)$/],
  ['render (write back)', /^(fileTexts)$/],
  ['merge', /^(mergeUpstream)$/],
  ['trees (parse)', /^(parseDocument|parseResource)$/],
  ['write (plan, safe writer)', /^(planUpdate|executePlan)$/],
];

/**
 * Milliseconds of self time by area, and in all, of one profile: `areas` is a list of [area, pattern]
 * tried in order on each sample's source file (source-mapped: `src/merge/...`, `node_modules/yaml/...`,
 * `node:internal/...`, `(garbage collector)`); the first that matches takes the sample.
 */
export function areaTimes(profile, areas, otherwise = 'other') {
  const { totalMs, rows } = summarise(profile, { by: 'file' });
  const ms = new Map();
  for (const { key, selfMs } of rows) {
    const area = areas.find(([, pattern]) => pattern.test(key))?.[0] ?? otherwise;
    ms.set(area, (ms.get(area) ?? 0) + selfMs);
  }
  return { totalMs, byArea: ms };
}

/** Milliseconds by phase, and in all, of one profile. */
export function phases(profile) {
  const maps = new Map();
  const nameOf = (node) => {
    const { functionName, url, lineNumber, columnNumber } = node.callFrame;
    if (url?.startsWith('file://')) {
      if (!maps.has(url)) {
        const file = `${fileURLToPath(url)}.map`;
        maps.set(url, existsSync(file) ? decodeSourceMap(JSON.parse(readFileSync(file, 'utf8'))) : null);
      }
      const decoded = maps.get(url);
      const mapped = decoded ? lookup(decoded, lineNumber, columnNumber) : null;
      if (mapped?.name) return mapped.name;
    }
    return functionName;
  };
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const phaseOf = new Map();
  const assign = (id, outer) => {
    const node = nodes.get(id);
    const name = nameOf(node);
    let phase = outer;
    if (outer === undefined) phase = PHASES.find(([, marker]) => marker.test(name))?.[0];
    if (name === '(garbage collector)') phase = 'GC';
    phaseOf.set(id, phase);
    for (const child of node.children ?? []) assign(child, phase === 'GC' ? undefined : phase);
  };
  assign(profile.nodes[0].id, undefined);
  const ms = new Map();
  let all = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const phase = phaseOf.get(profile.samples[i]) ?? 'other (start-up, command line, files to plan)';
    ms.set(phase, (ms.get(phase) ?? 0) + delta);
    all += delta;
  }
  return { totalMs: all, byPhase: ms };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const files = args.filter((a) => !a.startsWith('--') && !/^\d+$/.test(a) && !['file', 'function', 'phase'].includes(a));
  const [file] = files;
  const top = Number(args[args.indexOf('--top') + 1]) || 25;
  const by = args.includes('--by') ? args[args.indexOf('--by') + 1] : 'function';
  if (!file) {
    console.error('usage: node bench/lib/cpuprofile-summary.mjs PROFILE.cpuprofile... [--top N] [--by function|file|phase]');
    process.exit(2);
  }
  if (by === 'phase') {
    const sums = new Map();
    let all = 0;
    for (const path of files) {
      const { totalMs, byPhase } = phases(JSON.parse(readFileSync(path, 'utf8')));
      all += totalMs;
      for (const [phase, ms] of byPhase) sums.set(phase, (sums.get(phase) ?? 0) + ms);
    }
    console.log(`${files.length} profile(s), ${(all / files.length).toFixed(0)} ms sampled on average; ms by phase (mean), share:`);
    for (const [phase, ms] of [...sums].sort((a, b) => b[1] - a[1])) console.log(`${(ms / files.length).toFixed(0).padStart(7)} ${((100 * ms) / all).toFixed(1).padStart(5)}%  ${phase}`);
    process.exit(0);
  }
  const { totalMs, rows } = summarise(JSON.parse(readFileSync(file, 'utf8')), { by });
  const pct = (ms) => `${((100 * ms) / totalMs).toFixed(1).padStart(5)}%`;
  console.log(`profile ${file}: ${totalMs.toFixed(0)} ms sampled`);
  console.log(`\ntop ${top} by self time (self ms, self %, total ms, total %):`);
  for (const r of [...rows].sort((a, b) => b.selfMs - a.selfMs).slice(0, top)) console.log(`${r.selfMs.toFixed(0).padStart(7)} ${pct(r.selfMs)} ${r.totalMs.toFixed(0).padStart(7)} ${pct(r.totalMs)}  ${r.key}`);
  console.log(`\ntop ${top} by total time (total ms, total %, self ms):`);
  for (const r of [...rows].sort((a, b) => b.totalMs - a.totalMs).slice(0, top)) console.log(`${r.totalMs.toFixed(0).padStart(7)} ${pct(r.totalMs)} ${r.selfMs.toFixed(0).padStart(7)}  ${r.key}`);
}
