/**
 * Attributes a difference between kpt's result and ours to a row of the README's table "Deviations
 * from kpt 1.0.0-beta.56". Each detector recognises its situation from the three inputs and kpt's
 * output only, then states what our documented result is there; the caller asserts it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isPair, isSeq, parseDocument, type Node } from 'yaml';
import { REPO_ROOT } from '../helpers';
import { at, emptyish, formatPath, isMapValue, keyOf, same, show, type Difference, type Json, type ListRule, type ListSchema, type Seg } from './compare';

/** One resource (by identity) in the three inputs, kpt's output and ours: canonical, normalised data. */
export interface ResourceCase {
  kind: string;
  id: string;
  origin?: Json;
  upstream?: Json;
  local?: Json;
  kpt?: Json;
  ours?: Json;
  /** Local's and origin's data as read, before kpt's bookkeeping is removed. */
  localRaw?: Json;
  originRaw?: Json;
  originText?: string;
  upstreamText?: string;
  schema: ListSchema;
  /** Our results' messages. */
  messages: string[];
  /** The upstream package has no resources at all. */
  upstreamEmpty: boolean;
  originPath?: string;
  upstreamPath?: string;
  localPath?: string;
  /** kpt's output can hold one identity in several files. */
  kptPaths?: string[];
  ourPath?: string;
}

export interface Claim {
  /** The README table's kpt column, which names the deviation. */
  deviation: string;
  /** Where the situation is (deduplicates claims over several differences below one place). */
  where: string;
  /** Throws unless our output has the documented result. */
  check: () => void;
}

/** The kpt column of the README's table "Deviations from kpt 1.0.0-beta.56". */
export function readmeDeviations(readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')): string[] {
  const section = readme.split(/^### /m).find((s) => s.startsWith('Deviations from kpt')) ?? '';
  return section
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|\s*-+\s*\|/.test(l))
    .slice(1)
    .map((l) => l.split('|')[1]!.trim());
}

/** Rows of the table, by what each detector recognises. */
export const DEVIATIONS = {
  emptyMap: 'a map the merge empties (deleted on one side, emptied by upstream nulls, or each side deleting different keys) stays as `{}`',
  emptyList: 'a list deleted locally comes back as `[]` where upstream left it alone or only removed elements',
  keyless: 'elements without their key are moved first or dropped; duplicates collapse',
  nameClash: 'both sides changing the key of one port leave two ports with one name',
  portDuplicated: 'upstream adding `protocol: TCP` duplicates a container port',
  stub: 'an element deleted upstream survives as a stub where local changed it, and also where it holds a map local left alone',
  partial: 'an element or map deleted locally but changed upstream comes back partially',
  localNull: 'a local `null` always removes the field',
  commentOnly: 'comment-only upstream changes replace local edits',
  typeOnly: 'type-only changes (`"1"` to `1`) are ignored',
  crdAtomic: 'CRD lists are always atomic',
  allDeleted: 'if every resource is deleted upstream, nothing is deleted',
  moved: 'identity includes the file path; a moved resource is deleted and re-added',
  appended: 'new keys and elements are appended, keys sorted',
  rootKptfile: 'fast-forward and force-delete-replace never update the root Kptfile',
} as const;

class Mismatch extends Error {}

function expectThat(ok: boolean, message: () => string): void {
  if (!ok) throw new Mismatch(message());
}

const missing = (v: Json | undefined): boolean => v === undefined || v === null;

const list = (v: Json | undefined): Json[] => (Array.isArray(v) ? v : []);

function ancestorsOrSelf(path: readonly Seg[]): Seg[][] {
  return path.map((_, i) => path.slice(0, i + 1));
}

type Side = 'origin' | 'upstream' | 'local' | 'kpt' | 'ours';

function getter(c: ResourceCase) {
  return (side: Side, path: readonly Seg[]): Json | undefined => at(c[side], path, c.kind, c.schema);
}

function hasMessage(c: ResourceCase, fragment: string): boolean {
  return c.messages.some((m) => m.includes(fragment) && m.includes(` ${c.kind} `));
}


// -- comments, for comment-only changes ---------------------------------------------------------

function nodeAt(text: string | undefined, path: readonly Seg[], kind: string, schema: ListSchema): Node | undefined {
  if (text === undefined) return undefined;
  let node: unknown = parseDocument(text).contents;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    if (typeof seg === 'string') {
      if (!isMap(node)) return undefined;
      node = node.get(seg, true);
    } else {
      const rule = schema.listAt(kind, path.slice(0, i));
      if (!isSeq(node) || !rule) return undefined;
      node = node.items.find((item) => keyOf(rule, (item as { toJSON?: () => Json })?.toJSON?.() ?? null) === seg.key);
    }
  }
  return node as Node | undefined;
}

function commentsIn(node: unknown, out: string[] = []): string[] {
  if (!node || typeof node !== 'object') return out;
  const n = node as { comment?: string | null; commentBefore?: string | null };
  if (n.comment) out.push(`c:${n.comment}`);
  if (n.commentBefore) out.push(`b:${n.commentBefore}`);
  if (isMap(node) || isSeq(node)) {
    for (const item of node.items) {
      if (isPair(item)) {
        commentsIn(item.key, out);
        commentsIn(item.value, out);
      } else commentsIn(item, out);
    }
  }
  return out;
}

/** An upstream value as it lands: its nulls remove fields. */
function withoutNulls(v: Json | undefined): Json | undefined {
  if (Array.isArray(v)) return v.map((x) => withoutNulls(x) ?? null);
  if (isMapValue(v)) {
    const out: Record<string, Json> = {};
    for (const [k, x] of Object.entries(v)) if (x !== null) out[k] = withoutNulls(x)!;
    return out;
  }
  return v;
}

// -- keyed three-way expectations (for CRD lists we key) -----------------------------------------

/** An element with its missing key fields at their schema default: the two spellings are one value. */
function withKeyDefaults(rule: ListRule, e: Json | undefined): Json | undefined {
  if (!isMapValue(e)) return e;
  const out: Record<string, Json> = { ...e };
  for (const [k, v] of Object.entries(rule.defaults)) if (missing(out[k])) out[k] = v;
  return out;
}

/** `x` against `o` only removes things: fields, list elements, the value itself. */
export function removesOnly(o: Json | undefined, x: Json | undefined): boolean {
  if (missing(x) || same(o, x)) return true;
  if (isMapValue(o) && isMapValue(x)) return Object.keys(x).every((k) => k in o && removesOnly(o[k], x[k]));
  if (Array.isArray(o) && Array.isArray(x)) return x.every((e) => o.some((oe) => same(oe, e) || (isMapValue(oe) && isMapValue(e) && removesOnly(oe, e))));
  return false;
}

/** Deleted on one side while the other deleted it too or only removed things from it. */
function deletedOnBoth(o: Json | undefined, u: Json | undefined, l: Json | undefined): boolean {
  return missing(l) ? removesOnly(o, u) : missing(u) && removesOnly(o, l);
}

function expectKeyedMerge(rule: ListRule, o: Json | undefined, u: Json | undefined, l: Json | undefined, ours: Json | undefined): void {
  const byKey = (v: Json | undefined) => new Map(list(v).map((e) => [keyOf(rule, e), withKeyDefaults(rule, e)] as const));
  const [O, U, L, W] = [byKey(o), byKey(u), byKey(l), byKey(ours)];
  for (const k of new Set([...O.keys(), ...U.keys(), ...L.keys(), ...W.keys()])) {
    const [oe, ue, le, we] = [O.get(k), U.get(k), L.get(k), W.get(k)];
    let expected: Json | undefined;
    if (same(ue, oe)) expected = le;
    else if (same(le, oe)) expected = withoutNulls(ue);
    else if (oe !== undefined && deletedOnBoth(oe, ue, le)) expected = undefined; // deletions never conflict with deletions
    else if (same(le, ue)) expected = le;
    else if (ue === undefined) expected = undefined; // changed locally, deleted upstream: upstream wins
    else if (le === undefined) expected = withoutNulls(ue); // deleted locally, changed upstream: upstream's whole element
    else if (isMapValue(ue) && isMapValue(le) && isMapValue(oe)) {
      const merged: Record<string, Json> = {};
      for (const f of new Set([...Object.keys(oe), ...Object.keys(ue), ...Object.keys(le)])) {
        const fromUpstream = !same(ue[f], oe[f]);
        const v = fromUpstream ? withoutNulls(ue[f]) : le[f];
        if (v !== undefined && !(fromUpstream && v === null)) merged[f] = v;
      }
      expected = merged;
    } else expected = withoutNulls(ue);
    expectThat(same(we, withKeyDefaults(rule, expected)), () => `element ${k}: expected a keyed merge to give ${show(expected)}, ours is ${show(we)}`);
  }
}

// -- detectors -----------------------------------------------------------------------------------

type Detector = (c: ResourceCase, d: Difference) => Claim | undefined;

/** `{}` or `[]` (nested), a list element holding only its key and such, or a list of those. */
function emptyShell(c: ResourceCase, path: readonly Seg[], v: Json | undefined): boolean {
  if (emptyish(v) || (Array.isArray(v) && v.length === 0)) return true;
  if (isMapValue(v) && Object.values(v).every((x) => Array.isArray(x) ? x.length === 0 : emptyish(x))) return true;
  const list = Array.isArray(v) ? c.schema.listAt(c.kind, path) : undefined;
  if (list && Array.isArray(v)) return v.every((e) => emptyShell(c, [...path, { key: keyOf(list, e), fields: {} }], e));
  const rule = typeof path[path.length - 1] !== 'string' ? c.schema.listAt(c.kind, path.slice(0, -1)) : undefined;
  return !!rule && isMapValue(v) && Object.entries(v).every(([k, x]) => rule.keys.includes(k) || emptyShell(c, [...path, k], x));
}

const emptyMap: Detector = (c, d) => {
  const get = getter(c);
  if (!emptyShell(c, d.path, d.kpt) || d.multiplicity) return undefined;
  const emptiedList = Array.isArray(d.kpt) && d.kpt.length === 0;
  // kpt's `{}` (or `[]`) where neither version has it empty: the merge emptied it (a deletion,
  // upstream nulls, or each side deleting different keys). We drop such a map or list.
  const emptyIn = (side: 'upstream' | 'local') => {
    const v = get(side, d.path);
    return emptiedList ? Array.isArray(v) && v.length === 0 : !missing(v) && emptyShell(c, d.path, v ?? null);
  };
  if (emptyIn('upstream') || emptyIn('local')) return undefined;
  return {
    deviation: emptiedList ? DEVIATIONS.emptyList : DEVIATIONS.emptyMap,
    where: formatPath(d.path),
    check: () => expectThat(d.ours === undefined, () => `stays deleted: expected no ${formatPath(d.path)}, ours is ${show(d.ours)}`),
  };
};

/**
 * kpt keys ports by (port, protocol) as written: `protocol: TCP` and no protocol are different
 * elements to it, so it duplicates a port (upstream adds the protocol), drops it (upstream removes
 * it) or restores a stub next to it (local removes it). We give the key its schema default.
 */
const protocolDefault: Detector = (c, d) => {
  const i = d.path.findIndex((seg, j) => seg === 'ports' && c.schema.listAt(c.kind, d.path.slice(0, j + 1))?.defaults.protocol !== undefined);
  if (i === -1) return undefined;
  const listPath = d.path.slice(0, i + 1);
  const rule = c.schema.listAt(c.kind, listPath)!;
  const get = getter(c);
  const portOf = (e: Json) => (isMapValue(e) ? String(e.containerPort ?? e.port) : '');
  const spelling = new Map<string, Set<string>>();
  for (const side of ['origin', 'upstream', 'local', 'kpt'] as const) {
    const list = get(side, listPath);
    for (const e of Array.isArray(list) ? list : []) {
      const port = portOf(e);
      if (!spelling.has(port)) spelling.set(port, new Set());
      spelling.get(port)!.add(isMapValue(e) && !missing(e.protocol) ? 'explicit' : 'implicit');
    }
  }
  const varying = [...spelling].filter(([, s]) => s.size === 2).map(([p]) => p);
  const seg = d.path[i + 1];
  const concerned = seg === undefined || typeof seg === 'string' ? varying.length > 0 : varying.includes(String(seg.fields.containerPort ?? seg.fields.port));
  if (!concerned) return undefined;
  return {
    deviation: DEVIATIONS.portDuplicated,
    where: formatPath(listPath),
    check: () => {
      const ours = get('ours', listPath);
      const keys = (Array.isArray(ours) ? ours : []).map((e) => keyOf(rule, e));
      expectThat(new Set(keys).size === keys.length, () => `missing keys take their schema default: expected each port once in ${formatPath(listPath)}, ours is ${show(ours)}`);
      expectKeyedMerge(rule, get('origin', listPath), get('upstream', listPath), get('local', listPath), ours);
    },
  };
};

const stub: Detector = (c, d) => {
  const get = getter(c);
  for (const e of ancestorsOrSelf(d.path)) {
    if (typeof e[e.length - 1] === 'string') continue;
    const o = get('origin', e);
    const l = get('local', e);
    if (o === undefined || l === undefined || get('upstream', e) !== undefined || same(o, l) || get('kpt', e) === undefined) continue;
    return {
      deviation: DEVIATIONS.stub,
      where: formatPath(e),
      check: () => {
        expectThat(get('ours', e) === undefined, () => `upstream wins: expected ${formatPath(e)} removed, ours is ${show(get('ours', e))}`);
        // deletions never conflict with deletions: only a local addition or change is reported
        if (!removesOnly(o, l)) expectThat(hasMessage(c, 'changed locally but deleted upstream'), () => `expected a result naming ${formatPath(e)} (changed locally but deleted upstream); results: ${c.messages.join(' | ')}`);
      },
    };
  }
  return undefined;
};

const partial: Detector = (c, d) => {
  const get = getter(c);
  for (const a of ancestorsOrSelf(d.path)) {
    const o = get('origin', a);
    const u = get('upstream', a);
    const k = get('kpt', a);
    // kpt's `[]` is nothing of upstream's brought back: emptyMap names it
    if (missing(o) || !missing(get('local', a)) || u === undefined || same(u, o) || k === undefined || same(k, u) || (Array.isArray(k) && k.length === 0)) continue;
    const rule = Array.isArray(u) ? c.schema.listAt(c.kind, a) : undefined;
    return {
      deviation: DEVIATIONS.partial,
      where: formatPath(a),
      check: () => {
        const ours = get('ours', a);
        if (removesOnly(o, u)) {
          // deletions never conflict with deletions: upstream only removed things, so it stays deleted
          expectThat(ours === undefined, () => `upstream only removed things from ${formatPath(a)}, which local deleted: expected it missing, ours is ${show(ours)}`);
          return;
        }
        if (!same(ours, u)) {
          expectThat(rule !== undefined, () => `upstream's whole value comes back: expected ${formatPath(a)} = ${show(u)}, ours is ${show(ours)}`);
          // a keyed list deleted locally: upstream's changed elements come back whole, the others stay deleted
          expectKeyedMerge(rule!, o, u, undefined, ours);
        }
        expectThat(hasMessage(c, 'deleted locally but changed upstream'), () => `expected a result naming ${formatPath(a)} (deleted locally but changed upstream); results: ${c.messages.join(' | ')}`);
      },
    };
  }
  return undefined;
};

const localNull: Detector = (c, d) => {
  const get = getter(c);
  for (const a of ancestorsOrSelf(d.path)) {
    const k = get('kpt', a);
    if (get('local', a) !== null || (k !== undefined && !emptyShell(c, a, k))) continue;
    const o = get('origin', a);
    const u = get('upstream', a);
    const upstreamChanged = !same(u, o);
    return {
      deviation: DEVIATIONS.localNull,
      where: formatPath(a),
      check: () => {
        const ours = get('ours', a);
        if (!upstreamChanged) expectThat(ours === null, () => `a local null is kept while upstream did not change the field: expected ${formatPath(a)}: null, ours is ${show(ours)}`);
        else if (u === null || u === undefined) expectThat(ours === undefined, () => `upstream removed ${formatPath(a)}: expected it missing, ours is ${show(ours)}`);
        else expectThat(same(ours, u), () => `upstream changed ${formatPath(a)}, so upstream wins: expected ${show(u)}, ours is ${show(ours)}`);
      },
    };
  }
  return undefined;
};

const commentOnly: Detector = (c, d) => {
  const get = getter(c);
  for (const a of ancestorsOrSelf(d.path)) {
    const o = get('origin', a);
    const u = get('upstream', a);
    const l = get('local', a);
    if (o === undefined || !same(u, o) || same(l, o) || !same(get('kpt', a), u)) continue;
    const before = commentsIn(nodeAt(c.originText, a, c.kind, c.schema));
    const after = commentsIn(nodeAt(c.upstreamText, a, c.kind, c.schema));
    if (same(before, after)) continue;
    return {
      deviation: DEVIATIONS.commentOnly,
      where: formatPath(a),
      check: () => expectThat(same(get('ours', a), l), () => `comments are not changes: expected local's ${formatPath(a)} = ${show(l)}, ours is ${show(get('ours', a))}`),
    };
  }
  return undefined;
};

const typeOnly: Detector = (c, d) => {
  const get = getter(c);
  const o = get('origin', d.path);
  const u = get('upstream', d.path);
  const scalar = (v: Json | undefined) => v !== null && v !== undefined && typeof v !== 'object';
  if (!scalar(o) || !scalar(u) || o === u || String(o) !== String(u) || !same(d.kpt, get('local', d.path))) return undefined;
  return {
    deviation: DEVIATIONS.typeOnly,
    where: formatPath(d.path),
    check: () => expectThat(d.ours === u, () => `a type is a change: expected upstream's ${show(u)} at ${formatPath(d.path)}, ours is ${show(d.ours)}`),
  };
};

const crdAtomic: Detector = (c, d) => {
  const lists = c.schema.crdLists.get(c.kind);
  if (!lists) return undefined;
  const get = getter(c);
  for (const a of ancestorsOrSelf(d.path)) {
    const rule = c.schema.listAt(c.kind, a);
    if (!rule || ![...lists].some((p) => p === patternOfPath(a))) continue;
    const o = get('origin', a);
    const u = get('upstream', a);
    const l = get('local', a);
    const atomic = same(u, o) ? l : u;
    if (!same(get('kpt', a), atomic)) continue;
    return {
      deviation: DEVIATIONS.crdAtomic,
      where: formatPath(a),
      check: () => expectKeyedMerge(rule, o, u, l, get('ours', a)),
    };
  }
  return undefined;
};

/** The keyed list above a difference inside one of its elements, with its rule. */
function listAbove(c: ResourceCase, path: readonly Seg[]): { listPath: Seg[]; rule: ListRule } | undefined {
  const i = path.findIndex((seg, j) => typeof seg !== 'string' && c.schema.listAt(c.kind, path.slice(0, j)) !== undefined);
  return i === -1 ? undefined : { listPath: path.slice(0, i), rule: c.schema.listAt(c.kind, path.slice(0, i))! };
}

/**
 * kpt moves elements without their key to the front, or drops them. Where only one side changed such
 * a list, we take that side's list as it is (where both did, the merge stops: no claim here).
 */
const keyless: Detector = (c, d) => {
  const above = listAbove(c, d.path);
  if (!above) return undefined;
  const { listPath, rule } = above;
  const get = getter(c);
  const lacksKey = (e: Json) => rule.keys.some((k) => !isMapValue(e) || (missing(e[k]) && rule.defaults[k] === undefined));
  if (!(['origin', 'upstream', 'local'] as const).some((side) => list(get(side, listPath)).some(lacksKey))) return undefined;
  const [o, u, l] = [get('origin', listPath), get('upstream', listPath), get('local', listPath)];
  return {
    deviation: DEVIATIONS.keyless,
    where: formatPath(listPath),
    check: () => {
      const expected = same(u, o) ? l : withoutNulls(u);
      expectThat(same(get('ours', listPath), expected), () => `the list of the side that changed it, as it is: expected ${show(expected)}, ours is ${show(get('ours', listPath))}`);
    },
  };
};

/**
 * Both sides changed the key of one port (kpt keeps both: two ports with one name, which the API
 * server rejects). We report a conflict naming both, and upstream's port stays.
 */
const nameClash: Detector = (c, d) => {
  const above = listAbove(c, d.path);
  if (!above || above.listPath[above.listPath.length - 1] !== 'ports' || above.rule.keys.includes('name')) return undefined;
  const get = getter(c);
  const names = (v: Json | undefined) => list(v).flatMap((e) => (isMapValue(e) && typeof e.name === 'string' ? [e.name] : []));
  const kptNames = names(get('kpt', above.listPath));
  if (new Set(kptNames).size === kptNames.length) return undefined;
  return {
    deviation: DEVIATIONS.nameClash,
    where: formatPath(above.listPath),
    check: () => {
      const ours = names(get('ours', above.listPath));
      expectThat(new Set(ours).size === ours.length, () => `one port per name: ours is ${show(get('ours', above.listPath))}`);
      expectThat(hasMessage(c, 'would hold two elements with name'), () => `expected a conflict naming both ports; results: ${c.messages.join(' | ')}`);
    },
  };
};

function patternOfPath(path: readonly Seg[]): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'string' ? (out ? `.${seg}` : seg) : '[]';
  return out;
}

/** In the order tried: the more specific situations first. */
const FIELD_DETECTORS: Detector[] = [protocolDefault, nameClash, keyless, typeOnly, commentOnly, crdAtomic, stub, localNull, partial, emptyMap];

export function attributeField(c: ResourceCase, d: Difference): Claim | undefined {
  for (const detect of FIELD_DETECTORS) {
    const claim = detect(c, d);
    if (claim) return claim;
  }
  return undefined;
}

/** A resource in kpt's output and not ours, or the reverse. */
export function attributeResource(c: ResourceCase): Claim | undefined {
  if (c.upstreamEmpty && c.kpt !== undefined && c.ours === undefined && c.origin !== undefined) {
    return {
      deviation: DEVIATIONS.allDeleted,
      where: '(resource)',
      check: () => expectThat(same(c.local, c.origin), () => `deleted upstream: only a locally unchanged resource is deleted, but local changed ${c.id}`),
    };
  }
  return undefined;
}

/**
 * Upstream moved the resource to another file: kpt deletes it (unless changed locally, when it keeps
 * it there too) and adds upstream's version, without local's changes. We follow the move and merge.
 */
export function attributeMove(c: ResourceCase): Claim | undefined {
  if (!c.originPath || !c.upstreamPath || c.originPath === c.upstreamPath) return undefined;
  if (c.localPath === undefined && c.local === undefined) {
    // deleted locally: kpt adds upstream's copy at the new path as a new resource
    if (c.kpt === undefined) return undefined;
    return {
      deviation: DEVIATIONS.moved,
      where: `(moved upstream from ${c.originPath} to ${c.upstreamPath}, deleted locally)`,
      check: () => expectThat(c.ours === undefined, () => `deleted locally stays deleted: expected no ${c.id}, ours is in ${c.ourPath}`),
    };
  }
  if (c.localPath !== c.originPath) return undefined;
  const kptShows = (c.kptPaths?.length ?? 0) > 1 || !same(c.kpt, c.ours) || c.kpt === undefined;
  if (!kptShows) return undefined;
  return {
    deviation: DEVIATIONS.moved,
    where: `(moved upstream from ${c.originPath} to ${c.upstreamPath})`,
    check: () => {
      expectThat(c.ourPath === c.upstreamPath, () => `the path merges like a field: expected ${c.id} in ${c.upstreamPath}, ours is in ${c.ourPath ?? '(missing)'}`);
      if (same(c.local, c.origin)) expectThat(same(c.ours, c.upstream), () => `unchanged locally: expected upstream's ${c.id}, ours is\n${show(c.ours)}`);
    },
  };
}

/**
 * For a moved resource, kpt's copy is upstream's text as it is: a difference is either local's change,
 * which kpt dropped and we kept, or an upstream null, which kpt copied and we applied. A resource
 * changed locally also stays at its old path in kpt's output, as local has it: there a difference is
 * upstream's change where local kept origin's value, which kpt did not apply and we merged.
 */
export function movedKeepsLocalChange(c: ResourceCase, d: Difference): boolean {
  const get = getter(c);
  if (same(d.kpt, get('local', d.path)) && same(get('local', d.path), get('origin', d.path)) && same(d.ours, withoutNulls(get('upstream', d.path)))) return true;
  if (!same(d.kpt, get('upstream', d.path))) return false;
  if (same(d.ours, get('local', d.path)) && !same(get('local', d.path), get('origin', d.path))) return true;
  return d.kpt === null && d.ours === undefined;
}

export function isMismatch(e: unknown): e is Error {
  return e instanceof Mismatch;
}

