/** Results as the KRM functions spec defines them (severity `warning`, `proposedValue`). */
export type Severity = 'error' | 'warning' | 'info';

export interface ResourceRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

export interface Result {
  message: string;
  severity: Severity;
  resourceRef?: ResourceRef;
  field?: { path: string; currentValue?: unknown; proposedValue?: unknown };
  file?: { path: string; index?: number };
  tags?: Record<string, string>;
}

export function hasError(results: readonly Result[]): boolean {
  return results.some((r) => r.severity === 'error');
}

/** An error the function reports as results instead of a stack trace. */
export class FunctionError extends Error {
  readonly results: Result[];

  constructor(results: Result | Result[]) {
    const list = Array.isArray(results) ? results : [results];
    super(list.map((r) => r.message).join('; '));
    this.results = list;
  }
}

export function errorResult(message: string, extra: Omit<Result, 'message' | 'severity'> = {}): Result {
  return { message, severity: 'error', ...extra };
}

/** Plain-data form in spec field order, so results serialise deterministically. */
export function resultToPlain(result: Result): Record<string, unknown> {
  const plain: Record<string, unknown> = { message: result.message, severity: result.severity };
  if (result.resourceRef) {
    const { apiVersion, kind, name, namespace } = result.resourceRef;
    plain.resourceRef = namespace ? { apiVersion, kind, name, namespace } : { apiVersion, kind, name };
  }
  if (result.field) plain.field = result.field;
  if (result.file) plain.file = result.file;
  if (result.tags) plain.tags = result.tags;
  return plain;
}
