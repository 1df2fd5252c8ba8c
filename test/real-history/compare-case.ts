/**
 * Compares our update of a real package with kpt's, package by package as kpt scopes them
 * (merge-semantics.md §7: boundaries from the local tree, a subpackage added upstream is a package
 * too). Resources compare as data through the differential suite's comparison, with its README
 * deviations; Kptfiles as data, their pipelines by function; every other file byte for byte, with
 * its mode. A difference no README deviation explains is a problem, named with its package.
 */
import { isDeepStrictEqual } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';
import { at, differences, formatPath, isMapValue, ListSchema, show, type Difference, type Json } from '../differential/compare';
import { DEVIATIONS } from '../differential/deviations';
import { packageDocs, type Files } from '../differential/fixtures';
import { PACKAGE_DEVIATIONS } from '../differential/package-deviations';
import { compareResources } from '../differential/resource-verdict';
import type { Tree } from './corpus';
import type { OurOutcome } from './run-ours';

export interface CaseVerdict {
  outcome: 'equal' | 'both refused' | 'deviations' | 'differing';
  /** README deviation rows the differences were attributed to. */
  deviations: Set<string>;
  /** What differs that no README deviation explains. */
  problems: string[];
}

export interface CaseTrees {
  origin: Tree;
  upstream: Tree;
  local: Tree;
  kpt: Tree;
  ours: Tree;
}

type ScopeKind = 'root' | 'subpackage' | 'independent' | 'added upstream' | 'deleted locally';

/** Kptfiles have no keyed lists: pipelines compare whole, their order by pipelineOrder. */
const KPTFILE_SCHEMA = new ListSchema([]);

const isKptfile = (path: string) => path === 'Kptfile' || path.endsWith('/Kptfile');
const isYaml = (path: string) => /\.ya?ml$/.test(path);
const dirOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');
const text = (tree: Tree, path: string) => tree.get(path)?.bytes.toString('utf8');
const data = (t: string | undefined) => (t === undefined ? undefined : ((parse(t) as Json) ?? undefined));

/**
 * Package directories ('' for the root) and what each is: those of the local tree, those kpt's output
 * adds (added upstream), and those only the versions have (deleted locally).
 */
function scopesOf(trees: CaseTrees): Map<string, ScopeKind> {
  const scopes = new Map<string, ScopeKind>([['', 'root']]);
  const sources = [
    [trees.local, undefined],
    [trees.kpt, 'added upstream'],
    [trees.origin, 'deleted locally'],
    [trees.upstream, 'deleted locally'],
  ] as const;
  for (const [tree, kind] of sources) {
    for (const path of tree.keys()) {
      if (!isKptfile(path) || path === 'Kptfile' || scopes.has(dirOf(path))) continue;
      const kptfile = data(text(tree, path));
      scopes.set(dirOf(path), kind ?? (isMapValue(kptfile) && kptfile.upstream ? 'independent' : 'subpackage'));
    }
  }
  return scopes;
}

function scopeOf(scopes: Map<string, ScopeKind>, path: string): string {
  let best = '';
  for (const scope of scopes.keys()) if (scope && path.startsWith(`${scope}/`) && scope.length > best.length) best = scope;
  return best;
}

const textsOf = (tree: Tree, paths: string[]): Files => Object.fromEntries(paths.filter((p) => tree.has(p)).map((p) => [p, text(tree, p)!]));

// -- Kptfiles ------------------------------------------------------------------------------------

/** kpt matches pipeline functions by name, else by image without its tag. */
function functionKey(fn: Json): string {
  if (!isMapValue(fn)) return JSON.stringify(fn);
  return typeof fn.name === 'string' ? `name:${fn.name}` : `image:${String(fn.image ?? '').replace(/:[^/:]*$/, '')}`;
}

function keysAt(kptfile: Json | undefined, list: string): string[] {
  const pipeline = isMapValue(kptfile) ? kptfile.pipeline : undefined;
  const fns = isMapValue(pipeline) ? pipeline[list] : undefined;
  return Array.isArray(fns) ? fns.map(functionKey) : [];
}

/** Our documented order: local's stands, each new function right after its upstream predecessor. */
function documentedOrder(local: string[], upstream: string[], kept: Set<string>): string[] {
  const out = local.filter((k) => kept.has(k));
  upstream.forEach((key, i) => {
    if (out.includes(key) || !kept.has(key)) return;
    let at = 0;
    for (let j = i - 1; j >= 0; j--) {
      const p = out.indexOf(upstream[j]!);
      if (p >= 0) {
        at = p + 1;
        break;
      }
    }
    out.splice(at, 0, key);
  });
  return out;
}

interface KptfileSides {
  upstream?: Json;
  local?: Json;
  strategy: string;
}

/** The Kptfile fields our merge takes from upstream where kpt's other strategies keep local's. */
const MERGED_FIELDS = new Set(['metadata', 'info', 'pipeline', 'inventory', 'status']);

/** fast-forward and force-delete-replace: kpt left the root Kptfile's field as local had it, we merged upstream's. */
function untouchedRootKptfile(d: Difference, sides: KptfileSides): { deviation: string } | undefined {
  if (sides.strategy === 'resource-merge' || !MERGED_FIELDS.has(String(d.path[0]))) return undefined;
  const get = (side: Json | undefined) => at(side, d.path, 'Kptfile', KPTFILE_SCHEMA);
  if (!isDeepStrictEqual(d.kpt, get(sides.local)) || !isDeepStrictEqual(d.ours, get(sides.upstream))) return undefined;
  return { deviation: DEVIATIONS.rootKptfile };
}

/** A pipeline list holding the same functions in another order: the README's "appended" row, checked. */
function pipelineOrder(d: Difference, sides: KptfileSides): { deviation: string } | { problem: string } | undefined {
  const list = d.path.length === 2 && d.path[0] === 'pipeline' ? String(d.path[1]) : undefined;
  if (!list || !Array.isArray(d.kpt) || !Array.isArray(d.ours)) return undefined;
  const sorted = (fns: Json[]) => [...fns].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  if (!isDeepStrictEqual(sorted(d.kpt), sorted(d.ours))) return undefined;
  const ours = d.ours.map(functionKey);
  const expected = documentedOrder(keysAt(sides.local, list), keysAt(sides.upstream, list), new Set(ours));
  if (isDeepStrictEqual(ours, expected)) return { deviation: DEVIATIONS.appended };
  return { problem: `pipeline.${list}: the functions kpt has, but not in our documented order: expected ${expected.join(', ')}, ours ${ours.join(', ')}` };
}

// -- the comparison ------------------------------------------------------------------------------

export function compareCase(trees: CaseTrees, strategy: string, kpt: { exitCode: number; error?: string }, ours: OurOutcome, listed: ReadonlySet<string>): CaseVerdict {
  const problems: string[] = [];
  const deviations = new Set<string>();
  const errors = ours.messages.filter((m) => m.severity === 'error').map((m) => m.message);

  if (kpt.exitCode !== 0) {
    if (ours.exitCode !== 0) return { outcome: 'both refused', deviations, problems };
    return { outcome: 'differing', deviations, problems: [`kpt refused (exit ${kpt.exitCode}): ${kpt.error}\nbut we updated`] };
  }
  if (ours.exitCode !== 0) return { outcome: 'differing', deviations, problems: [`kpt updated, we refused: ${errors.join(' | ')}`] };

  const scopes = scopesOf(trees);
  const all = [...new Set([...trees.kpt.keys(), ...trees.ours.keys(), ...trees.local.keys(), ...trees.origin.keys(), ...trees.upstream.keys()])].sort();
  const messages = ours.messages.map((m) => m.message);
  for (const [scope, kind] of scopes) {
    const paths = all.filter((p) => scopeOf(scopes, p) === scope);
    const where = scope ? `${kind} ${scope}/` : 'root package';

    // every file that is not a Kptfile or YAML: bytes and mode
    for (const path of paths.filter((p) => !isKptfile(p) && !isYaml(p))) {
      const [k, o] = [trees.kpt.get(path), trees.ours.get(path)];
      if ((!k && !o) || (k && o && k.bytes.equals(o.bytes) && k.mode === o.mode)) continue;
      if (k && !o && trees.origin.has(path) && !trees.local.has(path) && listed.has(PACKAGE_DEVIATIONS.deletedFile)) {
        deviations.add(PACKAGE_DEVIATIONS.deletedFile);
        continue;
      }
      const state = !o ? 'missing in ours' : !k ? 'not in kpt’s output' : k.bytes.equals(o.bytes) ? `mode ${o.mode}, kpt ${k.mode}` : 'content differs';
      problems.push(`${where}: ${path}: ${state}`);
    }

    // the package's Kptfile, as data
    const kptfile = scope ? `${scope}/Kptfile` : 'Kptfile';
    const sides: KptfileSides = { upstream: data(text(trees.upstream, kptfile)), local: data(text(trees.local, kptfile)), strategy };
    for (const d of differences(data(text(trees.kpt, kptfile)), data(text(trees.ours, kptfile)), 'Kptfile', KPTFILE_SCHEMA)) {
      const order = kind === 'root' ? (untouchedRootKptfile(d, sides) ?? pipelineOrder(d, sides)) : undefined;
      if (order && 'deviation' in order && listed.has(order.deviation)) deviations.add(order.deviation);
      else if (order && 'problem' in order) problems.push(`${where}: Kptfile ${order.problem}`);
      else problems.push(`${where}: ${kptfile} ${formatPath(d.path)}: kpt ${show(d.kpt)}, ours ${show(d.ours)}`);
    }

    // resources, by identity within the package
    const yaml = paths.filter(isYaml);
    const verdict = compareResources(
      {
        origin: textsOf(trees.origin, yaml),
        upstream: textsOf(trees.upstream, yaml),
        local: textsOf(trees.local, yaml),
        kpt: textsOf(trees.kpt, yaml),
        ours: packageDocs(textsOf(trees.ours, yaml)),
        messages,
      },
      listed,
    );
    for (const d of verdict.deviations) deviations.add(d);
    for (const problem of verdict.problems) problems.push(`${where}: ${problem}`);

    // YAML files without resources: as text
    for (const path of yaml) {
      const [k, o] = [text(trees.kpt, path), text(trees.ours, path)];
      const resources = (t: string | undefined) => (t === undefined ? 0 : packageDocs({ [path]: t }).length);
      if (k === o || resources(k) > 0 || resources(o) > 0) continue;
      const same = k !== undefined && o !== undefined && isDeepStrictEqual(parseAllDocuments(k).map((d) => d.toJS()), parseAllDocuments(o).map((d) => d.toJS()));
      if (!same) {
        problems.push(`${where}: ${path}: ${k === undefined ? 'not in kpt’s output' : o === undefined ? 'missing in ours' : 'content differs'}`);
      }
    }
  }
  if (problems.length) return { outcome: 'differing', deviations, problems };
  return { outcome: deviations.size ? 'deviations' : 'equal', deviations, problems };
}
