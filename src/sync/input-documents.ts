/**
 * The documents of sync's input files, read under the function's input limits (README "Safety"),
 * since a fleet file is the same data the function takes from kpt: at most 64 MiB in 2,500,000
 * lines and flow entries across the files of a run, counted as they are read (a larger file is not
 * read to its end); each document read by the fast reader where it can, else handed to `yaml`'s
 * parser within the function's budget (nesting depth included), aliases expanded at most 100 times.
 * Every refusal names the file and the line.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { LineCounter, type Node } from 'yaml';
import { MAX_INPUT_BYTES, MAX_INPUT_UNITS } from '../krm/input-bounds';
import type { LineLocator } from '../krm/list-model';
import { errorResult, FunctionError } from '../krm/results';
import { readSimpleBlockMap } from '../yaml/data-reader';
import { groupDigits } from '../yaml/group-digits';
import { ParseBudget, ParseBudgetExceeded } from '../yaml/parse-budget';
import { countUnits } from '../yaml/text-units';
import { parseYaml } from '../yaml/yaml-format';
import { splitYamlStream, type StreamDocument } from '../yaml/yaml-stream';

/** Input that cannot be read or is not valid; the message names every problem, file and line. */
export class InputError extends Error {}

/** A document of an input file, read. */
export interface InputDocument {
  /** `file`, or `file (document 2)`. */
  readonly where: string;
  readonly file: string;
  readonly data: unknown;
  /** The document's node, parsed when a problem is to be located; FunctionError past the parser's budget. */
  readonly node: () => Node;
  /** The file's lines and columns, for offsets in the node's text. */
  readonly lines: LineLocator;
}

const SAFETY = '(see "Safety" in the README)';
const LIMITS = `sync reads at most ${groupDigits(MAX_INPUT_BYTES)} bytes in ${groupDigits(MAX_INPUT_UNITS)} lines and flow entries of input files in a run, as the function does ${SAFETY}`;
const CHUNK_BYTES = 1024 * 1024;
/** Aliases a document may expand, as the function allows. */
const MAX_ALIAS_COUNT = 100;

/** What the input files of one run have spent of the limits. */
export class InputShare {
  private bytes = 0;
  private units = 0;
  /** For documents outside the fast reader's subset. */
  readonly parse = new ParseBudget();
  /** For the parses that locate a problem in a document the fast reader took. */
  readonly locate = new ParseBudget();

  /** The file's text, read only as far as the limit; throws InputError past it. */
  read(file: string): string {
    const chunks: Buffer[] = [];
    const fd = openSync(file, 'r');
    try {
      for (;;) {
        const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
        const read = readSync(fd, chunk, 0, CHUNK_BYTES, null);
        if (read === 0) break;
        this.bytes += read;
        if (this.bytes > MAX_INPUT_BYTES) throw new InputError(`${file}: more than ${groupDigits(MAX_INPUT_BYTES)} bytes of input files with those before it: ${LIMITS}`);
        chunks.push(chunk.subarray(0, read));
      }
    } finally {
      closeSync(fd);
    }
    const text = Buffer.concat(chunks).toString('utf8');
    this.units += countUnits(text);
    if (this.units > MAX_INPUT_UNITS) throw new InputError(`${file}: ${groupDigits(this.units)} lines and flow entries of input files with those before it: ${LIMITS}`);
    return text;
  }
}

/** How many line breaks `text` holds from `from` to `to`. */
function breaksBetween(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) count += 1;
  return count;
}

/** The line (from 1) of `text` where `offset` lies. */
const lineAt = (text: string, offset: number): number => 1 + breaksBetween(text, 0, offset);

/** Lines and columns of the file, for offsets in the text of a document that starts on `firstLine`. */
function fileLines(counter: LineCounter, firstLine: number): LineLocator {
  return {
    linePos: (offset) => {
      const { line, col } = counter.linePos(offset);
      return { line: line + firstLine - 1, col };
    },
  };
}

/** The document parsed, within `budget`; its data, or a problem naming the file and line. */
function parsed(doc: StreamDocument, file: string, where: string, firstLine: number, budget: ParseBudget): { data: unknown; node: Node; lines: LineLocator } | string {
  const at = (offset: number) => `${file} line ${firstLine + lineAt(doc.text, offset) - 1}`;
  try {
    budget.spend(doc.text);
  } catch (error) {
    if (!(error instanceof ParseBudgetExceeded)) throw error;
    throw new InputError(`${where}: ${error.message} (${file} line ${firstLine + (error.line ?? 1) - 1})`);
  }
  const counter = new LineCounter();
  const { doc: yaml } = parseYaml(doc.text, { lineCounter: counter, releaseTokens: true, ...(doc.version ? { version: doc.version } : {}) });
  const error = yaml.errors[0];
  if (error) return `${where}: not valid YAML: ${error.message.split('\n')[0]} (${at(error.pos[0])})`;
  try {
    return { data: yaml.toJS({ maxAliasCount: MAX_ALIAS_COUNT }), node: yaml.contents as Node, lines: fileLines(counter, firstLine) };
  } catch (failure) {
    return `${where}: its YAML aliases expand too far to be read safely: ${(failure as Error).message} (${at(0)})`;
  }
}

/**
 * The documents of `file`, within what `share` leaves; a document that is not YAML adds a problem
 * and is passed over; a limit passed throws InputError.
 */
export function readInputDocuments(file: string, share: InputShare, problems: string[]): InputDocument[] {
  const text = share.read(file);
  const docs = splitYamlStream(text);
  const documents: InputDocument[] = [];
  // Lines counted on from one document to the next: a fleet file may hold a hundred thousand.
  let lines = 1;
  let counted = 0;
  docs.forEach((doc, index) => {
    const where = docs.length > 1 ? `${file} (document ${index + 1})` : file;
    lines += breaksBetween(text, counted, doc.start);
    counted = doc.start;
    const firstLine = lines;
    const data = doc.version === '1.1' ? undefined : readSimpleBlockMap(doc.text);
    if (data !== undefined) {
      // Parsed only to point at a problem, within a budget of its own: past it, the problem has no line.
      let located: LineLocator | undefined;
      const node = (): Node => {
        let read: ReturnType<typeof parsed>;
        try {
          read = parsed(doc, file, where, firstLine, share.locate);
        } catch (error) {
          if (error instanceof InputError) throw new FunctionError(errorResult(error.message));
          throw error;
        }
        if (typeof read === 'string') throw new FunctionError(errorResult(read));
        located = read.lines;
        return read.node;
      };
      documents.push({ where, file, data, node, lines: { linePos: (offset) => located!.linePos(offset) } });
      return;
    }
    const read = parsed(doc, file, where, firstLine, share.parse);
    if (typeof read === 'string') problems.push(read);
    else documents.push({ where, file, data: read.data, node: () => read.node, lines: read.lines });
  });
  return documents;
}
