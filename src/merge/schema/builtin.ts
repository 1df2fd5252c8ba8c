/** Built-in Kubernetes kinds, from the table generated out of the v1.21.2 OpenAPI definitions. */
import { builtinSchemaFor, type FieldSchema, type TypeHandle } from './builtin-table';
import { ATOMIC, SCALAR, SET, mapOf, type ObjectSchema, type SchemaNode } from './types';

const objects = new Map<TypeHandle, ObjectSchema>();

function objectOf(type: TypeHandle, atomic: boolean): ObjectSchema {
  const cached = objects.get(type);
  if (cached && cached.atomic === atomic) return cached;
  const schema: ObjectSchema = { kind: 'object', atomic, field: (name) => fromField(type.field(name)) };
  if (!atomic) objects.set(type, schema);
  return schema;
}

function fromField(field: FieldSchema | undefined): SchemaNode | undefined {
  if (!field) return undefined;
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
        return { kind: 'keyed-list', keys: field.keys, keyDefaults: field.keyDefaults, item: field.item ? objectOf(field.item, false) : undefined };
      }
      return field.semantics === 'set' ? SET : ATOMIC;
  }
}

export function builtinRoot(group: string, kind: string): ObjectSchema | undefined {
  const type = builtinSchemaFor(group, kind);
  return type ? objectOf(type, false) : undefined;
}
