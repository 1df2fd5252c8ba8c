/**
 * How a plain (unquoted) scalar resolves, with the very schema the parser uses, so the fast reader
 * and writer (simple-block-read.ts, simple-block-write.ts) agree with `yaml` on every value.
 */
import { Document, isScalar, type ScalarTag } from 'yaml';
import { PARSE_OPTIONS } from './yaml-format';

const SCALAR_TAGS = (new Document(null, PARSE_OPTIONS).schema.tags as ScalarTag[]).filter((tag) => tag.default === true && tag.test !== undefined);

/** The value of a plain scalar written `text`; `onError` is told when a tag cannot resolve it. */
export function resolvePlainScalar(text: string, onError: (message: string) => void): unknown {
  const tag = SCALAR_TAGS.find((candidate) => candidate.test!.test(text));
  if (!tag) return text;
  const resolved: unknown = tag.resolve(text, onError, {});
  return isScalar(resolved) ? resolved.value : resolved;
}

/** Whether `text`, written plain, reads back as that same string. */
export function readsBackAsString(text: string): boolean {
  return !SCALAR_TAGS.some((tag) => tag.test!.test(text));
}

/** Thrown by the fast reader and writer when the text or data leaves their subset; they catch it. */
export class OutsideSubset extends Error {}

export const outsideSubset = (): never => {
  throw new OutsideSubset();
};
