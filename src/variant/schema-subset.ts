/**
 * Checks a value against a JSON schema in the subset that CRDs' structural schemas are made of,
 * giving exactly what ajv gives with crd-schema.ts's options: the same errors (keyword, instance
 * path, parameters, message) in the same order. Compiling a schema with ajv generates and compiles
 * code, tens of milliseconds in a process that runs once; walking the schema costs next to nothing
 * for the handful of values a PackageVariant injects. A schema with anything outside the subset
 * (composition, references, tuples, patternProperties, unknown keywords...) is left to ajv: `compileSubset`
 * answers undefined.
 *
 * The order is ajv's: a type error first when the type is checked on its own; then keywords for any
 * type (enum); then, for the value's type, that type's keywords in ajv's rule order, or the type
 * error where the schema's one type has keywords of its own (see ajv's validate/index.ts,
 * dataType.ts and the vocabularies' order).
 */

export interface SchemaError {
  readonly keyword: string;
  /** JSON pointer to the value, `/spec/size`. */
  readonly instancePath: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly message: string;
}

/** The errors of a value, none when it is valid. */
export type SchemaCheck = (value: unknown) => SchemaError[];

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'object' | 'array';
type Schema = Readonly<Record<string, unknown>>;
type Check = (value: unknown, path: string, errors: SchemaError[]) => void;

const JSON_TYPES = new Set<string>(['string', 'number', 'integer', 'boolean', 'null', 'object', 'array']);

/** Kubernetes' extensions and OpenAPI annotations a structural schema may hold; they do not constrain values here. */
export const KUBERNETES_KEYWORDS = [
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

/** Keywords that constrain nothing: annotations. */
const ANNOTATIONS = new Set(['description', 'title', 'default', ...KUBERNETES_KEYWORDS]);

/**
 * ajv's rule groups: the keywords of each type, in the order its rules run. `format` checks nothing
 * here, but it belongs to two groups, and a group in use decides where a type error is reported.
 */
const GROUPS = {
  number: ['maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf', 'format'],
  string: ['maxLength', 'minLength', 'pattern', 'format'],
  array: ['maxItems', 'minItems', 'items'],
  object: ['maxProperties', 'minProperties', 'required', 'additionalProperties', 'properties'],
} as const;
type Group = keyof typeof GROUPS;

const KNOWN = new Set<string>(['type', 'nullable', 'enum', ...Object.values(GROUPS).flat(), ...ANNOTATIONS]);

class OutsideSubset extends Error {}

const outside = (): never => {
  throw new OutsideSubset();
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function hasType(value: unknown, type: JsonType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return isNumber(value);
    case 'integer':
      return isNumber(value) && value % 1 === 0;
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
  }
}

/** Equality as ajv's enum sees it (fast-deep-equal on JSON data). */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number') return a !== a && b !== b;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.prototype.hasOwnProperty.call(b, key) && jsonEqual(a[key], b[key]));
}

/** Characters as ajv counts them: a surrogate pair is one. */
function codePoints(text: string): number {
  let count = 0;
  for (let at = 0; at < text.length; at += 1) {
    count += 1;
    const code = text.charCodeAt(at);
    if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(at + 1) & 0xfc00) === 0xdc00) at += 1;
  }
  return count;
}

const pointer = (path: string, key: string | number): string => `${path}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

const nonNegativeInteger = (value: unknown): number => (Number.isInteger(value) && (value as number) >= 0 ? (value as number) : outside());
const finiteNumber = (value: unknown): number => (isNumber(value) ? value : outside());

const LIMITS: Record<string, { fails: (data: number, limit: number) => boolean; comparison: string }> = {
  maximum: { fails: (data, limit) => data > limit, comparison: '<=' },
  minimum: { fails: (data, limit) => data < limit, comparison: '>=' },
  exclusiveMaximum: { fails: (data, limit) => data >= limit, comparison: '<' },
  exclusiveMinimum: { fails: (data, limit) => data <= limit, comparison: '>' },
};

const COUNTS: Record<string, { size: (data: never) => number; unit: string; more: boolean }> = {
  maxLength: { size: (data: string) => codePoints(data), unit: 'characters', more: true },
  minLength: { size: (data: string) => codePoints(data), unit: 'characters', more: false },
  maxItems: { size: (data: unknown[]) => data.length, unit: 'items', more: true },
  minItems: { size: (data: unknown[]) => data.length, unit: 'items', more: false },
  maxProperties: { size: (data: object) => Object.keys(data).length, unit: 'properties', more: true },
  minProperties: { size: (data: object) => Object.keys(data).length, unit: 'properties', more: false },
};

/** The check of one keyword of a type group, applied to a value of that type. */
function keywordCheck(keyword: string, schema: Schema): Check {
  const argument = schema[keyword];
  const fail = (errors: SchemaError[], path: string, params: Record<string, unknown>, message: string) => errors.push({ keyword, instancePath: path, params, message });
  const limit = LIMITS[keyword];
  if (limit) {
    const bound = finiteNumber(argument);
    return (value, path, errors) => {
      const data = value as number;
      if (limit.fails(data, bound) || Number.isNaN(data)) fail(errors, path, { comparison: limit.comparison, limit: bound }, `must be ${limit.comparison} ${bound}`);
    };
  }
  const count = COUNTS[keyword];
  if (count) {
    const bound = nonNegativeInteger(argument);
    return (value, path, errors) => {
      const size = count.size(value as never);
      if (count.more ? size > bound : size < bound) fail(errors, path, { limit: bound }, `must NOT have ${count.more ? 'more' : 'fewer'} than ${bound} ${count.unit}`);
    };
  }
  switch (keyword) {
    case 'format':
      // Not checked (crd-schema.ts): Kubernetes' formats are not JSON Schema's.
      return () => undefined;
    case 'multipleOf': {
      const divisor = finiteNumber(argument);
      if (divisor <= 0) outside();
      return (value, path, errors) => {
        const ratio = (value as number) / divisor;
        if (ratio !== parseInt(String(ratio), 10)) fail(errors, path, { multipleOf: divisor }, `must be multiple of ${divisor}`);
      };
    }
    case 'pattern': {
      if (typeof argument !== 'string') outside();
      let regex: RegExp;
      try {
        regex = new RegExp(argument as string, 'u');
      } catch {
        return outside();
      }
      return (value, path, errors) => {
        if (!regex.test(value as string)) fail(errors, path, { pattern: argument }, `must match pattern "${argument as string}"`);
      };
    }
    case 'items': {
      if (!isObject(argument)) outside();
      const item = compileNode(argument as Schema);
      return (value, path, errors) => (value as unknown[]).forEach((element, i) => item(element, pointer(path, i), errors));
    }
    case 'required': {
      if (!Array.isArray(argument) || !argument.every((name) => typeof name === 'string')) outside();
      const names = argument as string[];
      // ajv reads `data[name] === undefined`, inherited properties included.
      return (value, path, errors) => {
        for (const name of names) if ((value as Record<string, unknown>)[name] === undefined) fail(errors, path, { missingProperty: name }, `must have required property '${name}'`);
      };
    }
    case 'properties': {
      if (!isObject(argument)) outside();
      const checks = Object.keys(argument as Schema)
        .filter((name) => name !== '__proto__')
        .map((name) => ({ name, check: compileNode(finiteSchema((argument as Schema)[name])) }));
      return (value, path, errors) => {
        for (const { name, check } of checks) {
          const data = (value as Record<string, unknown>)[name];
          if (data !== undefined) check(data, pointer(path, name), errors);
        }
      };
    }
    case 'additionalProperties':
      return additionalProperties(argument, schema);
    default:
      return outside();
  }
}

const finiteSchema = (value: unknown): Schema => (isObject(value) ? value : outside());

function additionalProperties(argument: unknown, schema: Schema): Check {
  const declared = new Set(isObject(schema.properties) ? Object.keys(schema.properties).filter((name) => name !== '__proto__') : []);
  if (argument === true) return () => undefined;
  if (argument === false) {
    return (value, path, errors) => {
      for (const key in value as object) {
        if (!declared.has(key)) errors.push({ keyword: 'additionalProperties', instancePath: path, params: { additionalProperty: key }, message: 'must NOT have additional properties' });
      }
    };
  }
  const check = compileNode(finiteSchema(argument));
  return (value, path, errors) => {
    for (const key in value as object) if (!declared.has(key)) check((value as Record<string, unknown>)[key], pointer(path, key), errors);
  };
}

function typesOf(schema: Schema): JsonType[] {
  const written = schema.type;
  const types = written === undefined ? [] : Array.isArray(written) ? written : [written];
  if (!types.every((type): type is JsonType => typeof type === 'string' && JSON_TYPES.has(type)) || new Set(types).size !== types.length) outside();
  if (schema.nullable !== undefined && typeof schema.nullable !== 'boolean') outside();
  if (types.includes('null')) {
    if (schema.nullable === false) outside();
  } else {
    if (types.length === 0 && schema.nullable !== undefined) outside();
    if (schema.nullable === true) types.push('null');
  }
  return types as JsonType[];
}

function compileNode(schema: Schema): Check {
  for (const keyword of Object.keys(schema)) if (!KNOWN.has(keyword)) outside();
  const types = typesOf(schema);
  const groups = (Object.keys(GROUPS) as Group[])
    .map((group) => ({ group, checks: GROUPS[group].filter((keyword) => keyword in schema).map((keyword) => keywordCheck(keyword, schema)) }))
    .filter(({ checks }) => checks.length > 0);
  const [only] = types;
  // One type whose own keywords the schema has is checked with them; any other typing, on its own first.
  const typeAlone = types.length > 0 && !(types.length === 1 && groups.some(({ group }) => group === only));
  const typeError = (path: string): SchemaError => ({ keyword: 'type', instancePath: path, params: { type: schema.type }, message: `must be ${String(schema.type)}` });
  const allowed = schema.enum;
  if (allowed !== undefined && (!Array.isArray(allowed) || allowed.length === 0)) outside();
  return (value, path, errors) => {
    if (typeAlone && !types.some((type) => hasType(value, type))) errors.push(typeError(path));
    if (Array.isArray(allowed) && !allowed.some((candidate) => jsonEqual(value, candidate))) {
      errors.push({ keyword: 'enum', instancePath: path, params: { allowedValues: allowed }, message: 'must be equal to one of the allowed values' });
    }
    for (const { group, checks } of groups) {
      if (hasType(value, group)) for (const check of checks) check(value, path, errors);
      else if (!typeAlone && only === group) errors.push(typeError(path));
    }
  };
}

/** A check of `schema`, or undefined when it has anything outside the subset (ajv then compiles it). */
export function compileSubset(schema: Schema): SchemaCheck | undefined {
  let check: Check;
  try {
    check = compileNode(schema);
  } catch (error) {
    if (error instanceof OutsideSubset) return undefined;
    throw error;
  }
  return (value) => {
    const errors: SchemaError[] = [];
    check(value, '', errors);
    return errors;
  };
}
