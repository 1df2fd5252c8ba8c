export const JSON_SCHEMA_DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

export const stringSchema = { type: 'string' } as const;

export const stringMapSchema = {
  type: 'object',
  additionalProperties: { type: 'string' },
} as const;

export const stringListSchema = {
  type: 'array',
  items: { type: 'string' },
} as const;

// Metadata stays open: kpt adds config.kubernetes.io/* and internal.config.kubernetes.io/*
// annotations to every function input, and objects read back from a cluster carry uid,
// resourceVersion, ownerReferences and the like.
export const objectMetaSchema = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1 },
    namespace: stringSchema,
    labels: stringMapSchema,
    annotations: stringMapSchema,
  },
} as const;

export const labelSelectorRequirementSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['key', 'operator'],
  properties: {
    key: stringSchema,
    operator: { type: 'string', enum: ['In', 'NotIn', 'Exists', 'DoesNotExist'] },
    values: stringListSchema,
  },
} as const;

export const labelSelectorSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    matchLabels: stringMapSchema,
    matchExpressions: { type: 'array', items: labelSelectorRequirementSchema },
  },
} as const;

export const kptSelectorSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    apiVersion: stringSchema,
    kind: stringSchema,
    name: stringSchema,
    namespace: stringSchema,
    labels: stringMapSchema,
    annotations: stringMapSchema,
  },
} as const;

export const kptFunctionSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    image: stringSchema,
    exec: stringSchema,
    tag: stringSchema,
    configPath: stringSchema,
    configMap: stringMapSchema,
    name: stringSchema,
    selectors: { type: 'array', items: kptSelectorSchema },
    exclude: { type: 'array', items: kptSelectorSchema },
  },
} as const;

export const kptPipelineSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    validators: { type: 'array', items: kptFunctionSchema },
    mutators: { type: 'array', items: kptFunctionSchema },
  },
} as const;

// Porch's revision is an integer (its revision number); the design and older Porch write a name
// (`v1`, a tag or a branch). Both are accepted: a non-empty string or an integer from 0 up.
export const revisionSchema = {
  type: ['string', 'integer'],
  minLength: 1,
  minimum: 0,
} as const;

// Porch's fields plus workspaceName, which is how Porch actually picks the upstream.
export const upstreamSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    repo: stringSchema,
    package: stringSchema,
    revision: revisionSchema,
    workspaceName: stringSchema,
  },
} as const;

/**
 * A list of `item`, or one `item` on its own: the design writes `labelExprs` and `injectors` as a
 * single map where Porch's types have a list. The object branch is tried first so that a mistake in
 * a single item is reported as that item's, not as "must be a list".
 */
export function oneOrList<Item extends object>(item: Item) {
  return { if: { type: 'object' }, then: item, else: { type: 'array', items: item } } as const;
}

export const adoptionPolicySchema = {
  type: 'string',
  enum: ['adoptExisting', 'adoptNone'],
} as const;

export const deletionPolicySchema = {
  type: 'string',
  enum: ['delete', 'orphan'],
} as const;

export const injectorGvkProperties = {
  group: stringSchema,
  version: stringSchema,
  kind: stringSchema,
} as const;

export const anyObjectSchema = { type: 'object' } as const;

/** A closed top-level KRM object of one apiVersion and kind. */
export function krmObjectSchema<Id extends string, ApiVersion extends string, Kind extends string, Properties extends object>(
  $id: Id,
  apiVersion: ApiVersion,
  kind: Kind,
  properties: Properties,
  required: readonly string[] = ['apiVersion', 'kind', 'metadata'],
) {
  return {
    $schema: JSON_SCHEMA_DRAFT_07,
    $id,
    type: 'object',
    additionalProperties: false,
    required,
    properties: {
      apiVersion: { type: 'string', const: apiVersion },
      kind: { type: 'string', const: kind },
      ...properties,
    },
  } as const;
}

/** A Porch API object: metadata, a closed spec, and whatever status a cluster wrote. */
export function porchObjectSchema<Id extends string, ApiVersion extends string, Kind extends string, Spec extends object>(
  $id: Id,
  apiVersion: ApiVersion,
  kind: Kind,
  spec: Spec,
) {
  return krmObjectSchema($id, apiVersion, kind, { metadata: objectMetaSchema, spec, status: anyObjectSchema });
}
