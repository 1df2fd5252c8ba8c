import type { Result } from '../krm/results';

/** One line a result, as kpt prints them: `[warning] v1/ConfigMap/app data.k: message`. */
export function formatResult(result: Result): string {
  const ref = result.resourceRef && (result.resourceRef.kind || result.resourceRef.name) ? ` ${result.resourceRef.apiVersion}/${result.resourceRef.kind}/${result.resourceRef.namespace ? `${result.resourceRef.namespace}/` : ''}${result.resourceRef.name}` : '';
  // A message that names its field already says it once: the line stays short.
  const field = result.field?.path && !result.message.includes(result.field.path) ? ` ${result.field.path}` : '';
  return `[${result.severity}]${ref}${field}: ${result.message}`;
}
