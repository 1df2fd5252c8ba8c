/**
 * Data comparison for the differential suite: keyed lists are compared by key (their order may
 * legitimately differ: we place new elements after their upstream predecessor, kpt appends), maps by
 * key, everything else exactly. A difference is reported at the deepest path where the two differ.
 */
import { isDeepStrictEqual } from 'node:util';
import { stringify } from 'yaml';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonMap = { [key: string]: Json };

/** How a list is merged: keyed by `keys` (a missing key takes its default), or a set of scalars. */
export interface ListRule {
  keys: string[];
  defaults: Record<string, Json>;
  set?: boolean;
}

/** A path step: a map key, or the element of a keyed list with the given key values. */
export type Seg = string | { key: string; fields: Record<string, Json> };

export const isMapValue = (v: unknown): v is JsonMap => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The keyed lists of a pod spec at `pod`. */
function podLists(pod: string): Record<string, ListRule> {
  return {
    [`${pod}.containers`]: { keys: ['name'], defaults: {} },
    [`${pod}.initContainers`]: { keys: ['name'], defaults: {} },
    [`${pod}.containers[].env`]: { keys: ['name'], defaults: {} },
    [`${pod}.containers[].ports`]: { keys: ['containerPort', 'protocol'], defaults: { protocol: 'TCP' } },
    [`${pod}.containers[].volumeMounts`]: { keys: ['mountPath'], defaults: {} },
    [`${pod}.volumes`]: { keys: ['name'], defaults: {} },
  };
}

const POD_LISTS = podLists('spec.template.spec');

/** The keyed lists of the workload kinds and Services (Kubernetes v1.21 schema). */
const BUILTIN: Record<string, Record<string, ListRule>> = {
  Deployment: POD_LISTS,
  StatefulSet: POD_LISTS,
  DaemonSet: POD_LISTS,
  ReplicaSet: POD_LISTS,
  Job: POD_LISTS,
  CronJob: podLists('spec.jobTemplate.spec.template.spec'),
  Service: { 'spec.ports': { keys: ['port', 'protocol'], defaults: { protocol: 'TCP' } } },
};

/** Where the keyed lists are, per kind: built in, plus those a CRD declares with x-kubernetes-list-type. */
export class ListSchema {
  private readonly byKind = new Map<string, Record<string, ListRule>>();
  /** Per CR kind, the paths of lists its CRD keys (or makes sets). */
  readonly crdLists = new Map<string, Set<string>>();

  constructor(crds: Json[]) {
    for (const [kind, rules] of Object.entries(BUILTIN)) this.byKind.set(kind, rules);
    for (const crd of crds) this.addCrd(crd);
  }

  private addCrd(crd: Json): void {
    if (!isMapValue(crd) || !isMapValue(crd.spec) || !isMapValue(crd.spec.names)) return;
    const kind = String(crd.spec.names.kind);
    const rules: Record<string, ListRule> = { ...(this.byKind.get(kind) ?? {}) };
    const lists = this.crdLists.get(kind) ?? new Set<string>();
    const walk = (schema: Json, path: string): void => {
      if (!isMapValue(schema)) return;
      const type = schema['x-kubernetes-list-type'];
      if (schema.type === 'array' && (type === 'map' || type === 'set')) {
        const keys = Array.isArray(schema['x-kubernetes-list-map-keys']) ? schema['x-kubernetes-list-map-keys'].map(String) : [];
        rules[path] = type === 'set' ? { keys: [], defaults: {}, set: true } : { keys, defaults: {} };
        lists.add(path);
      }
      if (isMapValue(schema.properties)) for (const [k, v] of Object.entries(schema.properties)) walk(v, path ? `${path}.${k}` : k);
      if (schema.type === 'array' && schema.items) walk(schema.items, `${path}[]`);
    };
    for (const version of Array.isArray(crd.spec.versions) ? crd.spec.versions : []) {
      if (isMapValue(version) && isMapValue(version.schema)) walk(version.schema.openAPIV3Schema ?? null, '');
    }
    this.byKind.set(kind, rules);
    this.crdLists.set(kind, lists);
  }

  listAt(kind: string, path: readonly Seg[]): ListRule | undefined {
    return this.byKind.get(kind)?.[patternOf(path)];
  }
}

/** `spec.template.spec.containers[].ports` for a path through elements. */
export function patternOf(path: readonly Seg[]): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'string' ? (out ? `.${seg}` : seg) : '[]';
  return out;
}

export function keyOf(rule: ListRule, element: Json): string {
  if (rule.set || !isMapValue(element)) return JSON.stringify(element);
  return JSON.stringify(rule.keys.map((k) => (element[k] !== undefined && element[k] !== null ? element[k] : rule.defaults[k] ?? null)));
}

function segOf(rule: ListRule, element: Json): Seg {
  const fields: Record<string, Json> = {};
  if (rule.set || !isMapValue(element)) fields.value = element;
  else for (const k of rule.keys) fields[k] = element[k] ?? rule.defaults[k] ?? null;
  return { key: keyOf(rule, element), fields };
}

export function formatPath(path: readonly Seg[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'string') out += /^[A-Za-z0-9_-]+$/.test(seg) ? (out ? `.${seg}` : seg) : `[${JSON.stringify(seg)}]`;
    else out += `[${Object.entries(seg.fields).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(',')}]`;
  }
  return out || '(resource)';
}

/** The value with keyed lists and sets sorted by key, so that order does not count. */
export function canonical(value: Json, kind: string, schema: ListSchema, path: Seg[] = []): Json {
  if (Array.isArray(value)) {
    const rule = schema.listAt(kind, path);
    const items = value.map((v) => canonical(v, kind, schema, [...path, { key: '', fields: {} }]));
    if (!rule) return items;
    return items
      .map((v) => [keyOf(rule, v), JSON.stringify(v), v] as const)
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
      .map(([, , v]) => v);
  }
  if (isMapValue(value)) {
    const out: JsonMap = {};
    for (const k of Object.keys(value)) out[k] = canonical(value[k]!, kind, schema, [...path, k]);
    return out;
  }
  return value;
}

/** The value at `path`; undefined where it is missing (null where it is an explicit null). */
export function at(value: Json | undefined, path: readonly Seg[], kind: string, schema: ListSchema): Json | undefined {
  let v: Json | undefined = value;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    if (v === undefined || v === null) return undefined;
    if (typeof seg === 'string') {
      if (!isMapValue(v)) return undefined;
      v = Object.prototype.hasOwnProperty.call(v, seg) ? v[seg] : undefined;
    } else {
      if (!Array.isArray(v)) return undefined;
      const rule = schema.listAt(kind, path.slice(0, i));
      v = rule ? v.find((e) => keyOf(rule, e) === seg.key) : undefined;
    }
  }
  return v;
}

export interface Difference {
  path: Seg[];
  /** kpt's value (undefined: missing in kpt's output). */
  kpt: Json | undefined;
  ours: Json | undefined;
  /** Set when a keyed list holds a different number of elements with one key. */
  multiplicity?: { kpt: Json[]; ours: Json[] };
}

/** Only maps (possibly nested) with nothing in them. */
export function emptyish(v: Json | undefined): boolean {
  return isMapValue(v) && Object.values(v).every(emptyish);
}

export const same = (a: Json | undefined, b: Json | undefined): boolean => isDeepStrictEqual(a, b);

/** Where canonical `kpt` and `ours` differ, deepest first-differing paths. */
export function differences(kpt: Json | undefined, ours: Json | undefined, kind: string, schema: ListSchema, path: Seg[] = []): Difference[] {
  if (same(kpt, ours)) return [];
  if (isMapValue(kpt) && isMapValue(ours)) {
    const keys = [...new Set([...Object.keys(kpt), ...Object.keys(ours)])];
    return keys.flatMap((k) => differences(kpt[k], ours[k], kind, schema, [...path, k]));
  }
  // A map on one side only (not a list element): compare it key by key with an empty one, so that
  // each difference is named where it is (kpt drops an annotations map left empty by normalising).
  const atKey = path.length === 0 || typeof path[path.length - 1] === 'string';
  if (atKey && kpt === undefined && isMapValue(ours) && !emptyish(ours)) return differences({}, ours, kind, schema, path);
  if (atKey && ours === undefined && isMapValue(kpt) && !emptyish(kpt)) return differences(kpt, {}, kind, schema, path);
  const rule = Array.isArray(kpt) && Array.isArray(ours) ? schema.listAt(kind, path) : undefined;
  if (rule && Array.isArray(kpt) && Array.isArray(ours)) {
    const groups = new Map<string, { seg: Seg; kpt: Json[]; ours: Json[] }>();
    const add = (side: 'kpt' | 'ours', e: Json) => {
      const k = keyOf(rule, e);
      if (!groups.has(k)) groups.set(k, { seg: segOf(rule, e), kpt: [], ours: [] });
      groups.get(k)![side].push(e);
    };
    kpt.forEach((e) => add('kpt', e));
    ours.forEach((e) => add('ours', e));
    const out: Difference[] = [];
    for (const g of groups.values()) {
      const p = [...path, g.seg];
      if (g.kpt.length === 1 && g.ours.length === 1) out.push(...differences(g.kpt[0], g.ours[0], kind, schema, p));
      else if (g.kpt.length > 1 || g.ours.length > 1) out.push({ path: p, kpt: g.kpt[0], ours: g.ours[0], multiplicity: { kpt: g.kpt, ours: g.ours } });
      else out.push({ path: p, kpt: g.kpt[0], ours: g.ours[0] });
    }
    return out;
  }
  return [{ path, kpt, ours }];
}

export function show(value: Json | undefined): string {
  if (value === undefined) return '(missing)';
  return stringify(value, { lineWidth: 0 }).trimEnd();
}
