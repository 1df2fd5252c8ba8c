import {
  porchObjectSchema,
  adoptionPolicySchema,
  deletionPolicySchema,
  injectorGvkProperties,
  kptPipelineSchema,
  oneOrList,
  stringListSchema,
  stringMapSchema,
  stringSchema,
  upstreamSchema,
} from './common';

export const downstreamSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    repo: stringSchema,
    package: stringSchema,
  },
} as const;

export const packageContextSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    data: stringMapSchema,
    removeKeys: stringListSchema,
  },
} as const;

// An empty name passes here on purpose: Porch reports it with its own message.
export const injectorSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    ...injectorGvkProperties,
    name: stringSchema,
  },
} as const;

// Nothing in spec is required: a missing upstream or downstream is reported in code with
// Porch's messages.
export const packageVariantSpecSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    upstream: upstreamSchema,
    downstream: downstreamSchema,
    adoptionPolicy: adoptionPolicySchema,
    deletionPolicy: deletionPolicySchema,
    labels: stringMapSchema,
    annotations: stringMapSchema,
    packageContext: packageContextSchema,
    pipeline: kptPipelineSchema,
    injectors: oneOrList(injectorSchema),
  },
} as const;

export const packageVariantSchema = porchObjectSchema('package-variant.schema.json', 'config.porch.kpt.dev/v1alpha1', 'PackageVariant', packageVariantSpecSchema);
