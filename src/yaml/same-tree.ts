/**
 * Whether two node trees are the same node for node: the same classes and the same own properties
 * (values, scalar types and formats, kept spellings, flow styles, comments, blank lines), source
 * ranges and tokens aside. The renderer writes a tree from exactly these, so two such trees render
 * alike; telling it costs a walk, where rendering costs two renders.
 */
import type { Document } from 'yaml';

const NOT_RENDERED = new Set(['range', 'srcToken']);

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  const keys = (o: object) => Object.keys(o).filter((key) => !NOT_RENDERED.has(key) && (o as Record<string, unknown>)[key] !== undefined);
  const [ka, kb] = [keys(a), keys(b)];
  return ka.length === kb.length && ka.every((key) => sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** Whether `contents`, with `comments`' own comments, is the tree of `doc`. */
export function sameDocumentTree(contents: unknown, comments: Pick<Document, 'commentBefore' | 'comment'>, doc: Document): boolean {
  return (comments.commentBefore ?? null) === (doc.commentBefore ?? null) && (comments.comment ?? null) === (doc.comment ?? null) && sameValue(contents, doc.contents);
}
