/**
 * Checks content before it is injected, against the schema of a CustomResourceDefinition among
 * the package items. Schemas are compiled with ajv at run time, only when a candidate is about to
 * be injected into a kind that has a CRD, so a run without one never loads the compiler.
 */
import type Ajv from 'ajv';
import type { ValidateFunction } from 'ajv';
import { formatFieldPath } from '../config/validate';
import type { KrmResource } from '../krm/resource';

type SchemaObject = Record<string, unknown>;

interface CrdSpec {
  group?: string;
  names?: { kind?: string };
  versions?: { name?: string; schema?: { openAPIV3Schema?: SchemaObject } }[];
  validation?: { openAPIV3Schema?: SchemaObject };
}

/** Kubernetes' extensions and OpenAPI annotations a structural schema may hold; they do not constrain values here. */
const KUBERNETES_KEYWORDS = [
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-validations',
  'example',
  'externalDocs',
];

const MAX_LISTED_ERRORS = 3;

let compiler: Ajv | undefined;

function ajv(): Ajv {
  if (!compiler) {
    // Required here, not imported, so that the compiler loads only when a CRD schema is needed.
    const { default: AjvClass } = require('ajv') as typeof import('ajv');
    // Formats are not checked: Kubernetes' (int32, byte, ...) are not JSON Schema's.
    // No meta-schema check: the API server has accepted the CRD, and compiling still fails on nonsense.
    const created = new AjvClass({ allErrors: true, validateSchema: false, validateFormats: false, strictTypes: false, strictTuples: false, strictRequired: false, logger: false });
    created.addVocabulary(KUBERNETES_KEYWORDS);
    compiler = created;
  }
  return compiler;
}

const isObject = (value: unknown): value is SchemaObject => typeof value === 'object' && value !== null && !Array.isArray(value);

function mapValues(value: unknown, fn: (schema: unknown) => unknown): unknown {
  return isObject(value) ? Object.fromEntries(Object.entries(value).map(([key, child]) => [key, fn(child)])) : value;
}

/** OpenAPI 3.0 as CRDs write it, into the JSON Schema draft 7 that ajv reads. */
function toJsonSchema(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const out: SchemaObject = { ...schema };
  for (const [bound, exclusive] of [['minimum', 'exclusiveMinimum'], ['maximum', 'exclusiveMaximum']] as const) {
    if (typeof out[exclusive] !== 'boolean') continue;
    if (out[exclusive] === true && typeof out[bound] === 'number') {
      out[exclusive] = out[bound];
      delete out[bound];
    } else {
      delete out[exclusive];
    }
  }
  // ajv's `nullable` needs a type; without one, null is allowed anyway.
  if (out.nullable !== undefined && out.type === undefined) delete out.nullable;
  // Draft 4's `id` names a schema; ajv refuses it, and it constrains nothing.
  delete out.id;
  for (const key of ['properties', 'patternProperties', 'definitions', 'dependencies']) {
    if (out[key] !== undefined) out[key] = mapValues(out[key], toJsonSchema);
  }
  for (const key of ['additionalProperties', 'additionalItems', 'not']) {
    if (out[key] !== undefined) out[key] = toJsonSchema(out[key]);
  }
  if (out.items !== undefined) out.items = Array.isArray(out.items) ? out.items.map(toJsonSchema) : toJsonSchema(out.items);
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map(toJsonSchema);
  }
  return out;
}

function compile(schema: SchemaObject): ValidateFunction | Error {
  try {
    return ajv().compile(toJsonSchema(schema) as SchemaObject);
  } catch (error) {
    return new Error(`its schema does not compile: ${(error as Error).message}`);
  }
}

function pointerSegments(instancePath: string): string[] {
  return instancePath === '' ? [] : instancePath.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export class CrdSchemas {
  /** By group/Kind, version and field; null where the CRD has no schema for the field. */
  private readonly validators = new Map<string, ValidateFunction | Error | null>();
  private index: Map<string, KrmResource> | undefined;

  constructor(private readonly items: readonly KrmResource[]) {}

  /**
   * Why `value` cannot be field `field` of the kind ("does not match ..."), or undefined when it
   * can, or when no CRD among the items describes that field of that group, version and kind.
   */
  check(group: string, version: string, kind: string, field: string, value: unknown): string | undefined {
    const found = this.validatorFor(group, version, kind, field);
    if (!found) return undefined;
    const { crd, validator } = found;
    const what = `the schema of CustomResourceDefinition ${crd} (version ${version})`;
    if (validator instanceof Error) return `cannot be checked against ${what}: ${validator.message}`;
    if (validator(value)) return undefined;
    const errors = (validator.errors ?? []).map((error) => {
      const extra = error.keyword === 'additionalProperties' ? [String((error.params as { additionalProperty?: unknown }).additionalProperty)] : [];
      return `${formatFieldPath([field, ...pointerSegments(error.instancePath), ...extra])}: ${error.message ?? 'is invalid'}`;
    });
    const listed = errors.slice(0, MAX_LISTED_ERRORS).join('; ');
    const more = errors.length > MAX_LISTED_ERRORS ? ` (and ${errors.length - MAX_LISTED_ERRORS} more)` : '';
    return `does not match ${what}: ${listed}${more}`;
  }

  /** CRDs by `group/Kind`, the first one winning; built on first use. */
  private crds(): Map<string, KrmResource> {
    if (!this.index) {
      this.index = new Map();
      for (const item of this.items) {
        if (item.kind !== 'CustomResourceDefinition' || item.group !== 'apiextensions.k8s.io') continue;
        const key = `${item.getString(['spec', 'group']) ?? ''}/${item.getString(['spec', 'names', 'kind']) ?? ''}`;
        if (!this.index.has(key)) this.index.set(key, item);
      }
    }
    return this.index;
  }

  private validatorFor(group: string, version: string, kind: string, field: string): { crd: string; validator: ValidateFunction | Error } | undefined {
    const crd = this.crds().get(`${group}/${kind}`);
    if (!crd) return undefined;
    const key = `${group}/${kind}\n${version}\n${field}`;
    let validator = this.validators.get(key);
    if (validator === undefined) {
      const spec = crd.toData().spec as CrdSpec;
      const root = spec.versions?.find((v) => v.name === version)?.schema?.openAPIV3Schema ?? spec.validation?.openAPIV3Schema;
      const fieldSchema = isObject(root?.properties) ? root.properties[field] : undefined;
      validator = isObject(fieldSchema) ? compile(fieldSchema) : null;
      this.validators.set(key, validator);
    }
    if (validator === null) return undefined;
    return { crd: crd.name, validator };
  }
}
