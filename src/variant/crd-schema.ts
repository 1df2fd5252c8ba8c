/**
 * Checks content before it is injected, against the schema of a CustomResourceDefinition among
 * the package items, only when a candidate is about to be injected into a kind that has a CRD.
 * Structural schemas are walked as they are (schema-subset.ts); a schema beyond that subset is
 * compiled with ajv, which gives the same answers, so a run whose CRDs stay in the subset never
 * loads the compiler.
 */
import type Ajv from 'ajv';
import { formatFieldPath } from '../config/validate';
import type { KrmResource } from '../krm/resource';
import { compileSubset, KUBERNETES_KEYWORDS, type SchemaCheck } from './schema-subset';

type SchemaObject = Record<string, unknown>;

interface CrdSpec {
  group?: string;
  names?: { kind?: string };
  versions?: { name?: string; schema?: { openAPIV3Schema?: SchemaObject } }[];
  validation?: { openAPIV3Schema?: SchemaObject };
}

const MAX_LISTED_ERRORS = 3;

/**
 * The compiler, as this module configures it: formats are not checked (Kubernetes' int32, byte...
 * are not JSON Schema's), and there is no meta-schema check (the API server has accepted the CRD,
 * and compiling still fails on nonsense). Required here, not imported, so that it loads only when
 * a schema beyond schema-subset.ts needs it.
 */
export function newCrdAjv(): Ajv {
  const { default: AjvClass } = require('ajv') as typeof import('ajv');
  const created = new AjvClass({ allErrors: true, validateSchema: false, validateFormats: false, strictTypes: false, strictTuples: false, strictRequired: false, logger: false });
  created.addVocabulary(KUBERNETES_KEYWORDS);
  return created;
}

let compiler: Ajv | undefined;

const ajv = (): Ajv => (compiler ??= newCrdAjv());

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

function compile(schema: SchemaObject): SchemaCheck | Error {
  const jsonSchema = toJsonSchema(schema) as SchemaObject;
  const walked = compileSubset(jsonSchema);
  if (walked) return walked;
  try {
    const validate = ajv().compile(jsonSchema);
    return (value) => (validate(value) ? [] : (validate.errors ?? []).map(({ keyword, instancePath, params, message }) => ({ keyword, instancePath, params, message: message ?? 'is invalid' })));
  } catch (error) {
    return new Error(`its schema does not compile: ${(error as Error).message}`);
  }
}

function pointerSegments(instancePath: string): string[] {
  return instancePath === '' ? [] : instancePath.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export class CrdSchemas {
  /** By group/Kind, version and field; null where the CRD has no schema for the field. */
  private readonly validators = new Map<string, SchemaCheck | Error | null>();
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
    const problems = validator(value);
    if (problems.length === 0) return undefined;
    const errors = problems.map((error) => {
      const extra = error.keyword === 'additionalProperties' ? [String(error.params.additionalProperty)] : [];
      return `${formatFieldPath([field, ...pointerSegments(error.instancePath), ...extra])}: ${error.message}`;
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

  private validatorFor(group: string, version: string, kind: string, field: string): { crd: string; validator: SchemaCheck | Error } | undefined {
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
