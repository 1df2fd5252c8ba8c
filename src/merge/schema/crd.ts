/** Schemas of custom kinds, read from CustomResourceDefinitions found among the items. */
import type { Node } from 'yaml';
import { ATOMIC, SCALAR, SET, mapOf, memoField, withKeyDefaults, type ObjectSchema, type SchemaNode } from './types';

interface OpenApiV3 {
  type?: string;
  properties?: Record<string, OpenApiV3>;
  additionalProperties?: OpenApiV3 | boolean;
  items?: OpenApiV3;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

function convert(schema: OpenApiV3 | undefined): SchemaNode | undefined {
  if (!schema) return undefined;
  const atomicMap = schema['x-kubernetes-map-type'] === 'atomic';
  if (schema.type === 'array' || schema.items) {
    switch (schema['x-kubernetes-list-type']) {
      case 'map': {
        const keys = schema['x-kubernetes-list-map-keys'] ?? [];
        const defaults = keyDefaults(schema.items, keys);
        return { kind: 'keyed-list', keys, keyDefaults: defaults, item: withKeyDefaults(convert(schema.items), defaults) };
      }
      case 'set':
        return SET;
      case 'atomic':
        return ATOMIC;
      default:
        // Unmarked CRD lists fall through to the fallback key rules.
        return undefined;
    }
  }
  if (schema.properties) {
    const properties = schema.properties;
    const extra = typeof schema.additionalProperties === 'object' ? convert(schema.additionalProperties) : undefined;
    return { kind: 'object', atomic: atomicMap, field: memoField((name) => (Object.prototype.hasOwnProperty.call(properties, name) ? convert(properties[name]) : extra)) };
  }
  if (typeof schema.additionalProperties === 'object') return mapOf(convert(schema.additionalProperties), atomicMap);
  if (schema.type === 'object') return atomicMap ? mapOf(undefined, true) : undefined;
  return schema.type ? SCALAR : undefined;
}

/** The schema defaults of the key fields. */
function keyDefaults(items: OpenApiV3 | undefined, keys: readonly string[]): Record<string, string | number | boolean> {
  const defaults: Record<string, string | number | boolean> = {};
  for (const [name, property] of Object.entries(items?.properties ?? {})) {
    if (!keys.includes(name)) continue;
    const value = (property as { default?: unknown }).default;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') defaults[name] = value;
  }
  return defaults;
}

interface CrdData {
  spec?: {
    group?: string;
    names?: { kind?: string };
    validation?: { openAPIV3Schema?: OpenApiV3 };
    versions?: { name?: string; storage?: boolean; schema?: { openAPIV3Schema?: OpenApiV3 } }[];
  };
}

/** Root schemas by `group/Kind`, from every CustomResourceDefinition given (any merge source). */
export function crdSchemas(crds: readonly { node: Node; toData(): unknown }[]): Map<string, ObjectSchema> {
  const roots = new Map<string, ObjectSchema>();
  for (const crd of crds) {
    const spec = (crd.toData() as CrdData).spec;
    const group = spec?.group;
    const kind = spec?.names?.kind;
    if (!group || !kind) continue;
    const versions = spec.versions ?? [];
    const chosen = versions.find((v) => v.storage) ?? versions[0];
    const root = convert(chosen?.schema?.openAPIV3Schema ?? spec.validation?.openAPIV3Schema);
    if (root?.kind === 'object' && !roots.has(`${group}/${kind}`)) roots.set(`${group}/${kind}`, root);
  }
  return roots;
}
