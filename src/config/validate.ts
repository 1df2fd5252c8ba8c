import type { ErrorObject, ValidateFunction } from 'ajv';
import { isCollection, isMap, isScalar, type Node } from 'yaml';
import type { LineLocator } from '../krm/resource-list';
import { errorResult, FunctionError, type Result } from '../krm/results';

/** Where validated data sits in the input, to name the field path and the line in messages. */
export interface DataLocation {
  /** Path of the data's root inside `node`, e.g. ['items', 2] for an object inside a List. */
  readonly prefix: readonly (string | number)[];
  /** The node of the data's root; built only to locate a problem. */
  readonly node: () => Node;
  /** Absent for data built in memory, which has no lines to point at. */
  readonly lineCounter?: LineLocator;
  readonly file?: { path: string; index?: number };
  /**
   * The file `lineCounter` counted, where the data was read from the user's own file (sync's
   * inputs): its lines are the file's, with nothing added by kpt to count out.
   */
  readonly readFrom?: string;
}

/** `/spec/targets/0/name` as `spec.targets[0].name`. */
export function formatFieldPath(segments: readonly (string | number)[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number' || /^\d+$/.test(segment)) out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

function pointerSegments(instancePath: string): (string | number)[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

const TYPE_NAMES: Record<string, string> = {
  object: 'a map',
  array: 'a list',
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean (true or false)',
};

function describe(error: ErrorObject): { message: string; extraSegment?: string } {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return { message: `unknown field "${String(params.additionalProperty)}"`, extraSegment: String(params.additionalProperty) };
    case 'required':
      return { message: `missing required field "${String(params.missingProperty)}"` };
    case 'enum':
      return { message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'const':
      return { message: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'type': {
      const types = Array.isArray(params.type) ? params.type.map(String) : [String(params.type)];
      return { message: `must be ${types.map((type) => TYPE_NAMES[type] ?? `of type ${type}`).join(' or ')}` };
    }
    case 'minLength':
      return { message: params.limit === 1 ? 'must not be empty' : `must have at least ${String(params.limit)} characters` };
    case 'minimum':
      return { message: params.limit === 0 ? 'must not be negative' : `must be ${String(params.limit)} or more` };
    default:
      return { message: error.message ?? 'is invalid' };
  }
}

/** The node at a path; for an unknown field its key, which is where the mistake is. */
function nodeAt(root: Node, segments: readonly (string | number)[], atKey: boolean): Node | undefined {
  if (segments.length === 0) return root;
  const parent = segments.length === 1 ? root : (root as unknown as { getIn(p: unknown[], keep: true): unknown }).getIn([...segments.slice(0, -1)], true);
  if (!isCollection(parent)) return undefined;
  const last = segments[segments.length - 1];
  if (atKey && isMap(parent)) {
    const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === last);
    return (pair?.key as Node | undefined) ?? undefined;
  }
  return (parent.get(last, true) as Node | undefined) ?? undefined;
}

/** The node to locate in, unless the input is too large to parse for it: the message then has no line. */
function locatable(location: DataLocation): Node | undefined {
  try {
    return location.node();
  } catch (error) {
    if (error instanceof FunctionError) return undefined;
    throw error;
  }
}

/** Whether an annotation is one kpt's reader adds to what it reads (path, index, ids), not the user's. */
const isReaderAnnotation = (key: string) => /^(internal\.)?config\.(kubernetes\.io|k8s\.io)\/(path|index|id|seqindent|package-path|annotations-migration-resource-id|kpt-resource-id)$/.test(key);

/**
 * How many lines above `line` kpt added to the user's document when it built the ResourceList: its
 * reader's annotations, and their `annotations:` key where it holds nothing else.
 */
function addedLinesAbove(root: Node, line: number, locator: LineLocator): number {
  const annotations = (root as unknown as { getIn(p: unknown[], keep: true): unknown }).getIn(['metadata', 'annotations'], true);
  if (!isMap(annotations)) return 0;
  const lineOfNode = (node: unknown) => {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    return range ? locator.linePos(range[0]).line : Number.POSITIVE_INFINITY;
  };
  const added = annotations.items.filter((pair) => isScalar(pair.key) && isReaderAnnotation(String(pair.key.value)));
  let count = added.filter((pair) => lineOfNode(pair.key) < line).length;
  if (added.length === annotations.items.length && lineOfNode(annotations) - 1 < line) count += 1;
  return count;
}

/**
 * Where a node is: in the user's file where it was read straight from one; in the user's file where
 * kpt built the ResourceList from one (the functionConfig's path annotation, or its index alone for
 * `kpt fn eval --fn-config`), counting out the lines kpt added; else in the ResourceList.
 */
function placeOf(location: DataLocation, root: Node, target: Node & { range: [number, number, number] }, locator: LineLocator): string {
  const { line, col } = locator.linePos(target.range[0]);
  if (location.readFrom !== undefined) return ` (${location.readFrom} line ${line}, column ${col})`;
  const fromKpt = location.file !== undefined || (isMap(root) && addedLinesAbove(root, Number.POSITIVE_INFINITY, locator) > 0);
  const origin = root.range ? locator.linePos(root.range[0]) : undefined;
  if (!fromKpt || origin === undefined || line < origin.line) return ` (line ${line}, column ${col} of the ResourceList)`;
  const start = origin.line;
  // The document is indented below `functionConfig:` as far as its first key.
  const column = col - origin.col + 1;
  // Comment lines above the first key belong to the document too.
  const first = isMap(root) ? (root.items[0]?.key as Node | undefined) : undefined;
  const above = [root.commentBefore, first?.commentBefore].filter(Boolean).join('\n');
  const inDocument = line - start + 1 + (above ? above.split('\n').length : 0) - addedLinesAbove(root, line, locator);
  const file = location.file;
  if (!file) return ` (line ${inDocument}, column ${column} of the functionConfig file)`;
  return file.index ? ` (${file.path}, document ${file.index + 1}, line ${inDocument}, column ${column})` : ` (${file.path} line ${inDocument}, column ${column})`;
}

function lineOf(location: DataLocation, segments: readonly (string | number)[], atKey: boolean): string {
  if (!location.lineCounter) return '';
  const root = locatable(location);
  if (!root) return '';
  for (let length = segments.length; length >= 0; length -= 1) {
    const target = nodeAt(root, segments.slice(0, length), atKey && length === segments.length);
    if (target?.range) return placeOf(location, root, target as Node & { range: [number, number, number] }, location.lineCounter);
  }
  return '';
}

/** Runs an ahead-of-time compiled validator and turns its errors into results. */
export function validate(validator: ValidateFunction, data: unknown, what: string, location: DataLocation): Result[] {
  if (validator(data)) return [];
  const seen = new Set<string>();
  const results: Result[] = [];
  for (const error of validator.errors ?? []) {
    // A one-or-list field's branch errors say what is wrong; "must match the else schema" does not.
    if (error.keyword === 'if') continue;
    const segments = pointerSegments(error.instancePath);
    const { message, extraSegment } = describe(error);
    const result = fieldResult(what, [...segments, ...(extraSegment ? [extraSegment] : [])], message, location, extraSegment !== undefined);
    if (seen.has(result.message)) continue;
    seen.add(result.message);
    results.push(result);
  }
  return results;
}

/**
 * A problem of one field of validated data: `<what>: <field path>: <message>`, with the line of the
 * field (of its key, `atKey`) where the data has lines.
 */
export function fieldResult(what: string, segments: readonly (string | number)[], message: string, location: DataLocation, atKey = false): Result {
  const fullPath = [...location.prefix, ...segments];
  const fieldPath = formatFieldPath(fullPath);
  return errorResult(`${what}: ${fieldPath || '(root)'}: ${message}${lineOf(location, fullPath, atKey)}`, { field: { path: fieldPath }, ...(location.file ? { file: location.file } : {}) });
}
