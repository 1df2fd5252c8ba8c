/** Wraps a resource's schema so bookkeeping annotations always stay local's and never merge. */
import { RETAINED, type ObjectSchema, type SchemaNode } from './types';

/**
 * kpt's reader annotations, and what `kpt pkg get` writes on fetch (the upstream identifier and the
 * blueprint attribution): never a local change, never merged.
 */
const BOOKKEEPING = /^(internal\.config\.kubernetes\.io\/|config\.kubernetes\.io\/(path|index|merge-source)$|config\.k8s\.io\/id$|internal\.config\.k8s\.io\/|internal\.kpt\.dev\/upstream-identifier$|cnrm\.cloud\.google\.com\/blueprint$)/;

export function isBookkeepingAnnotation(key: string): boolean {
  return BOOKKEEPING.test(key);
}

function annotations(inner: SchemaNode | undefined): ObjectSchema {
  const innerField = inner?.kind === 'object' ? (name: string) => inner.field(name) : () => undefined;
  return { kind: 'object', atomic: false, field: (name) => (isBookkeepingAnnotation(name) ? RETAINED : innerField(name)) };
}

function metadata(inner: SchemaNode | undefined): ObjectSchema {
  const innerField = inner?.kind === 'object' ? (name: string) => inner.field(name) : () => undefined;
  return { kind: 'object', atomic: false, field: (name) => (name === 'annotations' ? annotations(innerField(name)) : innerField(name)) };
}

export function resourceSchema(root: ObjectSchema | undefined): ObjectSchema {
  return {
    kind: 'object',
    atomic: false,
    field: (name) => (name === 'metadata' ? metadata(root?.field(name)) : root?.field(name)),
  };
}
