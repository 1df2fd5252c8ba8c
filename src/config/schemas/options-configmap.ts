import { krmObjectSchema, objectMetaSchema, stringSchema } from './common';

export const MERGE_STRATEGIES = ['resource-merge', 'fast-forward', 'force-delete-replace'] as const;
export const CONFLICT_POLICIES = ['upstream-wins', 'error'] as const;

// data is closed so that a misspelt option is an error instead of being silently ignored.
export const optionsDataSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    strategy: { type: 'string', enum: MERGE_STRATEGIES },
    conflicts: { type: 'string', enum: CONFLICT_POLICIES, default: 'upstream-wins' },
    originDir: stringSchema,
    upstreamDir: stringSchema,
    upstreamRef: stringSchema,
    upstreamCommit: stringSchema,
  },
} as const;

export const optionsConfigMapSchema = krmObjectSchema('options-configmap.schema.json', 'v1', 'ConfigMap', {
  metadata: objectMetaSchema,
  data: optionsDataSchema,
});
