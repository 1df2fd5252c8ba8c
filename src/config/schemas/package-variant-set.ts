import {
  porchObjectSchema,
  adoptionPolicySchema,
  deletionPolicySchema,
  injectorGvkProperties,
  kptFunctionSchema,
  labelSelectorSchema,
  oneOrList,
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

export const mapExprListSchema = oneOrList(mapExprSchema);

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

export const injectorTemplateListSchema = oneOrList(injectorTemplateSchema);

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
    injectors: injectorTemplateListSchema,
    // The design's spelling of `injectors` (its example writes `injectorExprs` with `nameExpr`).
    injectorExprs: injectorTemplateListSchema,
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

// The design lists package names under a selector too: one PackageVariant per selected object and
// name. Porch's v1alpha2 has no such field.
export const repositorySelectorSchema = {
  ...labelSelectorSchema,
  properties: {
    ...labelSelectorSchema.properties,
    packageNames: stringListSchema,
  },
} as const;

// Porch embeds the label selector inline here rather than under a `selector` key.
// apiVersion and kind are not required so that code can report them with Porch's messages.
export const objectSelectorSchema = {
  ...repositorySelectorSchema,
  properties: {
    ...repositorySelectorSchema.properties,
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
    repositorySelector: repositorySelectorSchema,
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
