import table from './builtin-table.json';

export type ScalarValue = string | number | boolean;
export type Granularity = 'granular' | 'atomic';

/**
 * The OpenAPI extensions a list or struct field carried. Kept beside the resolved semantics because kyaml (kpt's
 * merge) treats a list as associative only when its patch strategy says `merge`, whatever its list type.
 */
export interface SchemaMarkers {
  readonly listType?: 'atomic' | 'set' | 'map';
  readonly listMapKeys?: readonly string[];
  readonly patchStrategy?: string;
  readonly patchMergeKey?: string;
}

/** A named object type. Built-in handles come from the generated table; a CRD schema can implement the same interface. */
export interface TypeHandle {
  readonly name: string;
  field(name: string): FieldSchema | undefined;
}

export interface ScalarSchema {
  readonly shape: 'scalar';
}

export interface StructSchema {
  readonly shape: 'struct';
  readonly semantics: Granularity;
  readonly type: TypeHandle;
  readonly markers: SchemaMarkers;
}

/** A map with arbitrary string keys (`labels`, `data`, `resources.limits`). `value` is undefined when unknown. */
export interface MapSchema {
  readonly shape: 'map';
  readonly semantics: Granularity;
  readonly value: FieldSchema | undefined;
}

interface ListSchemaBase {
  readonly shape: 'list';
  readonly elements: 'scalar' | 'object' | 'unknown';
  /** The element type when elements are objects of a known type. */
  readonly item: TypeHandle | undefined;
  readonly markers: SchemaMarkers;
}

export interface KeyedListSchema extends ListSchemaBase {
  readonly semantics: 'map';
  readonly keys: readonly string[];
  /** Values assumed for key fields an element omits, e.g. `protocol: TCP` for container ports. */
  readonly keyDefaults: Readonly<Record<string, ScalarValue>>;
}

export interface SetListSchema extends ListSchemaBase {
  readonly semantics: 'set';
}

export interface AtomicListSchema extends ListSchemaBase {
  readonly semantics: 'atomic';
}

export type ListSchema = KeyedListSchema | SetListSchema | AtomicListSchema;

/** What is known about one field. A field of unknown schema has no FieldSchema at all (undefined). */
export type FieldSchema = ScalarSchema | StructSchema | MapSchema | ListSchema;

type Entry =
  | 'scalar'
  | 'unknown'
  | ['struct', string, SchemaMarkers?]
  | ['map', Entry, 'atomic'?]
  | ['list', Entry, 'map', string[], SchemaMarkers?]
  | ['list', Entry, 'set' | 'atomic', SchemaMarkers?];

interface TableType {
  fields: Record<string, Entry>;
  defaults?: Record<string, ScalarValue>;
  atomic?: boolean;
}

interface Table {
  format: number;
  kinds: Record<string, string>;
  types: Record<string, TableType>;
}

const data = table as unknown as Table;
const hasOwn = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);

const NO_MARKERS: SchemaMarkers = Object.freeze({});
const SCALAR: ScalarSchema = Object.freeze({ shape: 'scalar' });

class BuiltinType implements TypeHandle {
  private readonly cache = new Map<string, FieldSchema | undefined>();

  constructor(
    readonly name: string,
    private readonly def: TableType,
  ) {}

  get atomic(): boolean {
    return this.def.atomic === true;
  }

  get defaults(): Readonly<Record<string, ScalarValue>> {
    return this.def.defaults ?? {};
  }

  field(name: string): FieldSchema | undefined {
    if (this.cache.has(name)) return this.cache.get(name);
    const schema = hasOwn(this.def.fields, name) ? toSchema(this.def.fields[name]) : undefined;
    this.cache.set(name, schema);
    return schema;
  }
}

const handles = new Map<string, BuiltinType>();

function handle(name: string): BuiltinType | undefined {
  const cached = handles.get(name);
  if (cached) return cached;
  if (!hasOwn(data.types, name)) return undefined;
  const created = new BuiltinType(name, data.types[name]);
  handles.set(name, created);
  return created;
}

function toSchema(entry: Entry): FieldSchema | undefined {
  if (entry === 'scalar') return SCALAR;
  if (entry === 'unknown') return undefined;
  switch (entry[0]) {
    case 'struct': {
      const type = handle(entry[1]);
      if (!type) return undefined;
      return { shape: 'struct', semantics: type.atomic ? 'atomic' : 'granular', type, markers: entry[2] ?? NO_MARKERS };
    }
    case 'map':
      return { shape: 'map', semantics: entry[2] === 'atomic' ? 'atomic' : 'granular', value: toSchema(entry[1]) };
    case 'list':
      return toListSchema(entry);
  }
}

function toListSchema(entry: Extract<Entry, ['list', ...unknown[]]>): ListSchema {
  const itemEntry = entry[1];
  const item = Array.isArray(itemEntry) && itemEntry[0] === 'struct' ? handle(itemEntry[1]) : undefined;
  const elements = itemEntry === 'scalar' ? 'scalar' : item ? 'object' : 'unknown';
  if (entry[2] === 'map') {
    const keys = entry[3];
    const keyDefaults: Record<string, ScalarValue> = {};
    const defaults = item?.defaults ?? {};
    for (const key of keys) if (hasOwn(defaults, key)) keyDefaults[key] = defaults[key];
    return { shape: 'list', semantics: 'map', keys, keyDefaults, elements, item, markers: entry[4] ?? NO_MARKERS };
  }
  return { shape: 'list', semantics: entry[2], elements, item, markers: entry[3] ?? NO_MARKERS };
}

/** The root type of a built-in kind. `group` is the API group, "" for core; the version does not matter. */
export function builtinSchemaFor(group: string, kind: string): TypeHandle | undefined {
  const key = `${group}/${kind}`;
  return hasOwn(data.kinds, key) ? handle(data.kinds[key]) : undefined;
}

export function fieldSchema(type: TypeHandle, fieldName: string): FieldSchema | undefined {
  return type.field(fieldName);
}
