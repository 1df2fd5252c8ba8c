import { listSchema } from './list';
import { optionsConfigMapSchema } from './options-configmap';
import { packageVariantSetSchema } from './package-variant-set';
import { packageVariantSchema } from './package-variant';
import { repositorySchema } from './repository';

export { listSchema } from './list';
export { optionsConfigMapSchema, MERGE_STRATEGIES, CONFLICT_POLICIES } from './options-configmap';
export { packageVariantSetSchema } from './package-variant-set';
export { packageVariantSchema } from './package-variant';
export { repositorySchema } from './repository';

/** How every schema is compiled: strict, every error at once; `revision` is a string or an integer. */
export const AJV_OPTIONS = { strict: true, allErrors: true, allowUnionTypes: true } as const;

export const SCHEMA_IDS = {
  packageVariant: packageVariantSchema.$id,
  packageVariantSet: packageVariantSetSchema.$id,
  list: listSchema.$id,
  optionsConfigMap: optionsConfigMapSchema.$id,
  repository: repositorySchema.$id,
} as const;

export const functionConfigSchemas = [
  packageVariantSchema,
  packageVariantSetSchema,
  listSchema,
  optionsConfigMapSchema,
  repositorySchema,
] as const;
