/**
 * The largest single scalar the function works on. The total size of the input is bounded where
 * stdin is read (src/cli/stdio.ts); this bound is on each string value or key: 4 MiB of characters,
 * more than twice what the Kubernetes API server stores in a whole object (1.5 MiB), so that no
 * real resource comes near it. Runs that ask for nothing are passed through before any parse
 * (src/krm/no-op-scan.ts) and are not checked.
 */
import { isMap, isNode, isScalar, isSeq } from 'yaml';
import type { KrmResource } from './resource';
import { groupDigits } from '../yaml/group-digits';
import { MAX_DOCUMENT_UNITS, MAX_PARSED_BYTES, UNITS } from '../yaml/parse-budget';
import { countUnits } from '../yaml/text-units';
import { MAX_INPUT_OBJECTS } from './input-bounds';
import { errorResult, FunctionError, type Result } from './results';

export const MAX_SCALAR_CHARS = 4 * 1024 * 1024;

/**
 * Refuses a list that must be parsed whole (the line scan cannot split it into items) where it is
 * beyond the parser's bounds for one document.
 */
export function checkWholeList(text: string, limits: { readonly bytes: number; readonly units: number } = { bytes: MAX_PARSED_BYTES, units: MAX_DOCUMENT_UNITS }): void {
  const units = countUnits(text);
  if (text.length <= limits.bytes && units <= limits.units) return;
  throw new FunctionError(
    errorResult(
      `the input must be parsed as one YAML document (the line scan cannot read it item by item: anchors, tags, tabs, CRLF line ends, flow or JSON style, several documents, or results already in it), and it has ${groupDigits(text.length)} characters and ${groupDigits(units)} ${UNITS}: the function parses at most ${groupDigits(limits.bytes)} characters and ${groupDigits(limits.units)} ${UNITS} that way (see "Safety" in the README)`,
    ),
  );
}

/** An error when the input holds more than MAX_INPUT_OBJECTS objects, counted before they are read. */
export function tooManyObjects(items: number, listObjects: number): FunctionError | undefined {
  if (items + listObjects <= MAX_INPUT_OBJECTS) return undefined;
  const counted = listObjects > 0 ? `${groupDigits(items)} items and ${groupDigits(listObjects)} objects in its functionConfig List` : `${groupDigits(items)} items`;
  return new FunctionError(errorResult(`the input has ${counted}; the function reads at most ${groupDigits(MAX_INPUT_OBJECTS)} objects in a run (see "Safety" in the README)`));
}

const SHOWN_KEY_CHARS = 60;

/** `spec.containers[0].image`; a key that is not a plain word is quoted, and a long one cut. */
function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  if (/^[A-Za-z0-9_-]+$/.test(key) && key.length <= SHOWN_KEY_CHARS) return path === '' ? key : `${path}.${key}`;
  const shown = key.length > SHOWN_KEY_CHARS ? `${key.slice(0, SHOWN_KEY_CHARS)}…` : key;
  return `${path}[${JSON.stringify(shown)}]`;
}

interface Found {
  /** Where the string is; for a key, the map that holds it. */
  readonly path: string;
  readonly key: boolean;
  readonly length: number;
}

/** A value still to look at, and how it was reached: paths are spelt out only for the one found. */
interface Pending {
  readonly value: unknown;
  readonly parent?: Pending;
  readonly step?: string | number;
  readonly key?: boolean;
}

function pathOf(pending: Pending | undefined): string {
  const steps: (string | number)[] = [];
  for (let at = pending; at?.step !== undefined; at = at.parent) steps.unshift(at.step);
  return steps.reduce<string>((path, step) => childPath(path, step), '');
}

/** The entries of a map, from plain data or a `yaml` map node. */
function entries(value: unknown): [unknown, unknown][] | undefined {
  if (isMap(value)) return value.items.map((pair) => [isScalar(pair.key) ? pair.key.value : pair.key, pair.value]);
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && !isNode(value)) return Object.entries(value);
  return undefined;
}

/** The first string longer than `limit` in plain data or a `yaml` node tree, walked without recursion. */
function findLongString(root: unknown, limit: number): Found | undefined {
  const pending: Pending[] = [{ value: root }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value } = next;
    if (typeof value === 'string') {
      if (value.length > limit) return { path: pathOf(next.key ? next.parent : next), key: next.key === true, length: value.length };
    } else if (isScalar(value)) {
      pending.push({ ...next, value: value.value });
    } else if (value !== null && typeof value === 'object') {
      const items = isSeq(value) ? value.items : Array.isArray(value) ? value : undefined;
      if (items) {
        items.forEach((item, i) => pending.push({ value: item, parent: next, step: i }));
      } else {
        // An alias is walked where its anchor is; other nodes (pairs outside maps) hold no new text.
        for (const [key, entry] of entries(value) ?? []) {
          pending.push({ value: key, parent: next, key: true }, { value: entry, parent: next, step: typeof key === 'string' ? key : String(key) });
        }
      }
    }
  }
  return undefined;
}

/**
 * An error for each item (or the functionConfig) holding a scalar over the limit. No value is longer
 * than the text it was read from, so an input of `sourceLength` characters within the limit is not
 * walked, nor an item whose own text (`itemLength`, where known) is within it.
 */
export function oversizedScalars(
  items: readonly KrmResource[],
  functionConfig: KrmResource | undefined,
  sourceLength: number,
  limit: number = MAX_SCALAR_CHARS,
  itemLength: (item: KrmResource) => number | undefined = () => undefined,
): Result[] {
  if (sourceLength <= limit) return [];
  const located = [
    ...items.flatMap((item, i) => ((itemLength(item) ?? Infinity) <= limit ? [] : [{ item, where: `items[${i}]` }])),
    ...(functionConfig ? [{ item: functionConfig, where: 'functionConfig' }] : []),
  ];
  return located.flatMap(({ item, where }) => {
    const content = item.content;
    const found = findLongString('data' in content ? content.data : content.node, limit);
    if (!found) return [];
    const identity = item.isKrmObject ? ` (${item.kind} ${item.name})` : '';
    const file = item.fileRef();
    return [
      errorResult(`${where}${identity}: ${found.key ? `a key in ${found.path || 'the item'}` : `the string at ${found.path}`} is ${groupDigits(found.length)} characters; the function works on strings of at most ${groupDigits(limit)} (see "Safety" in the README)`, {
        ...(item.isKrmObject ? { resourceRef: item.ref() } : {}),
        ...(found.path ? { field: { path: found.path } } : {}),
        ...(file ? { file } : {}),
      }),
    ];
  });
}
