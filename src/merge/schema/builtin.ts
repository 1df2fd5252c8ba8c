/** Built-in Kubernetes kinds, from the table generated out of the v1.21.2 OpenAPI definitions. */
import { builtinSchemaFor, type FieldSchema, type TypeHandle } from './builtin-table';
import { ATOMIC, SCALAR, SET, mapOf, withKeyDefaults, type ObjectSchema, type SchemaNode } from './types';

const objects = new Map<TypeHandle, ObjectSchema>();

/** Fields Kubernetes' validation keeps unique in lists keyed by other fields: a port's name. */
const UNIQUE_BESIDES_KEYS: Readonly<Record<string, readonly string[]>> = { 'core.v1.ContainerPort': ['name'], 'core.v1.ServicePort': ['name'] };

function objectOf(type: TypeHandle, atomic: boolean): ObjectSchema {
  const cached = objects.get(type);
  if (cached && cached.atomic === atomic) return cached;
  const schema: ObjectSchema = { kind: 'object', atomic, field: (name) => fromField(type.field(name)) };
  if (!atomic) objects.set(type, schema);
  return schema;
}

/** Each field of the table has one schema node. */
const converted = new WeakMap<FieldSchema, SchemaNode | undefined>();

function fromField(field: FieldSchema | undefined): SchemaNode | undefined {
  if (!field) return undefined;
  if (converted.has(field)) return converted.get(field);
  const schema = convertField(field);
  converted.set(field, schema);
  return schema;
}

function convertField(field: FieldSchema): SchemaNode | undefined {
  switch (field.shape) {
    case 'scalar':
      return SCALAR;
    case 'struct':
      // kpt merges label selectors field by field although the schema marks them atomic; so do we.
      return objectOf(field.type, false);
    case 'map':
      return mapOf(fromField(field.value), field.semantics === 'atomic');
    case 'list':
      if (field.semantics === 'map') {
        return {
          kind: 'keyed-list',
          keys: field.keys,
          keyDefaults: field.keyDefaults,
          item: withKeyDefaults(field.item ? objectOf(field.item, false) : undefined, field.keyDefaults),
          ...(field.item && UNIQUE_BESIDES_KEYS[field.item.name] ? { unique: UNIQUE_BESIDES_KEYS[field.item.name] } : {}),
        };
      }
      return field.semantics === 'set' ? SET : ATOMIC;
  }
}

export function builtinRoot(group: string, kind: string): ObjectSchema | undefined {
  const type = builtinSchemaFor(group, kind);
  return type ? objectOf(type, false) : undefined;
}
