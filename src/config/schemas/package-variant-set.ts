import {
  porchObjectSchema,
  adoptionPolicySchema,
  deletionPolicySchema,
  injectorGvkProperties,
  kptFunctionSchema,
  labelSelectorSchema,
  stringListSchema,
  stringMapSchema,
  stringSchema,
  upstreamSchema,
} from './common';

// "Only one of key/keyExpr" and the other either-or rules of the template are checked in
// code so that the messages match Porch's.
export const mapExprSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    key: stringSchema,
    keyExpr: stringSchema,
    value: stringSchema,
    valueExpr: stringSchema,
  },
} as const;

export const mapExprListSchema = {
  type: 'array',
  items: mapExprSchema,
} as const;

export const functionTemplateSchema = {
  ...kptFunctionSchema,
  properties: {
    ...kptFunctionSchema.properties,
    configMapExprs: mapExprListSchema,
  },
} as const;

export const downstreamTemplateSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    repo: stringSchema,
    repoExpr: stringSchema,
    package: stringSchema,
    packageExpr: stringSchema,
  },
} as const;

export const packageContextTemplateSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    data: stringMapSchema,
    dataExprs: mapExprListSchema,
    removeKeys: stringListSchema,
    removeKeyExprs: stringListSchema,
  },
} as const;

export const pipelineTemplateSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    validators: { type: 'array', items: functionTemplateSchema },
    mutators: { type: 'array', items: functionTemplateSchema },
  },
} as const;

export const injectorTemplateSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...injectorGvkProperties,
    name: stringSchema,
    nameExpr: stringSchema,
  },
} as const;

export const packageVariantTemplateSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    downstream: downstreamTemplateSchema,
    adoptionPolicy: adoptionPolicySchema,
    deletionPolicy: deletionPolicySchema,
    labels: stringMapSchema,
    labelExprs: mapExprListSchema,
    annotations: stringMapSchema,
    annotationExprs: mapExprListSchema,
    packageContext: packageContextTemplateSchema,
    pipeline: pipelineTemplateSchema,
    injectors: { type: 'array', items: injectorTemplateSchema },
  },
} as const;

export const repositoryTargetSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: {
    name: stringSchema,
    packageNames: stringListSchema,
  },
} as const;

// Porch embeds the label selector inline here rather than under a `selector` key.
// apiVersion and kind are not required so that code can report them with Porch's messages.
export const objectSelectorSchema = {
  ...labelSelectorSchema,
  properties: {
    ...labelSelectorSchema.properties,
    apiVersion: stringSchema,
    kind: stringSchema,
    name: stringSchema,
  },
} as const;

// "Exactly one of repositories, repositorySelector, objectSelector" is checked in code.
export const targetSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    repositories: { type: 'array', items: repositoryTargetSchema },
    repositorySelector: labelSelectorSchema,
    objectSelector: objectSelectorSchema,
    template: packageVariantTemplateSchema,
  },
} as const;

export const packageVariantSetSpecSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    upstream: upstreamSchema,
    targets: { type: 'array', items: targetSchema },
  },
} as const;

export const packageVariantSetSchema = porchObjectSchema('package-variant-set.schema.json', 'config.porch.kpt.dev/v1alpha2', 'PackageVariantSet', packageVariantSetSpecSchema);
