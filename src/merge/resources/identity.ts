/**
 * Which resources are the same across origin, upstream and local: group (not version), kind,
 * namespace and name. A locally renamed resource keeps the identity it was fetched with through the
 * `# kpt-merge: ns/name` comment on `metadata`, or the `internal.kpt.dev/upstream-identifier`
 * annotation kpt writes. The file path is not part of identity; Kptfiles are one per directory.
 */
import { isMap, isScalar } from 'yaml';
import type { KrmResource } from '../../krm/resource';

export const UPSTREAM_IDENTIFIER = 'internal.kpt.dev/upstream-identifier';

function mergeComment(resource: KrmResource): { namespace: string; name: string } | undefined {
  const root = resource.node;
  if (!isMap(root)) return undefined;
  const pair = root.items.find((p) => isScalar(p.key) && p.key.value === 'metadata');
  const comment = isScalar(pair?.key) ? pair.key.comment : undefined;
  const match = comment?.trim().match(/^kpt-merge:\s*([^/\s]*)\/(\S+)\s*$/);
  return match ? { namespace: match[1] as string, name: match[2] as string } : undefined;
}

function annotated(resource: KrmResource): { namespaces: string[]; name: string } | undefined {
  const parts = resource.annotation(UPSTREAM_IDENTIFIER)?.split('|');
  if (parts?.length !== 4) return undefined;
  const [group, kind, namespace, name] = parts as [string, string, string, string];
  if (group !== resource.group || kind !== resource.kind || !name) return undefined;
  // kpt writes "default" for a resource without a namespace.
  return { namespaces: namespace === 'default' ? ['default', ''] : [namespace], name };
}

function directoryOf(path: string | undefined): string {
  if (!path) return '';
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

/** Identity keys, most specific first; a resource matches a tuple on any of them. */
export function identityKeys(resource: KrmResource): string[] {
  if (resource.isKptfile) return [`kpt.dev|Kptfile|${directoryOf(resource.path)}`];
  const prefix = `${resource.group}|${resource.kind}`;
  const comment = mergeComment(resource);
  if (comment) return [`${prefix}|${comment.namespace}|${comment.name}`];
  const annotation = annotated(resource);
  if (annotation) return annotation.namespaces.map((ns) => `${prefix}|${ns}|${annotation.name}`);
  return [`${prefix}|${resource.namespace ?? ''}|${resource.name}`];
}

export function describeResource(resource: KrmResource): string {
  const namespace = resource.namespace ? `${resource.namespace}/` : '';
  return `${resource.kind} ${namespace}${resource.name}${resource.path ? ` (${resource.path})` : ''}`;
}
