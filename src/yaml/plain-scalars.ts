/**
 * How a plain (unquoted) scalar resolves, with the very schema the parser uses, so the fast reader
 * and writer (simple-block-read.ts, simple-block-write.ts) agree with `yaml` on every value.
 */
import { Document, isScalar, type ScalarTag } from 'yaml';
import { PARSE_OPTIONS } from './yaml-format';

const SCALAR_TAGS = (new Document(null, PARSE_OPTIONS).schema.tags as ScalarTag[]).filter((tag) => tag.default === true && tag.test !== undefined);

/**
 * Whether any tag may claim the text: the tags' own patterns in one, so that the usual string costs
 * one match instead of one per tag (at fleet scale, millions of scalars and keys are read and written).
 */
const ANY_TAG = new RegExp(SCALAR_TAGS.map((tag) => `(?:${tag.test!.source})`).join('|'));
if (SCALAR_TAGS.some((tag) => tag.test!.flags !== '')) throw new Error('a scalar tag pattern has flags; ANY_TAG cannot combine it');

/** The value of a plain scalar written `text`; `onError` is told when a tag cannot resolve it. */
export function resolvePlainScalar(text: string, onError: (message: string) => void): unknown {
  if (!ANY_TAG.test(text)) return text;
  const tag = SCALAR_TAGS.find((candidate) => candidate.test!.test(text));
  if (!tag) return text;
  const resolved: unknown = tag.resolve(text, onError, {});
  return isScalar(resolved) ? resolved.value : resolved;
}

/** The same, with the format the resolving tag records (`HEX`, `OCT`, `EXP`), as the parser's scalars carry it. */
export function resolvePlainScalarTag(text: string): { value: unknown; format?: string } {
  const tag = ANY_TAG.test(text) ? SCALAR_TAGS.find((candidate) => candidate.test!.test(text)) : undefined;
  if (!tag) return { value: text };
  const resolved: unknown = tag.resolve(text, outsideSubset, {});
  const value = isScalar(resolved) ? resolved.value : resolved;
  return tag.format === undefined ? { value } : { value, format: tag.format };
}

/** Whether `text`, written plain, reads back as that same string. */
export function readsBackAsString(text: string): boolean {
  return !ANY_TAG.test(text);
}

/**
 * The strings a check has accepted, remembered so that what every object repeats (its keys) is
 * checked once; bounded, so that strings that never repeat are checked every time once it is full.
 */
export class AcceptedStrings {
  private readonly accepted = new Set<string>();

  constructor(
    private readonly check: (text: string) => boolean,
    private readonly capacity = 10_000,
  ) {}

  accepts(text: string): boolean {
    if (this.accepted.has(text)) return true;
    if (!this.check(text)) return false;
    if (this.accepted.size < this.capacity) this.accepted.add(text);
    return true;
  }
}

/** Thrown by the fast reader and writer when the text or data leaves their subset; they catch it. */
export class OutsideSubset extends Error {}

export const outsideSubset = (): never => {
  throw new OutsideSubset();
};
