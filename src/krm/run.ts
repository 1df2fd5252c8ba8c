import { appendAll } from '../yaml/append';
import { invalidUtf8Result } from './input-encoding';
import { MAX_SCALAR_CHARS, oversizedScalars } from './input-limits';
import { escapingPaths, noEscapeInText } from './package-paths';
import type { KrmResource } from './resource';
import { failureResourceList, parseResourceList, resourceListPieces, type ResourceList } from './resource-list';
import { errorResult, FunctionError, hasError, type Result } from './results';
import { firstInvalidByte } from '../yaml/utf8';

export type KrmProcessor = (list: ResourceList) => void;

export interface RunOutcome {
  output: string;
  exitCode: number;
}

function resultsOf(error: unknown): Result[] {
  if (error instanceof FunctionError) return error.results;
  const message = error instanceof Error ? error.message : String(error);
  if (process.env.PACKAGE_VARIANT_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  return [errorResult(`internal error: ${message} (set PACKAGE_VARIANT_DEBUG=1 for details)`)];
}

/** Whether the output items differ from the input's: any added, removed, reordered or changed. */
function alters(input: readonly KrmResource[], output: readonly KrmResource[]): boolean {
  return input.length !== output.length || output.some((item, i) => item !== input[i] || item.isChanged);
}

/**
 * Runs a processor over a ResourceList text (decoded by utf8.ts) and hands the output to `write`,
 * piece by piece, once nothing can fail any more. Never throws: every failure becomes an error
 * result, exit code 1 and, when any error is reported, the input's items unchanged. Returns the
 * exit code.
 */
export function streamKrmFunction(input: string, processor: KrmProcessor, write: (piece: string) => void): number {
  const pieces = outputPieces(input, processor);
  for (const piece of pieces.pieces) write(piece);
  return pieces.exitCode;
}

/** The same, with the output in one string. */
export function runKrmFunction(input: string, processor: KrmProcessor): RunOutcome {
  const pieces: string[] = [];
  const exitCode = streamKrmFunction(input, processor, (piece) => pieces.push(piece));
  return { output: pieces.join(''), exitCode };
}

function outputPieces(input: string, processor: KrmProcessor): { pieces: string[]; exitCode: number } {
  let list: ResourceList;
  try {
    list = parseResourceList(input);
  } catch (error) {
    return { pieces: [failureResourceList(resultsOf(error))], exitCode: 1 };
  }
  const spans = list.source?.layout.spans;
  const itemLength = (item: KrmResource) => {
    const span = spans?.get(item);
    return span && span.end - span.dash;
  };
  const oversized = oversizedScalars(list.items, list.functionConfig, input.length, MAX_SCALAR_CHARS, itemLength);
  if (oversized.length > 0) {
    appendAll(list.results, oversized);
    return { pieces: resourceListPieces(list, { keepItems: true }), exitCode: 1 };
  }
  const inputItems = [...list.items];
  try {
    processor(list);
  } catch (error) {
    appendAll(list.results, resultsOf(error));
  }
  if (!hasError(list.results) && alters(inputItems, list.items)) {
    appendAll(list.results, escapingPaths(list.items, noEscapeInText(input)));
    const invalidAt = firstInvalidByte(input);
    if (invalidAt !== -1) list.results.push(invalidUtf8Result(list, invalidAt));
  }
  const failed = hasError(list.results);
  try {
    return { pieces: resourceListPieces(list, { keepItems: failed }), exitCode: failed ? 1 : 0 };
  } catch (error) {
    appendAll(list.results, resultsOf(error));
    return { pieces: resourceListPieces(list, { keepItems: true }), exitCode: 1 };
  }
}
