/**
 * How deep the collections of a YAML document nest, told by one pass over its text before anything
 * reads it: `yaml`'s parser and every walk of what it builds recurse once a level or more, so a
 * document nested a hundred thousand levels (`[[[[…`, or a key a line, each indented further) ends
 * a run with "Maximum call stack size exceeded" wherever the stack gives out. Refused at a known
 * depth instead, it is an error that names the document and the limit.
 *
 * The pass knows the block structure by indentation (a line deeper than the ones open nests in
 * them; `- `, `? ` and `: ` at the start of a node open one more on the same line) and flow
 * collections by their brackets, outside quoted scalars, comments and block scalars. It may count
 * a level more than `yaml` builds (an empty key, a scalar written over several lines), never fewer
 * than one in two.
 */

/**
 * The deepest nesting read: five times the deepest document of the catalogs the tests mirror (a
 * CRD's schema, 38 levels), a quarter of where `yaml`'s parser gives out (past 700 levels of flow
 * collections), so that the walks of what it builds have room too.
 */
export const MAX_NESTING_DEPTH = 200;

interface Scan {
  /** Columns of the block nodes open, outermost first. */
  readonly block: number[];
  /** Open flow collections. */
  flow: number;
  /** Block nodes open when the flow collection began. */
  flowBase: number;
  /** The quote of a quoted scalar still open at the end of the last line. */
  quote: string | undefined;
  /** Lines indented deeper than this belong to a block scalar (`|`, `>`). */
  blockScalar: number | undefined;
  deepest: number;
}

const SPACE = 32;

/** Where the quoted scalar that opened before `at` ends (after its closing quote), or -1 when it goes on past the line. */
function quoteEnd(line: string, at: number, quote: string): number {
  for (let i = at; i < line.length; i += 1) {
    const char = line[i];
    if (quote === '"' && char === '\\') i += 1;
    else if (char === quote) {
      if (quote === "'" && line[i + 1] === "'") i += 1;
      else return i + 1;
    }
  }
  return -1;
}

/** `- `, `? ` or `: ` (or the indicator alone at the end of the line) at `at`. */
const isIndicator = (line: string, at: number): boolean => (line[at] === '-' || line[at] === '?' || line[at] === ':') && (at + 1 === line.length || line.charCodeAt(at + 1) === SPACE);

function skipSpaces(line: string, at: number): number {
  while (line.charCodeAt(at) === SPACE) at += 1;
  return at;
}

/** Past an anchor (`&a`) or a tag (`!t`) and the spaces after each. */
function skipProperties(line: string, at: number): number {
  while (line[at] === '&' || line[at] === '!') {
    while (at < line.length && line.charCodeAt(at) !== SPACE) at += 1;
    at = skipSpaces(line, at);
  }
  return at;
}

function note(scan: Scan): void {
  const depth = (scan.flow > 0 ? scan.flowBase : scan.block.length) + scan.flow;
  if (depth > scan.deepest) scan.deepest = depth;
}

/** The rest of a line from `at`, inside flow collections: brackets counted, quoted scalars and comments passed over. Where flow ends, or -1. */
function scanFlow(scan: Scan, line: string, at: number): number {
  for (let i = at; i < line.length; i += 1) {
    const char = line[i];
    if (char === '"' || char === "'") {
      const end = quoteEnd(line, i + 1, char);
      if (end === -1) {
        scan.quote = char;
        return -1;
      }
      i = end - 1;
    } else if (char === '#' && (i === 0 || line.charCodeAt(i - 1) === SPACE)) {
      return -1;
    } else if (char === '[' || char === '{') {
      scan.flow += 1;
      note(scan);
    } else if ((char === ']' || char === '}') && scan.flow > 0) {
      scan.flow -= 1;
      if (scan.flow === 0) return i + 1;
    }
  }
  return -1;
}

/** The rest of a block line from `at`, where a node may start. */
function scanBlock(scan: Scan, line: string, at: number): void {
  let i = at;
  while (i < line.length) {
    i = skipSpaces(line, i);
    // The column of the node a block scalar here would belong to: its lines are deeper.
    let owner = scan.block[scan.block.length - 1] ?? 0;
    while (isIndicator(line, i)) {
      owner = i;
      i = skipSpaces(line, i + 1);
      if (i < line.length) scan.block.push(i);
    }
    note(scan);
    i = skipProperties(line, i);
    const char = line[i];
    if (char === undefined || char === '#') return;
    if (char === '|' || char === '>') {
      scan.blockScalar = owner;
      return;
    }
    if (char === '[' || char === '{') {
      scan.flowBase = scan.block.length;
      const end = scanFlow(scan, line, i);
      if (end === -1) return;
      i = end;
    } else if (char === '"' || char === "'") {
      const end = quoteEnd(line, i + 1, char);
      if (end === -1) {
        scan.quote = char;
        return;
      }
      i = end;
    }
    // A plain scalar or a key: a value may start after `: `; a comment ends the line.
    let next = -1;
    for (let j = i; j < line.length; j += 1) {
      if (line[j] === '#' && line.charCodeAt(j - 1) === SPACE) return;
      if (line[j] === ':' && (j + 1 === line.length || line.charCodeAt(j + 1) === SPACE)) {
        next = j + 1;
        break;
      }
    }
    if (next === -1) return;
    i = next;
  }
}

/** Where a line of a document goes on with what the lines before left open; false for a line of a block scalar. */
function continueLine(scan: Scan, line: string, indent: number): boolean {
  if (scan.blockScalar !== undefined) {
    if (indent === line.length || indent > scan.blockScalar) return false;
    scan.blockScalar = undefined;
  }
  if (scan.quote !== undefined) {
    const end = quoteEnd(line, 0, scan.quote);
    if (end === -1) return false;
    scan.quote = undefined;
    if (scan.flow > 0) {
      const after = scanFlow(scan, line, end);
      if (after !== -1) scanBlock(scan, line, after);
    } else scanBlock(scan, line, end);
    return false;
  }
  if (scan.flow > 0) {
    const after = scanFlow(scan, line, indent);
    if (after !== -1) scanBlock(scan, line, after);
    return false;
  }
  return true;
}

/**
 * The depth of the document's deepest collection, as far as the pass tells, and the line (from 1)
 * where it first goes past `limit`, if it does; the pass stops there.
 */
export function nestingDepth(text: string, limit = MAX_NESTING_DEPTH): { readonly depth: number; readonly line?: number } {
  const scan: Scan = { block: [], flow: 0, flowBase: 0, quote: undefined, blockScalar: undefined, deepest: 0 };
  let number = 0;
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const line = text.charCodeAt(end - 1) === 13 ? text.slice(start, end - 1) : text.slice(start, end);
    start = end + 1;
    number += 1;
    const indent = skipSpaces(line, 0);
    if (continueLine(scan, line, indent) && indent < line.length && line[indent] !== '#') {
      while (scan.block.length > 0 && scan.block[scan.block.length - 1]! >= indent) scan.block.pop();
      scan.block.push(indent);
      scanBlock(scan, line, indent);
    }
    if (scan.deepest > limit) return { depth: scan.deepest, line: number };
  }
  return { depth: scan.deepest };
}
