/**
 * How we read and write YAML so that kpt gets back exactly what it sent, apart from real edits.
 *
 * Untouched items are never re-rendered (see resource-list.ts); these rules apply to the items a
 * function changes, and to new ones.
 */
import {
  Document,
  isAlias,
  isCollection,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  type Node,
  type Pair,
  type ParsedNode,
  type YAMLSeq,
  type ScalarTag,
  type Tags,
  type ToStringOptions,
} from 'yaml';
import { keptSpelling, YAML_11_NON_STRING, type Spelled } from './scalars';
import type { SeqIndent } from './seq-indent';

type TagLike = Tags[number];

/** kyaml's style: no line folding, compact sequences, `{a: 1}` flow maps. */
export const RENDER_OPTIONS: ToStringOptions = {
  lineWidth: 0,
  minContentWidth: 0,
  indentSeq: false,
  flowCollectionPadding: false,
};

const STRING_TAG = 'tag:yaml.org,2002:str';

const FLOW_SCALAR_TOKENS = new Set(['scalar', 'single-quoted-scalar', 'double-quoted-scalar']);

/** How a scalar was written in the input, where it was recorded (see releaseSourceTokens). */
export function sourceSpelling(node: Node): string | undefined {
  return (node as Spelled).spelling;
}

type Tokened = { srcToken?: { type: string; source: string } };

/**
 * Drops the parser's source tokens, which hold several times the memory of the nodes, once they
 * have served (item layout, comment placement). Scalars keep their spelling where it matters: not
 * plain strings, which render as they were written.
 */
export function releaseSourceTokens(doc: Document): void {
  walk(doc.contents, { node: releaseToken, pair: releaseToken });
}

/**
 * Every node and pair below `node`, parents first. A plain walk: `yaml`'s `visit` builds a path for
 * every node, which costs more than the work done here on large packages.
 */
function walk(node: unknown, on: { node(node: Node): void; pair(pair: Pair): void }): void {
  if (isMap(node)) {
    on.node(node);
    for (const pair of node.items as Pair[]) {
      on.pair(pair);
      walk(pair.key, on);
      walk(pair.value, on);
    }
  } else if (isSeq(node)) {
    on.node(node);
    for (const item of node.items) walk(item, on);
  } else if (isScalar(node) || isAlias(node)) {
    on.node(node);
  }
}

function releaseToken(node: object): void {
  if (isScalar(node)) {
    const token = (node as Tokened).srcToken;
    const plainString = token?.type === 'scalar' && typeof node.value === 'string' && !YAML_11_NON_STRING.test(node.value);
    if (token && FLOW_SCALAR_TOKENS.has(token.type) && !token.source.includes('\n') && !plainString) (node as Spelled).spelling = token.source;
  }
  delete (node as { srcToken?: unknown }).srcToken;
}

/**
 * A scalar whose value is unchanged since parsing is written with its original spelling (scalars.ts
 * keptSpelling); a new plain string YAML 1.1 reads as another type is written double-quoted.
 */
function keepSourceSpelling(tag: TagLike): TagLike {
  if (typeof tag !== 'object' || 'collection' in tag) return tag;
  const scalarTag = tag as ScalarTag;
  if (typeof scalarTag.resolve !== 'function' || !scalarTag.stringify) return tag;
  const stringify = scalarTag.stringify;
  return {
    ...scalarTag,
    stringify(item, ctx, onComment, onChompKeep) {
      const spelling = keptSpelling(item as Spelled, scalarTag);
      if (spelling !== undefined) return spelling;
      if (scalarTag.tag === STRING_TAG && typeof item.value === 'string' && (item.type === undefined || item.type === 'PLAIN') && YAML_11_NON_STRING.test(item.value)) {
        return stringify.call(this, { ...item, type: 'QUOTE_DOUBLE' } as typeof item, ctx, onComment, onChompKeep);
      }
      return stringify.call(this, item, ctx, onComment, onChompKeep);
    },
  } as ScalarTag;
}

/**
 * Parsing uses the default tags (whose schema `yaml` shares between documents); spellings are kept
 * by the rendering document's tags (`newDocument`), which is the one that stringifies.
 */
export const PARSE_OPTIONS = {
  keepSourceTokens: true,
  // Aliases multiply on expansion; a small bound stops alias bombs.
  maxAliasCount: 100,
  prettyErrors: false,
  uniqueKeys: true,
} as const;

/**
 * YAML 1.1's `!!omap` and `!!set` claim every JS Map, so in a 1.1 document `setIn` would create
 * `annotations: !!omap [...]`. They still read what is tagged so; new collections are plain maps.
 */
const CLAIMS_MAPS = new Set(['tag:yaml.org,2002:omap', 'tag:yaml.org,2002:set']);

function plainNewCollections(tags: TagLike[]): TagLike[] {
  return tags.map((tag) => (typeof tag === 'object' && CLAIMS_MAPS.has(tag.tag) ? { ...tag, identify: () => false } : tag));
}

const RENDER_DOCUMENT_OPTIONS = { ...PARSE_OPTIONS, customTags: (tags: TagLike[]) => plainNewCollections(tags).map(keepSourceSpelling) };

/** The YAML version a document is read with: 1.2 unless a `%YAML 1.1` directive says otherwise. */
export type YamlVersion = '1.1' | '1.2';

export function yamlVersionOf(doc: Document): YamlVersion {
  return doc.directives?.yaml.version === '1.1' ? '1.1' : '1.2';
}

export interface ParsedYaml {
  doc: Document.Parsed;
  /** Whether the text uses aliases, which must be expanded within limits before use. */
  hasAliases: boolean;
}

/**
 * Parses one document. `releaseTokens` drops the parser's tokens in the same pass (see
 * releaseSourceTokens), for documents whose layout nobody needs afterwards.
 */
export function parseYaml(
  text: string,
  { lineCounter, releaseTokens = false, version }: { lineCounter?: LineCounter; releaseTokens?: boolean; version?: YamlVersion } = {},
): ParsedYaml {
  // Only 1.1 documents need their own tags; the others share the default schema, which is cheaper.
  const oneOne = version === '1.1' || text.includes('%YAML');
  const doc = parseDocument(text, { ...PARSE_OPTIONS, lineCounter, ...(version ? { version } : {}), ...(oneOne ? { customTags: plainNewCollections } : {}) });
  chompAtEnd(doc.contents, text);
  const hasAliases = attachSameLineComments(doc, releaseTokens);
  return { doc, hasAliases };
}

/**
 * A document for new nodes and for rendering: its tags keep input spellings. Nodes read under
 * `%YAML 1.1` are rendered with that version's schema, which reads their spellings (`0755`) as
 * they were read.
 */
export function newDocument(version: YamlVersion = '1.2'): Document {
  return new Document(undefined, version === '1.1' ? { ...RENDER_DOCUMENT_OPTIONS, version } : RENDER_DOCUMENT_OPTIONS);
}

/** How a node is laid out: kyaml's sequence indentation, and the YAML version it was read with. */
export interface RenderStyle {
  readonly seqIndent?: SeqIndent;
  readonly version?: YamlVersion;
}

/** The `yaml` options for a style: RENDER_OPTIONS, with wide sequences where asked. */
export function renderOptions(style: RenderStyle = {}): ToStringOptions {
  return style.seqIndent === 'wide' ? { ...RENDER_OPTIONS, indentSeq: true } : RENDER_OPTIONS;
}

/**
 * A copy of an upstream node as it lands in another package: its plain strings that YAML 1.1 reads
 * as something else (`on`, `y`, `12:30`) lose their recorded spelling, so they are written quoted.
 * Local text keeps its spelling: the user wrote it, and re-quoting it would change lines.
 */
export function takenFromUpstream<T extends Node>(node: T): T {
  const copy = node.clone() as T;
  walk(copy, {
    node(n) {
      if (isScalar(n) && typeof n.value === 'string' && (n as Spelled).spelling !== undefined && (n.type === undefined || n.type === 'PLAIN')) delete (n as Spelled).spelling;
    },
    pair() {},
  });
  return copy;
}

/**
 * A block scalar (`|`, `>`, with clip or keep chomping) whose last line ends the text without a
 * line break: YAML 1.2 keeps a last line break only where there is one (§8.1.1.2), and go-yaml (so
 * kpt), PyYAML and this layer's reader read `license: |` then `LICENSE` at the end of a file as
 * "LICENSE"; `yaml` 2.9.1 adds the break ("LICENSE\n"). Such a scalar is the last node of the text
 * (nothing, not even a comment, follows it); its break is taken off here.
 */
export function chompAtEnd(contents: unknown, text: string): void {
  // The last line, without a line break after it, holds content (not only spaces).
  if (text.slice(text.lastIndexOf('\n') + 1).trim() === '') return;
  let node = contents;
  while (isCollection(node) && node.items.length > 0) {
    const last = node.items[node.items.length - 1];
    node = isPair(last) ? last.value : last;
  }
  if (!isScalar(node) || (node.type !== 'BLOCK_LITERAL' && node.type !== 'BLOCK_FOLDED') || node.range?.[1] !== text.length) return;
  if (typeof node.value !== 'string' || !node.value.endsWith('\n')) return;
  node.value = node.value.slice(0, -1);
  if (node.source?.endsWith('\n')) node.source = node.source.slice(0, -1);
}

type SourceToken = { type: string };

/** Whether a comment follows `indicator` on the same line among these CST tokens. */
function commentOnIndicatorLine(tokens: readonly SourceToken[] | undefined, indicator: string): boolean {
  if (!tokens) return false;
  const at = tokens.findIndex((t) => t.type === indicator);
  if (at === -1) return false;
  for (const token of tokens.slice(at + 1)) {
    if (token.type === 'comment') return true;
    if (token.type !== 'space') return false;
  }
  return false;
}

/**
 * Makes V8 store a string as one run of characters. `yaml` builds double-quoted scalars a
 * character at a time, which V8 keeps as a rope of one small string per character, about 30 bytes
 * each; reading a character from a rope flattens it (and frees the rope), so a parsed tree holds its
 * strings at about one byte a character.
 */
function flatten(text: string): void {
  if (text.length > 0) text.charCodeAt(0);
}

/**
 * `yaml` files a comment that follows `key:` or `- ` on the same line as a comment before the
 * collection below it, and prints it on its own line. go-yaml (and so kpt) keeps it on the key's
 * line; kpt relies on that for `metadata: # kpt-merge: ns/name`. Put such comments where kpt has them.
 */
function attachSameLineComments(doc: Document.Parsed, releaseTokens: boolean): boolean {
  let hasAliases = false;
  // Each callback reads only its own node's token, and parents come before children.
  const done = releaseTokens ? releaseToken : () => undefined;
  walk(doc.contents, {
    node(node) {
      if (isAlias(node)) hasAliases = true;
      else if (isSeq(node)) attachDashLineComments(node);
      else if (isScalar(node) && typeof node.value === 'string') flatten(node.value);
      done(node);
    },
    pair(pair) {
      attachKeyLineComment(pair);
      done(pair);
    },
  });
  return hasAliases;
}

function attachKeyLineComment(pair: Pair): void {
  const value = pair.value as ParsedNode | null;
  const key = pair.key as ParsedNode | null;
  if (!isCollection(value) || value.flow || !value.commentBefore || !isScalar(key)) return;
  const sep = (pair as { srcToken?: { sep?: SourceToken[] } }).srcToken?.sep;
  if (!commentOnIndicatorLine(sep, 'map-value-ind')) return;
  const [first, ...rest] = value.commentBefore.split('\n');
  key.comment = key.comment ? `${key.comment}\n${first}` : first;
  value.commentBefore = rest.length ? rest.join('\n') : undefined;
}

function attachDashLineComments(seq: YAMLSeq): void {
  const tokenItems = (seq as { srcToken?: { items?: { start: SourceToken[] }[] } }).srcToken?.items;
  (seq.items as ParsedNode[]).forEach((item, i) => {
    if (!isMap(item) || item.flow || !item.commentBefore || item.items.length === 0) return;
    const firstKey = item.items[0]?.key as Node | null;
    if (!isScalar(firstKey) || !commentOnIndicatorLine(tokenItems?.[i]?.start, 'seq-item-ind')) return;
    firstKey.commentBefore = firstKey.commentBefore ? `${item.commentBefore}\n${firstKey.commentBefore}` : item.commentBefore;
    item.commentBefore = undefined;
  });
}

/** Renders one node as block YAML at indentation 0, without a trailing newline. */
export function renderNode(node: Node, style: RenderStyle = {}): string {
  const doc = newDocument(style.version);
  doc.contents = node;
  const text = doc.toString(renderOptions(style));
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}

