/** Wraps a resource's schema: bookkeeping annotations always stay local's, the blueprint attribution compares without kpt's entry. */
import { memoField, RETAINED, type ObjectSchema, type SchemaNode } from './types';

/**
 * kpt's reader annotations, and the upstream identifier `kpt pkg get` writes on fetch: never a local
 * change, never merged.
 */
const BOOKKEEPING = /^(internal\.config\.kubernetes\.io\/|config\.kubernetes\.io\/(path|index|merge-source)$|config\.k8s\.io\/id$|internal\.config\.k8s\.io\/|internal\.kpt\.dev\/upstream-identifier$)/;

const BLUEPRINT = 'cnrm.cloud.google.com/blueprint';

/** What kpt's commands add to the attribution on resources they touch: `kpt-pkg`, `kpt-fn`, `kpt-pkg-fn`... */
const KPT_ATTRIBUTION = /^kpt(-(pkg|fn|live))+$/;

/**
 * The blueprint attribution is an ordinary field that authors bump each release; only the entry kpt
 * appends (`cnrm/acm/v0.1.0,kpt-pkg`, or a bare `kpt-pkg`) is no local change. It merges like any
 * field, but a resource is not changed locally by its attribution alone: kpt's "unchanged" test
 * leaves it out, and a package vendored with another attribution than its lock's commit is common.
 */
const ATTRIBUTION: SchemaNode = {
  kind: 'scalar',
  attribution: true,
  canonical: (value) => {
    if (typeof value !== 'string') return value;
    const authored = value.split(',').filter((entry) => !KPT_ATTRIBUTION.test(entry));
    return authored.length ? authored.join(',') : undefined;
  },
};

export function isBookkeepingAnnotation(key: string): boolean {
  return BOOKKEEPING.test(key);
}

function annotations(inner: SchemaNode | undefined): ObjectSchema {
  const innerField = inner?.kind === 'object' ? (name: string) => inner.field(name) : () => undefined;
  return { kind: 'object', atomic: false, field: memoField((name) => (name === BLUEPRINT ? ATTRIBUTION : isBookkeepingAnnotation(name) ? RETAINED : innerField(name))) };
}

function metadata(inner: SchemaNode | undefined): ObjectSchema {
  const innerField = inner?.kind === 'object' ? (name: string) => inner.field(name) : () => undefined;
  return { kind: 'object', atomic: false, field: memoField((name) => (name === 'annotations' ? annotations(innerField(name)) : innerField(name))) };
}

const wrapped = new WeakMap<ObjectSchema, ObjectSchema>();
const UNKNOWN_ROOT = wrap(undefined);

function wrap(root: ObjectSchema | undefined): ObjectSchema {
  return { kind: 'object', atomic: false, field: memoField((name) => (name === 'metadata' ? metadata(root?.field(name)) : root?.field(name))) };
}

/** One wrapped schema per root, so that its positions stay the same objects. */
export function resourceSchema(root: ObjectSchema | undefined): ObjectSchema {
  if (!root) return UNKNOWN_ROOT;
  let schema = wrapped.get(root);
  if (!schema) wrapped.set(root, (schema = wrap(root)));
  return schema;
}
