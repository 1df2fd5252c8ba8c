/**
 * How much input a run may hand to `yaml`'s parser. The fast reader (data-reader.ts) reads
 * most packages into plain data at a few hundred bytes an item; what it declines (anchors, tags,
 * multi-line scalars...), a list that cannot be read item by item, and every item a run edits
 * or merges become `yaml` node trees, which cost far more: about 0.5 KB a line and 2.5 KB a document
 * kept, and 2 to 4 KB a line or flow entry while a document is parsed. Bounding the parser's share
 * bounds the run's memory (README "Safety"); past a bound the run stops with an error result. A
 * document nested too deeply for the parser's recursion is refused here too (nesting-depth.ts).
 *
 * The parser's work is counted in units, lines and flow entries (text-units.ts).
 */
import { groupDigits } from './group-digits';
import { MAX_NESTING_DEPTH, nestingDepth } from './nesting-depth';
import { countUnits } from './text-units';

/** A bound of the parser's share was reached; the message says which, for the caller's own report. */
export class ParseBudgetExceeded extends Error {
  /** The line of the document (from 1) where it was reached, where one line did. */
  line?: number;
}

/** How a caller reports a bound reached: the function as an error result, the update as a file's error. */
export type Refusal = (message: string) => Error;

const exceeded: Refusal = (message) => new ParseBudgetExceeded(message);

/** Characters, units and documents (items) the parser may read in one run. */
export const MAX_PARSED_BYTES = 16 * 1024 * 1024;
export const MAX_PARSED_UNITS = 600_000;
export const MAX_PARSED_DOCUMENTS = 100_000;
/** Units of one document, whose tokens all live at once: an item, or a list the line scan cannot split. */
export const MAX_DOCUMENT_UNITS = 250_000;

const SAFETY = '(see "Safety" in the README)';
/** What the bounds count, in the words of their messages. */
export const UNITS = 'lines and flow entries';

export interface ParseLimits {
  readonly bytes: number;
  readonly units: number;
  readonly documents: number;
  readonly documentUnits: number;
}

export const RUN_PARSE_LIMITS: ParseLimits = { bytes: MAX_PARSED_BYTES, units: MAX_PARSED_UNITS, documents: MAX_PARSED_DOCUMENTS, documentUnits: MAX_DOCUMENT_UNITS };

/** What one run has handed to the parser so far. */
export class ParseBudget {
  private bytes = 0;
  private units = 0;
  private documents = 0;

  constructor(
    private readonly limits: ParseLimits = RUN_PARSE_LIMITS,
    private readonly refuse: Refusal = exceeded,
  ) {}

  /** Counts a document the parser is about to read; refuses when it would go past a bound, or nests too deeply for it. */
  spend(text: string): void {
    const { limits } = this;
    const units = countUnits(text);
    const bytes = this.bytes + text.length;
    const total = this.units + units;
    const documents = this.documents + 1;
    const over =
      bytes > limits.bytes
        ? `${groupDigits(bytes)} characters`
        : units > limits.documentUnits
          ? `${groupDigits(units)} ${UNITS} in one item`
          : total > limits.units
            ? `${groupDigits(total)} ${UNITS}`
            : documents > limits.documents
              ? `${groupDigits(documents)} documents`
              : undefined;
    if (over !== undefined) {
      throw this.refuse(
        `the input needs the full YAML parser for more than it reads in a run (${over}): it parses at most ${groupDigits(limits.bytes)} characters, ${groupDigits(limits.units)} ${UNITS} (${groupDigits(limits.documentUnits)} in one item) and ${groupDigits(limits.documents)} documents, for items outside the simple YAML the function reads itself and for the items a run changes ${SAFETY}`,
      );
    }
    const nesting = nestingDepth(text);
    if (nesting.line !== undefined) {
      const refusal = this.refuse(`nested too deeply: past ${groupDigits(MAX_NESTING_DEPTH)} levels at line ${groupDigits(nesting.line)} of its document; YAML nested deeper than that is not read ${SAFETY}`);
      if (refusal instanceof ParseBudgetExceeded) refusal.line = nesting.line;
      throw refusal;
    }
    this.bytes = bytes;
    this.units = total;
    this.documents = documents;
  }
}
