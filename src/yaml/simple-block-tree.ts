/**
 * Builds the `yaml` node tree of an item in simple block YAML with the fast reader, the tree `yaml`'s
 * parser would compose (parseYaml with its tokens released): the same node classes, values, scalar
 * types, formats, sources, spellings and trailing comments. A run edits a few dozen items of a large
 * package; `yaml`'s parser, cold in a process that runs once, took most of that run's own time.
 *
 * The subset is the fast reader's without what only the parser places: blank lines, comment lines,
 * trailing spaces, comments after `key:` or `-`, block scalars. Node ranges are not set: only lists
 * parsed whole locate their nodes. Undefined outside the subset; the caller then parses.
 */
import { Document, isMap, Pair, Scalar, YAMLMap, YAMLSeq, type Node } from 'yaml';
import { outsideSubset, resolvePlainScalarTag } from './plain-scalars';
import { readBlockRange, type Build } from './simple-block-read';
import { PARSE_OPTIONS, YAML_11_NON_STRING } from './yaml-format';

type Spelled = { spelling?: string };

let shared: Document | undefined;

/**
 * The document the trees belong to, one for all: an item's parsed document is used only for its
 * schema and version (1.2: an item read item by item has no directives), and each would hold a schema of its own.
 */
export function treeDocument(): Document {
  return (shared ??= new Document(undefined, PARSE_OPTIONS));
}

/** A scalar as the composer makes it, and as releaseSourceTokens leaves it (yaml-format.ts). */
function scalar(value: unknown, source: string, type: Scalar.Type, spelling: string | undefined, format?: string): Scalar {
  const node = new Scalar(value);
  node.source = source;
  node.type = type;
  if (format !== undefined) node.format = format;
  // Spellings are kept for what rendering could spell otherwise: not plain strings (see releaseToken).
  const plainString = type === Scalar.PLAIN && typeof value === 'string' && !YAML_11_NON_STRING.test(value);
  if (spelling !== undefined && !plainString) (node as Spelled).spelling = spelling;
  return node;
}

/** The keys of the maps being built, to refuse a duplicate without a scan of the map each time. */
const KEYS = new WeakMap<YAMLMap, Set<string>>();

const TREE: Build<Node> = {
  lenient: false,
  plain(text) {
    const { value, format } = resolvePlainScalarTag(text);
    return scalar(value, text, Scalar.PLAIN, text, format);
  },
  quoted: (value, spelling) => scalar(value, value, spelling[0] === '"' ? Scalar.QUOTE_DOUBLE : Scalar.QUOTE_SINGLE, spelling),
  // Block scalars are left to the parser.
  literal: () => outsideSubset(),
  // The composer's empty scalar has no token, so no spelling.
  empty: () => scalar(null, '', Scalar.PLAIN, undefined),
  comment(node, comment) {
    node.comment = comment.slice(1) || ' ';
  },
  map(flow) {
    const map = new YAMLMap(treeDocument().schema);
    if (flow) map.flow = true;
    return map;
  },
  set(map, { key, quoted }, value) {
    const pairs = (map as YAMLMap).items as Pair<Scalar, Node>[];
    const keys = KEYS.get(map as YAMLMap) ?? new Set<string>();
    if (keys.has(key)) outsideSubset();
    keys.add(key);
    KEYS.set(map as YAMLMap, keys);
    const keyNode = quoted === undefined ? scalar(key, key, Scalar.PLAIN, key) : scalar(key, key, quoted[0] === '"' ? Scalar.QUOTE_DOUBLE : Scalar.QUOTE_SINGLE, quoted);
    pairs.push(new Pair(keyNode, value));
  },
  seq(flow) {
    const seq = new YAMLSeq(treeDocument().schema);
    if (flow) seq.flow = true;
    return seq;
  },
  push(seq, item) {
    (seq as YAMLSeq).items.push(item);
  },
};

/**
 * The tree of the item in `text` from `start` to `end` (read as readSimpleBlockRange reads it), or
 * undefined; `read`: readSimpleBlockRange took it already.
 */
export function readSimpleBlockTree(text: string, start: number, end: number, dedent: number, read = false): YAMLMap | undefined {
  const node = readBlockRange(TREE, text, start, end, dedent, read);
  return isMap(node) ? node : undefined;
}

