import { invalidUtf8Result } from './input-encoding';
import { changesItems, failureResourceList, parseResourceList, serializeResourceList, type ResourceList } from './resource-list';
import { errorResult, FunctionError, hasError, type Result } from './results';
import { firstInvalidByte } from './utf8';

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

/**
 * Runs a processor over a ResourceList text (decoded by utf8.ts). Never throws: every failure becomes
 * an error result, exit code 1 and, when any error is reported, the input's items unchanged.
 */
export function runKrmFunction(input: string, processor: KrmProcessor): RunOutcome {
  let list: ResourceList;
  try {
    list = parseResourceList(input);
  } catch (error) {
    return { output: failureResourceList(resultsOf(error)), exitCode: 1 };
  }
  try {
    processor(list);
  } catch (error) {
    list.results.push(...resultsOf(error));
  }
  const invalidAt = firstInvalidByte(input);
  if (invalidAt !== -1 && !hasError(list.results) && changesItems(list)) list.results.push(invalidUtf8Result(list, invalidAt));
  const failed = hasError(list.results);
  try {
    return { output: serializeResourceList(list, { keepItems: failed }), exitCode: failed ? 1 : 0 };
  } catch (error) {
    list.results.push(...resultsOf(error));
    return { output: serializeResourceList(list, { keepItems: true }), exitCode: 1 };
  }
}
