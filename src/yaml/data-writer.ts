/**
 * Writes plain data (a new object built by the function) as block YAML, byte for byte as `yaml`
 * renders it with this project's options (RENDER_OPTIONS, the YAML 1.1 quoting rule) but without
 * building a node tree: at fleet scale, thousands of new PackageVariants are written at once. Its
 * scalars are spelt as the renderer spells new ones (scalars.ts). Undefined for data outside the
 * subset this writer knows (strings that would need escapes or lines of their own, non-integer
 * numbers, nested sequences, keys that are not plain words, objects that are not plain); the caller
 * then uses `yaml`.
 */
import { AcceptedStrings, integerText, outsideSubset, OutsideSubset, stringText, type Place } from './scalars';

/**
 * Where keys and values are written. Their indentation matters to a string's spelling only at the
 * top level of a document, where no scalar stands here, and for keys that start like document
 * markers, which SAFE_KEY leaves out.
 */
const KEY: Place = { indent: '  ', inFlow: false, implicitKey: true };
const VALUE: Place = { indent: '  ', inFlow: false, implicitKey: false };
const SAFE_KEY = /^[A-Za-z_/][\w./@+~-]*$/;

const WRITABLE_KEYS = new AcceptedStrings((key) => SAFE_KEY.test(key) && key.length <= 1000 && stringText(key, undefined, KEY) === key);

function keyText(key: string): string {
  if (!WRITABLE_KEYS.accepts(key)) outsideSubset();
  return key;
}

function scalarText(value: unknown): string {
  if (typeof value === 'string') return stringText(value, undefined, VALUE);
  if (typeof value === 'number') return integerText(value);
  if (typeof value === 'boolean') return String(value);
  return value === null ? 'null' : outsideSubset();
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function mapLines(map: Record<string, unknown>, indent: string, out: string[]): void {
  for (const [key, value] of Object.entries(map)) {
    if (value === undefined) continue;
    const head = `${indent}${keyText(key)}:`;
    if (Array.isArray(value)) {
      if (value.length === 0) out.push(`${head} []`);
      else {
        out.push(head);
        // Compact sequences: the `- ` at the key's column.
        seqLines(value, indent, out);
      }
    } else if (isPlainObject(value)) {
      if (Object.values(value).every((v) => v === undefined)) out.push(`${head} {}`);
      else {
        out.push(head);
        mapLines(value, `${indent}  `, out);
      }
    } else {
      out.push(`${head} ${scalarText(value)}`);
    }
  }
}

function seqLines(seq: readonly unknown[], indent: string, out: string[]): void {
  for (const item of seq) {
    if (Array.isArray(item) || item === undefined) outsideSubset();
    if (!isPlainObject(item)) {
      out.push(`${indent}- ${scalarText(item)}`);
      continue;
    }
    const lines: string[] = [];
    mapLines(item, `${indent}  `, lines);
    if (lines.length === 0) {
      out.push(`${indent}- {}`);
      continue;
    }
    lines[0] = `${indent}- ${lines[0]!.slice(indent.length + 2)}`;
    out.push(...lines);
  }
}

/** A map as block YAML lines at column 0 (no trailing newline), or undefined outside the subset. */
export function writeSimpleBlockMap(data: Record<string, unknown>): string | undefined {
  const lines: string[] = [];
  try {
    mapLines(data, '', lines);
  } catch (error) {
    if (error instanceof OutsideSubset) return undefined;
    throw error;
  }
  return lines.length === 0 ? undefined : lines.join('\n');
}
