import { krmObjectSchema, anyObjectSchema, objectMetaSchema, stringSchema } from './common';

// Items are any KRM object; their own kinds are validated by whoever consumes them.
export const listItemSchema = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata'],
  properties: {
    apiVersion: stringSchema,
    kind: stringSchema,
    metadata: objectMetaSchema,
  },
} as const;

export const listSchema = krmObjectSchema('list.schema.json', 'v1', 'List', {
  metadata: anyObjectSchema,
  items: { type: 'array', items: listItemSchema },
}, ['apiVersion', 'kind', 'items']);
