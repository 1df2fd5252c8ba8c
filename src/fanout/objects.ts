/**
 * The objects a set can target or read: the functionConfig List's objects and the package's items,
 * seen the way Porch's controller sees cluster objects.
 */
import type { ConfigObject } from '../config/function-config';
import { valueAt } from '../yaml/plain-data';
import { KrmResource } from '../krm/resource';

export const PORCH_CONFIG_GROUP = 'config.porch.kpt.dev';
export const PORCH_GROUP = 'porch.kpt.dev';
export const REPOSITORY_API = `${PORCH_CONFIG_GROUP}/v1alpha1`;
/** Objects written without a namespace land in this one when applied (as kubectl does). */
export const DEFAULT_NAMESPACE = 'default';

export interface ObjectView {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string | undefined;
  readonly labels: Readonly<Record<string, unknown>>;
  /** Without kpt's bookkeeping annotations, which a cluster object would not carry. */
  readonly annotations: Readonly<Record<string, unknown>>;
  /** A field of the object, e.g. ['spec', 'packageName']. */
  get(path: readonly string[]): unknown;
}

export const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '');

/** Annotations kpt adds to every item it sends (path, index, ids, seqindent...). */
function isKptBookkeeping(key: string): boolean {
  return (
    key.startsWith('internal.config.kubernetes.io/') ||
    key.startsWith('internal.config.k8s.io/') ||
    key === 'config.kubernetes.io/path' ||
    key === 'config.kubernetes.io/index' ||
    key === 'config.k8s.io/id'
  );
}

function plainMap(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function withoutBookkeeping(annotations: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(annotations);
  if (!keys.some(isKptBookkeeping)) return annotations;
  return Object.fromEntries(keys.filter((key) => !isKptBookkeeping(key)).map((key) => [key, annotations[key]]));
}

export function viewOfConfigObject(object: ConfigObject): ObjectView {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: object.metadata.name,
    namespace: object.metadata.namespace,
    labels: plainMap(object.metadata.labels),
    annotations: withoutBookkeeping(plainMap(object.metadata.annotations)),
    get: (path) => valueAt(object, path),
  };
}

function viewOfItem(item: KrmResource): ObjectView {
  const get = (path: readonly string[]) => item.getData(path);
  return {
    apiVersion: item.apiVersion,
    kind: item.kind,
    name: item.name,
    namespace: item.namespace,
    labels: plainMap(get(['metadata', 'labels'])),
    annotations: withoutBookkeeping(plainMap(get(['metadata', 'annotations']))),
    get,
  };
}

/**
 * The candidate objects by group and kind (the version is ignored, as an API server lists every
 * object of a kind whatever version it was written in). The List's objects come first; an object
 * also present among the items (same group, kind, namespace and name) counts once. Items are
 * read only when their kind is asked for: a fleet package holds thousands of objects of kinds
 * no target selects, among them the set's own earlier PackageVariants.
 */
export class ObjectIndex {
  /** Objects and items by kind, not yet seen as views (no closure each: a fleet has a million). */
  private readonly pending = new Map<string, (ConfigObject | KrmResource)[]>();
  private readonly views = new Map<string, ObjectView[]>();

  constructor(objects: readonly ConfigObject[], items: readonly KrmResource[]) {
    const add = (kindKey: string, entry: ConfigObject | KrmResource) => {
      const list = this.pending.get(kindKey);
      if (list) list.push(entry);
      else this.pending.set(kindKey, [entry]);
    };
    for (const object of objects) add(`${groupOf(object.apiVersion)}/${object.kind}`, object);
    for (const item of items) if (item.isKrmObject) add(`${item.group}/${item.kind}`, item);
  }

  ofKind(group: string, kind: string): readonly ObjectView[] {
    const kindKey = `${group}/${kind}`;
    let views = this.views.get(kindKey);
    if (!views) {
      const seen = new Set<string>();
      views = (this.pending.get(kindKey) ?? []).map((entry) => (entry instanceof KrmResource ? viewOfItem(entry) : viewOfConfigObject(entry))).filter((view) => {
        const identity = `${view.namespace ?? ''}/${view.name}`;
        if (seen.has(identity)) return false;
        seen.add(identity);
        return true;
      });
      this.views.set(kindKey, views);
    }
    return views;
  }
}

/** Whether a namespaced object is in `namespace` (a missing namespace on either side meaning `default`). */
export function inNamespace(view: ObjectView, namespace: string | undefined): boolean {
  return (view.namespace ?? DEFAULT_NAMESPACE) === (namespace ?? DEFAULT_NAMESPACE);
}
