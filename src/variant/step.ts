/** What each mutation step returns, and the results the steps report. */
import type { ConfigObject } from '../config/function-config';
import type { KrmResource } from '../krm/resource';
import { errorResult, type ResourceRef, type Result, type Severity } from '../krm/results';

/**
 * A step checked but not yet applied. `errors` lists every problem found before anything changed;
 * `apply` runs only when no step of the run has errors, edits the items, and returns what it did.
 */
export interface Step {
  readonly errors: Result[];
  apply(): Result[];
}

function variantRef(variant: ConfigObject): ResourceRef {
  const { name, namespace } = variant.metadata;
  return { apiVersion: variant.apiVersion, kind: variant.kind, name, ...(namespace ? { namespace } : {}) };
}

/** An error in the PackageVariant itself, pointing at the field. */
export function variantError(variant: ConfigObject, message: string, field: string): Result {
  return errorResult(`PackageVariant ${variant.metadata.name}: ${message}`, { resourceRef: variantRef(variant), field: { path: field } });
}

/** A result about a package item, with its identity and file. */
export function itemResult(resource: KrmResource, severity: Severity, message: string, field?: string): Result {
  const file = resource.fileRef();
  return { message, severity, resourceRef: resource.ref(), ...(field ? { field: { path: field } } : {}), ...(file ? { file } : {}) };
}

/** `ConfigMap foo (file.yaml)`: enough for a user to find the item. */
export function describeItem(resource: KrmResource): string {
  const where = [resource.path, resource.namespace ? `namespace ${resource.namespace}` : undefined].filter(Boolean).join(', ');
  return `${resource.kind} ${resource.name}${where ? ` (${where})` : ''}`;
}
