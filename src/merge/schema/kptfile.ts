/**
 * How a Kptfile merges: only annotations, labels, info, pipeline, inventory and status take upstream
 * changes; the package's name, its upstream and lock, and anything else stay local.
 */
import type { Node } from 'yaml';
import { getField, scalarValue } from '../yaml-values';
import { RETAINED, mapOf, type KeyedListSchema, type ObjectSchema, type SchemaNode } from './types';

/** A pipeline function is the same function by name, else by image without its tag, else by exec. */
function functionIdentity(element: Node): string | undefined {
  const name = scalarValue(getField(element, 'name'));
  if (typeof name === 'string' && name !== '') return `name=${name}`;
  const image = scalarValue(getField(element, 'image'));
  if (typeof image === 'string' && image !== '') return `image=${image.replace(/(@sha256:[0-9a-f]+|:[^:/]+)$/, '')}`;
  const exec = scalarValue(getField(element, 'exec'));
  return typeof exec === 'string' && exec !== '' ? `exec=${exec}` : undefined;
}

const functions: KeyedListSchema = { kind: 'keyed-list', keys: [], keyDefaults: {}, item: undefined, identify: functionIdentity };

const pipeline: ObjectSchema = {
  kind: 'object',
  atomic: false,
  field: (name) => (name === 'mutators' || name === 'validators' ? functions : undefined),
};

const MERGED_METADATA: Record<string, SchemaNode> = { annotations: mapOf(undefined), labels: mapOf(undefined) };
const metadata: ObjectSchema = { kind: 'object', atomic: false, field: (name) => MERGED_METADATA[name] ?? RETAINED };

const MERGED_FIELDS: Record<string, SchemaNode | undefined> = {
  apiVersion: undefined,
  kind: undefined,
  metadata,
  info: undefined,
  pipeline,
  inventory: undefined,
  status: undefined,
};

export const KPTFILE_SCHEMA: ObjectSchema = {
  kind: 'object',
  atomic: false,
  field: (name) => (Object.prototype.hasOwnProperty.call(MERGED_FIELDS, name) ? MERGED_FIELDS[name] : RETAINED),
};
