/**
 * `yaml`'s node tree of a document in simple block YAML, built straight from its lines by the block
 * reader (block-reader.ts), several times faster than `yaml`'s lexer, parser and composer: the tree
 * `parseYaml(text, { releaseTokens: true })` gives (the same node classes, values, scalar types,
 * formats and kept spellings, flow styles, comments where `yaml` files them, blank lines), without
 * source ranges: only lists parsed whole locate their nodes.
 *
 * Two uses: a whole document of a package, which an update reads, and an item inside a ResourceList,
 * read in place from its range of the input when something edits it (a run edits a few dozen items
 * of a large package; `yaml`'s parser, cold in a process that runs once, took most of that run's own
 * time). Undefined outside the subset; the caller then parses.
 */
import * as yaml from 'yaml';
import { Document, type Node, type Scalar as ScalarNode, type YAMLMap as YAMLMapNode, type YAMLSeq as YAMLSeqNode } from 'yaml';
import { BlockReader, type Build } from './block-reader';
import type { FoldedStyle } from './folded-scalar';
import { BREAKS_THE_LINE_SCAN, LineCursor, type LineRange } from './lines';
import { AcceptedStrings, OutsideSubset, outsideSubset, plainTag, readsBackAsString, YAML_11_NON_STRING, type Spelled } from './scalars';
import { PARSE_OPTIONS, parseYaml, type YamlVersion } from './yaml-format';

// A bundle reads a package's exports through getters: the classes of the nodes built here are taken once.
const { isScalar, Pair, Scalar, YAMLMap, YAMLSeq } = yaml;

/** Plain keys that read back as themselves and keep no spelling: most keys, which every object repeats. */
const STRING_KEYS = new AcceptedStrings((key) => readsBackAsString(key) && !YAML_11_NON_STRING.test(key));

/** Maps with more pairs than this have their keys in a set to refuse a duplicate; smaller ones are scanned. */
const SCANNED_KEYS = 64;

/** A scalar as the composer makes it from its source, of its type. */
function scalarOf(value: unknown, source: string, type: ScalarNode.Type): ScalarNode {
  const scalar = new Scalar(value);
  scalar.source = source;
  scalar.type = type;
  return scalar;
}

/** The nodes of one document's tree, in its schema. */
class NodeBuild implements Build<Node, ScalarNode> {
  readonly comments = true;
  /** The keys of the larger maps being built. */
  private readonly keys = new WeakMap<YAMLMapNode, Set<unknown>>();

  constructor(private readonly doc: Document) {}

  plain(source: string): ScalarNode {
    const scalar: Spelled = this.resolvedPlain(source);
    // Spellings are kept for what rendering could spell otherwise: not plain strings (see releaseToken).
    if (typeof scalar.value !== 'string' || YAML_11_NON_STRING.test(scalar.value)) scalar.spelling = source;
    return scalar;
  }

  /** A plain scalar as the composer resolves it: the first default tag whose test matches, else a string. */
  private resolvedPlain(source: string): ScalarNode {
    const tag = plainTag(source);
    // Most plain scalars are strings, which resolve to themselves.
    const resolved: unknown = tag.test === undefined ? source : tag.resolve(source, outsideSubset, this.doc.options);
    const scalar = isScalar(resolved) ? resolved : new Scalar(resolved);
    scalar.source = source;
    scalar.type = 'PLAIN';
    if (tag.format) scalar.format = tag.format;
    return scalar;
  }

  folded(value: string, style: FoldedStyle): ScalarNode {
    return style === 'PLAIN' ? this.resolvedPlain(value) : scalarOf(value, value, style);
  }

  quoted(value: string, spelling: string): ScalarNode {
    const scalar: Spelled = scalarOf(value, value, spelling[0] === '"' ? 'QUOTE_DOUBLE' : 'QUOTE_SINGLE');
    scalar.spelling = spelling;
    return scalar;
  }

  literal(value: string): ScalarNode {
    return scalarOf(value, value, 'BLOCK_LITERAL');
  }

  /** The null of `key:` with nothing after it: the composer's empty scalar has no token, so no spelling. */
  empty(): ScalarNode {
    return scalarOf(null, '', 'PLAIN');
  }

  key({ key, quoted }: { key: string; quoted?: string }): ScalarNode {
    if (quoted !== undefined) return this.quoted(key, quoted);
    if (STRING_KEYS.accepts(key)) return scalarOf(key, key, 'PLAIN');
    const scalar = this.plain(key);
    // Keys that are not strings are the parser's.
    if (typeof scalar.value !== 'string') outsideSubset();
    return scalar;
  }

  map(flow: boolean): YAMLMapNode {
    const map = new YAMLMap(this.doc.schema);
    if (flow) map.flow = true;
    return map;
  }

  set(node: Node, key: ScalarNode, value: Node): void {
    const map = node as YAMLMapNode<ScalarNode, Node>;
    const { items } = map;
    // Duplicate keys are the parser's to report.
    if (items.length < SCANNED_KEYS) {
      for (const pair of items) if (pair.key.value === key.value) outsideSubset();
    } else {
      let keys = this.keys.get(map);
      if (!keys) this.keys.set(map, (keys = new Set(items.map((pair) => pair.key.value))));
      if (keys.has(key.value)) outsideSubset();
      keys.add(key.value);
    }
    items.push(new Pair(key, value));
  }

  seq(flow: boolean): YAMLSeqNode {
    const seq = new YAMLSeq(this.doc.schema);
    if (flow) seq.flow = true;
    return seq;
  }

  push(seq: Node, item: Node): void {
    (seq as YAMLSeqNode).items.push(item);
  }

  before(node: Node, comment: string | undefined, spaceBefore: boolean): void {
    if (spaceBefore) node.spaceBefore = true;
    if (comment !== undefined) node.commentBefore = comment;
  }

  after(node: Node, comment: string): void {
    node.comment = comment;
  }
}

/** The root map of a document read by the block reader, and the document's own comments. */
interface BuiltTree {
  readonly root: YAMLMapNode;
  readonly commentBefore: string;
  readonly comment: string;
}

function buildTree(doc: Document, range: LineRange, build: NodeBuild = new NodeBuild(doc)): BuiltTree | undefined {
  try {
    const reader = new BlockReader(build, new LineCursor(range));
    const root = reader.document() as YAMLMapNode;
    return { root, commentBefore: reader.commentBefore, comment: reader.comment };
  } catch (error) {
    // Deep nesting overflows the stack here first; the parser then says what is wrong.
    if (error instanceof OutsideSubset || error instanceof RangeError) return undefined;
    throw error;
  }
}

const DOCUMENT_OPTIONS = { ...PARSE_OPTIONS, lineCounter: undefined };

/** Documents built here: no aliases, anchors or tags anywhere in them. */
const SIMPLE_DOCUMENTS = new WeakSet<Document>();

/** Whether `doc` was built here, so that nothing in it is an alias, an anchor or a tag. */
export function isSimpleDocument(doc: Document): boolean {
  return SIMPLE_DOCUMENTS.has(doc);
}

/**
 * The parsed document, as `parseYaml(text, { releaseTokens: true })` has it without source ranges,
 * when the text is a map in the simple block subset of YAML 1.2; undefined otherwise.
 */
export function buildSimpleDocument(text: string): Document.Parsed | undefined {
  // Only spaces count as YAML indentation and separation; markers and directives are the stream's.
  if (BREAKS_THE_LINE_SCAN.test(text) || /^(?:---|\.\.\.|%)/m.test(text)) return undefined;
  const doc = new Document(undefined, DOCUMENT_OPTIONS) as Document.Parsed;
  const tree = buildTree(doc, { text, start: 0, end: text.length, dedent: 0, checked: true });
  if (!tree) return undefined;
  doc.contents = tree.root as Document.Parsed['contents'];
  if (tree.commentBefore) doc.commentBefore = tree.commentBefore;
  if (tree.comment) doc.comment = tree.comment;
  SIMPLE_DOCUMENTS.add(doc);
  return doc;
}

/**
 * A document read for editing, tokens released: the simple tree where the text allows it, else
 * `yaml`'s parse (which also reports what is wrong), after `beforeParse` has counted it (parse-budget.ts).
 */
export function readDocument(text: string, version?: YamlVersion, beforeParse?: (text: string) => void): Document.Parsed {
  const simple = version !== '1.1' && !text.includes('%YAML') ? buildSimpleDocument(text) : undefined;
  if (simple) return simple;
  beforeParse?.(text);
  return parseYaml(text, { releaseTokens: true, ...(version ? { version } : {}) }).doc;
}

let shared: { doc: Document; build: NodeBuild } | undefined;

/**
 * The document items' trees belong to, one for all: an item's parsed document is used only for its
 * schema and version (1.2: an item read item by item has no directives), and each would hold a schema of its own.
 */
export function treeDocument(): Document {
  return (shared ??= sharedBuild()).doc;
}

function sharedBuild(): { doc: Document; build: NodeBuild } {
  const doc = new Document(undefined, PARSE_OPTIONS);
  return { doc, build: new NodeBuild(doc) };
}

/**
 * The tree of the item in `text` from `start` to `end`, its lines after the first dedented by
 * `dedent` (the text krm/item-chunks.ts gives the item as a document of its own), with the
 * document's own comments; undefined outside the subset. `read`: the data reader took these lines.
 */
export function buildItemTree(text: string, start: number, end: number, dedent: number, read = false): BuiltTree | undefined {
  shared ??= sharedBuild();
  return buildTree(shared.doc, { text, start, end, dedent, checked: read }, shared.build);
}
