/**
 * The text of a changed resource as it goes back to its file, for a reviewer to read (issue 11):
 *
 * - in the document's own sequence indentation, wide or compact, decided as kpt decides it
 *   (seq-indent.ts);
 * - with the document's comments, header and trailer included;
 * - every line the change did not touch kept byte for byte. The previous text is rendered as it is
 *   (`base`) and as changed (`fresh`); where the previous text's layout differs from the rendering
 *   (spacing, comment columns, a sequence in the other style), a three-way line merge carries
 *   those lines over into the changed text. The result is used only if it reads back exactly as
 *   `fresh` does; otherwise `fresh` is written.
 *
 * Texts here use `\n`; a file's line endings are restored when it is written (yaml-stream.ts).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Document, Node } from 'yaml';
import { mergeLines } from './line-merge';
import { deriveSeqIndent, findSeqIndent, type SeqIndent } from './seq-indent';
import { renderSimpleDocument } from './renderer';
import { sameDocumentTree } from './same-tree';
import { readDocument } from './tree-builder';
import { newDocument, renderOptions, yamlVersionOf, type RenderStyle, type YamlVersion } from './yaml-format';

interface DocumentComments {
  readonly commentBefore?: string | null;
  readonly comment?: string | null;
}

/** A whole document: its contents with its own comments, ending with a newline. */
export function renderDocument(contents: Node | null, comments: DocumentComments, style: RenderStyle): string {
  const simple = renderSimpleDocument(contents, comments, style);
  if (simple !== undefined) return simple;
  const doc = newDocument(style.version);
  doc.contents = contents;
  doc.commentBefore = comments.commentBefore ?? null;
  doc.comment = comments.comment ?? null;
  return doc.toString(renderOptions(style));
}

/** A document's text read and rendered again in `style`; undefined when it does not parse. */
export function renderText(text: string, style: RenderStyle): string | undefined {
  const doc = readDocument(text, style.version);
  if (doc.errors.length > 0) return undefined;
  return renderDocument(doc.contents as Node | null, doc, style);
}

/**
 * The style a document's text is kept in: its sequence indentation and YAML version. A text without
 * a sequence that decides takes `fallback` (the indentation of upstream's version of it), else compact.
 */
export function documentStyle(text: string, version: YamlVersion, fallback?: SeqIndent): RenderStyle {
  return { seqIndent: fallback === undefined ? deriveSeqIndent(text) : (findSeqIndent(text) ?? fallback), version };
}

/** What a changed resource was read from. */
export interface PreviousText {
  readonly text: string;
  /**
   * Its rendering in its style as read, before any edit (`renderDocument` of the parse, see
   * `renderAsRead`), where the caller made one: spares reading `text` again.
   */
  readonly rendered?: string;
  /** The indentation new sequences take where `text` has none: upstream's, as kpt writes them. */
  readonly fallbackSeqIndent?: SeqIndent;
}

/** A document's rendering as read, to keep for `PreviousText.rendered` before its resource is edited. */
export function renderAsRead(text: string, doc: Document): string {
  const original = text.replace(/\r\n/g, '\n');
  return renderDocument(doc.contents as Node | null, doc, documentStyle(original, yamlVersionOf(doc)));
}

/**
 * The new text of a document whose resource (`contents`, read into `doc`) changed. `previous` is
 * what it was read from, when there is one: the local file's document, or upstream's for a resource
 * upstream added, whose own layout then carries over.
 */
export function rewriteDocument(contents: Node, doc: Document, previous: PreviousText | undefined): string {
  const version = yamlVersionOf(doc);
  if (previous === undefined) return renderDocument(contents, doc, { version });
  const original = previous.text.replace(/\r\n/g, '\n');
  const style = documentStyle(original, version, previous.fallbackSeqIndent);
  let base = previous.rendered;
  if (base === undefined) {
    // A resource written as it was read (an upstream one nothing changed) is its text, unrendered.
    const asRead = readDocument(original, version);
    if (asRead.errors.length === 0 && sameDocumentTree(contents, doc, asRead)) return original;
    base = asRead.errors.length > 0 ? undefined : renderDocument(asRead.contents as Node | null, asRead, style);
  }
  const fresh = renderDocument(contents, doc, style);
  if (base === fresh) return original;
  if (base === undefined || base === original) return fresh;
  const merged = mergeLines(base.split('\n'), original.split('\n'), fresh.split('\n'))?.join('\n');
  const text = merged !== undefined && renderText(merged, style) === fresh ? merged : fresh;
  // A file that ends without a newline keeps ending so.
  return original.endsWith('\n') ? text : withoutFinalBreak(text, version);
}

/**
 * The text without its final line break, unless that changes what it reads as: the last line of a
 * `|` or `>` scalar keeps its line break only where there is one (YAML 1.2 §8.1.1.2), and only an
 * indented line can be one.
 */
function withoutFinalBreak(text: string, version: YamlVersion): string {
  const stripped = text.replace(/\n$/, '');
  if (stripped.charCodeAt(stripped.lastIndexOf('\n') + 1) !== 32) return stripped;
  return isDeepStrictEqual(readDocument(stripped, version).toJS(), readDocument(text, version).toJS()) ? stripped : text;
}
