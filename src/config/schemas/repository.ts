import { porchObjectSchema, stringSchema } from './common';

/**
 * Porch's Repository (config.porch.kpt.dev/v1alpha1), the fields sync reads and the others Porch
 * defines, so that the objects a cluster holds are read as they are. Only git repositories are
 * synced; `type: oci` is refused in code, naming the Repository.
 */
export const repositoryGitSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['repo'],
  properties: {
    repo: { type: 'string', minLength: 1 },
    branch: { type: 'string', minLength: 1, default: 'main' },
    directory: { type: 'string', default: '' },
    createBranch: { type: 'boolean' },
    secretRef: { type: 'object', additionalProperties: false, properties: { name: stringSchema } },
    author: stringSchema,
    email: stringSchema,
  },
} as const;

export const repositorySpecSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    description: stringSchema,
    type: { type: 'string', enum: ['git', 'oci'] },
    content: { type: 'string', enum: ['Package', 'Function'] },
    deployment: { type: 'boolean', default: false },
    git: repositoryGitSchema,
    oci: { type: 'object' },
    upstream: { type: 'object' },
    mutators: { type: 'array' },
    validators: { type: 'array' },
    sync: { type: 'object' },
  },
} as const;

export const repositorySchema = porchObjectSchema('repository.schema.json', 'config.porch.kpt.dev/v1alpha1', 'Repository', repositorySpecSchema);
