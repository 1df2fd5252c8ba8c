/**
 * How much input a run may hand to `yaml`'s parser. The fast reader (simple-block-read.ts) reads
 * most packages into plain data at a few hundred bytes an item; what it declines (escapes, anchors,
 * tags, multi-line scalars...), a list that cannot be read item by item, and every item a run edits
 * or merges become `yaml` node trees, which cost far more: about 0.5 KB a line and 2.5 KB a document
 * kept, and about 3 KB a line while a whole list is parsed at once. Bounding the parser's share
 * bounds the run's memory (README "Safety"); past the bound the run stops with an error result.
 */
import { groupDigits } from './group-digits';
import { errorResult, FunctionError } from './results';

/** Text, lines and documents (items) the parser may read in one run. */
export const MAX_PARSED_BYTES = 16 * 1024 * 1024;
export const MAX_PARSED_LINES = 500_000;
export const MAX_PARSED_DOCUMENTS = 100_000;
/** A list the line scan cannot split is parsed as one document, whose tokens all live at once. */
export const MAX_WHOLE_LIST_LINES = 250_000;

export function countLines(text: string): number {
  let lines = text.length > 0 && !text.endsWith('\n') ? 1 : 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines += 1;
  return lines;
}

const SAFETY = '(see "Safety" in the README)';

export interface ParseLimits {
  readonly bytes: number;
  readonly lines: number;
  readonly documents: number;
}

export const RUN_PARSE_LIMITS: ParseLimits = { bytes: MAX_PARSED_BYTES, lines: MAX_PARSED_LINES, documents: MAX_PARSED_DOCUMENTS };

/** What one run has handed to the parser so far. */
export class ParseBudget {
  private bytes = 0;
  private lines = 0;
  private documents = 0;

  constructor(private readonly limits: ParseLimits = RUN_PARSE_LIMITS) {}

  /** Counts a document the parser is about to read; throws FunctionError when it would go past a bound. */
  spend(text: string): void {
    const bytes = this.bytes + text.length;
    const lines = this.lines + countLines(text);
    const documents = this.documents + 1;
    const { limits } = this;
    const over =
      bytes > limits.bytes
        ? `${groupDigits(bytes)} characters`
        : lines > limits.lines
          ? `${groupDigits(lines)} lines`
          : documents > limits.documents
            ? `${groupDigits(documents)} documents`
            : undefined;
    if (over !== undefined) {
      throw new FunctionError(
        errorResult(
          `the input needs the full YAML parser for more than it reads in a run (${over}): it parses at most ${groupDigits(limits.bytes)} characters in ${groupDigits(limits.lines)} lines and ${groupDigits(limits.documents)} documents, for items outside the simple YAML the function reads itself and for the items a run changes ${SAFETY}`,
        ),
      );
    }
    this.bytes = bytes;
    this.lines = lines;
    this.documents = documents;
  }
}

/** Throws FunctionError when a list that must be parsed whole is beyond the parser's bounds for one document. */
export function checkWholeList(text: string, limits: { readonly bytes: number; readonly lines: number } = { bytes: MAX_PARSED_BYTES, lines: MAX_WHOLE_LIST_LINES }): void {
  const lines = countLines(text);
  if (lines <= limits.lines && text.length <= limits.bytes) return;
  throw new FunctionError(
    errorResult(
      `the input must be parsed as one YAML document (the line scan cannot read it item by item: anchors, tags, tabs, CRLF line ends, flow or JSON style, several documents, or results already in it), and it has ${groupDigits(text.length)} characters in ${groupDigits(lines)} lines: the function parses at most ${groupDigits(limits.bytes)} characters in ${groupDigits(limits.lines)} lines that way ${SAFETY}`,
    ),
  );
}
