/**
 * Writes plain data (a new object built by the function) as block YAML, byte for byte as `yaml`
 * renders it with this project's options (RENDER_OPTIONS, the YAML 1.1 quoting rule) but without
 * building a node tree: at fleet scale, thousands of new PackageVariants are written at once.
 * Undefined for data outside the simple subset this writer knows (strings beyond printable ASCII,
 * strings to quote that would need escapes, non-integer numbers, nested sequences, objects that are
 * not plain); the caller then uses `yaml`.
 */
import { AcceptedStrings, outsideSubset, OutsideSubset, readsBackAsString } from './plain-scalars';
import { YAML_11_NON_STRING } from './yaml-format';

/**
 * What `yaml` will not write plain (its stringifyString rules): indicators at the start, `: ` and
 * ` #` inside, a space or colon at the end. (Document markers matter only at the top level, where
 * there is no scalar here.)
 */
const NOT_PLAIN = /^[ ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-] |: | #|[ :]$/;
const PRINTABLE = /^[\x20-\x7e]*$/;
const SAFE_KEY = /^[A-Za-z_/][\w./@+~-]*$/;

function isPlainString(text: string): boolean {
  return !NOT_PLAIN.test(text) && readsBackAsString(text) && !YAML_11_NON_STRING.test(text);
}

const WRITABLE_KEYS = new AcceptedStrings((key) => SAFE_KEY.test(key) && key.length <= 1000 && isPlainString(key));

function keyText(key: string): string {
  if (!WRITABLE_KEYS.accepts(key)) outsideSubset();
  return key;
}

/**
 * Plain where `yaml` writes it plain, else quoted as it quotes: single quotes for a string with `"`
 * and no `'`, else double quotes; only where the quotes need no escapes inside.
 */
function stringText(value: string): string {
  if (!PRINTABLE.test(value)) outsideSubset();
  if (isPlainString(value)) return value;
  const hasDouble = value.includes('"');
  if (hasDouble && !value.includes("'")) return `'${value}'`;
  if (hasDouble || value.includes('\\')) outsideSubset();
  return `"${value}"`;
}

function scalarText(value: unknown): string {
  if (typeof value === 'string') return stringText(value);
  if (typeof value === 'number') return Number.isSafeInteger(value) && !Object.is(value, -0) ? String(value) : outsideSubset();
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
