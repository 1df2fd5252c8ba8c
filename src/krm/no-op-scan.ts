/**
 * Recognises, without a YAML parser, a ResourceList that asks the function for nothing: no
 * functionConfig (or kpt's empty `function-input` ConfigMap), no merge sources, items that are
 * plainly KRM objects or plainly not. Its output is the input, byte for byte, which is what the full
 * path writes too; skipping the parse keeps a process that Porch starts per evaluation cheap.
 *
 * It answers false at the first thing it cannot vouch for (anchors, tags, flow items, documents,
 * duplicate keys, half-identified items...), and the full parser then decides, reporting any error.
 */
import { BEYOND_LINE_SCAN, keyOf, meaningfulLines, valueOf, type Line } from '../yaml/line-scan';

const RESOURCE_LIST_API = /^apiVersion: ["']?config\.kubernetes\.io\/v1(beta1)?["']?\s*$/;
// Block scalars (`|`, `>`) are fine: their text is indented deeper than the key that holds them.
const UNSURE = /merge-source|^\s*-\s*[{[]/m;

const isDashLine = (line: Line) => line.text.trimStart().startsWith('- ') || line.text.trim() === '-';

/**
 * Splits lines into blocks, each starting at a line of exactly `indent` that `starts` accepts;
 * `continues` lets other lines at that indent belong to the block above (compact `- ` items).
 */
function blocks(lines: readonly Line[], indent: number, starts: (line: Line) => boolean, continues: (line: Line) => boolean = () => false): Line[][] | undefined {
  const out: Line[][] = [];
  for (const line of lines) {
    if (line.indent < indent) return undefined;
    if (line.indent === indent && starts(line)) out.push([line]);
    else if (out.length === 0 || (line.indent === indent && !continues(line))) return undefined;
    else out[out.length - 1]!.push(line);
  }
  return out;
}

/** Keys at the item's own level, with the lines below each. */
function fields(block: readonly Line[], indent: number): Map<string, Line[]> | undefined {
  const map = new Map<string, Line[]>();
  let current: Line[] | undefined;
  for (const line of block) {
    // A compact sequence's `- ` lines sit at the level of the key they belong to.
    const atItemLevel = line === block[0] || (line.indent === indent && !isDashLine(line));
    if (atItemLevel) {
      const key = keyOf(line.text);
      if (!key || map.has(key)) return undefined;
      current = [line];
      map.set(key, current);
    } else if (current) current.push(line);
  }
  return map;
}

function plainItem(block: readonly Line[]): boolean {
  const first = block[0]!;
  // `- # head comment` puts the item's first key on the next line.
  const keyed = /^\s*-\s*(#.*)?$/.test(first.text) ? block.slice(1) : block;
  if (keyed.length === 0 || (keyed !== block && keyed[0]!.indent !== first.indent + 2)) return false;
  const own = fields(keyed, first.indent + 2);
  if (!own) return false;
  const metadata = own.get('metadata');
  if (metadata && valueOf(metadata[0]!.text) !== '') return false;
  const name = metadata?.slice(1).filter((l) => l.indent === first.indent + 4 && keyOf(l.text) === 'name');
  const identity = [own.has('apiVersion') && valueOf(own.get('apiVersion')![0]!.text) !== '', own.has('kind') && valueOf(own.get('kind')![0]!.text) !== '', name?.length === 1 && valueOf(name[0]!.text) !== ''];
  return identity.every(Boolean) || (identity.every((has) => !has) && !own.has('metadata'));
}

function emptyFunctionConfig(block: readonly Line[]): boolean {
  const own = fields(block.slice(1), 2);
  if (!own || valueOf(block[0]!.text) !== '') return false;
  for (const [key, lines] of own) {
    const value = valueOf(lines[0]!.text);
    if (key === 'apiVersion' && value !== 'v1') return false;
    if (key === 'kind' && value !== 'ConfigMap') return false;
    if (key === 'data' && (value !== '{}' || lines.length > 1)) return false;
    if (!['apiVersion', 'kind', 'metadata', 'data'].includes(key)) return false;
  }
  return true;
}

/**
 * The lines of the top-level functionConfig, found without splitting the whole text: a run with
 * work to do says so there, and large packages should not pay for a line scan to learn it. Only
 * ever used to answer false sooner, so a block found wrongly costs a parse, never a wrong no-op.
 */
function functionConfigLines(text: string): Line[] | undefined {
  const start = text.search(/^functionConfig:/m);
  if (start === -1) return undefined;
  const after = text.indexOf('\n', start);
  const next = after === -1 ? -1 : text.slice(after).search(/\n[^\s#-]/);
  return meaningfulLines(text.slice(start, next === -1 ? text.length : after + next));
}

export function isPlainNoOp(text: string): boolean {
  if (text.length === 0 || BEYOND_LINE_SCAN.test(text) || UNSURE.test(text)) return false;
  const configLines = functionConfigLines(text);
  if (configLines && !emptyFunctionConfig(configLines)) return false;
  const top = blocks(meaningfulLines(text), 0, (line) => !isDashLine(line) && keyOf(line.text) !== undefined, isDashLine);
  if (!top) return false;
  const sections = new Map<string, Line[]>();
  for (const block of top) {
    const key = keyOf(block[0]!.text) as string;
    if (sections.has(key)) return false;
    sections.set(key, block);
  }
  if ([...sections.keys()].some((key) => !['apiVersion', 'kind', 'items', 'functionConfig'].includes(key))) return false;
  const api = sections.get('apiVersion');
  const kind = sections.get('kind');
  const items = sections.get('items');
  if (api?.length !== 1 || !RESOURCE_LIST_API.test(api[0]!.text) || kind?.length !== 1 || valueOf(kind[0]!.text) !== 'ResourceList') return false;
  if (!items || valueOf(items[0]!.text) !== '') return false;
  const config = sections.get('functionConfig');
  if (config && !emptyFunctionConfig(config)) return false;
  const itemLines = items.slice(1);
  if (itemLines.length === 0) return false;
  const itemBlocks = blocks(itemLines, itemLines[0]!.indent, isDashLine);
  return itemBlocks !== undefined && itemBlocks.every(plainItem);
}
