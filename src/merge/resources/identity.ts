/**
 * Which resources are the same across origin, upstream and local: group (not version), kind,
 * namespace and name. A locally renamed resource keeps the identity it was fetched with through the
 * `# kpt-merge: ns/name` comment on `metadata`, or the `internal.kpt.dev/upstream-identifier`
 * annotation kpt writes. The file path is not part of identity, except for a document that names no
 * kind or no name: every map in a resource file is a resource, as in kpt. Kptfiles are one per
 * directory.
 * Identity holds within one package: the same kind and name in two subpackages are two resources.
 */
import { isMap, isScalar } from 'yaml';
import type { IdentityFacts } from '../../krm/identity-scan';
import type { KrmResource } from '../../krm/resource';
import type { Side } from '../elements/element';

/** One resource across the three versions: each side's copy, where that side has it. */
export type ResourceTuple = { [side in Side]?: KrmResource };

export const UPSTREAM_IDENTIFIER = 'internal.kpt.dev/upstream-identifier';

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? '' : apiVersion.slice(0, slash);
}

function directoryOf(path: string | undefined): string {
  if (!path) return '';
  const slash = path.lastIndexOf('/');
  return slash === -1 ? '' : path.slice(0, slash);
}

/** Identity keys, most specific first; a resource matches a tuple on any of them. */
export function identityKeysOf(facts: IdentityFacts): string[] {
  const group = groupOf(facts.apiVersion);
  if (group === 'kpt.dev' && facts.kind === 'Kptfile') return [`kpt.dev|Kptfile|${directoryOf(facts.path)}`];
  const keys = namedKeys(group, facts);
  // A document that names no kind or no name (a kustomization.yaml, a values file) is known by its
  // file as well, as kpt knows every resource: two of them are two resources, not one declared twice.
  return facts.kind === '' || keys.some((key) => key.endsWith('|')) ? keys.map((key) => `${key}|${facts.path ?? ''}`) : keys;
}

function namedKeys(group: string, facts: IdentityFacts): string[] {
  const prefix = `${group}|${facts.kind}`;
  const comment = facts.metadataComment?.trim().match(/^kpt-merge:\s*([^/\s]*)\/(\S+)\s*$/);
  if (comment) return [`${prefix}|${comment[1]}|${comment[2]}`];
  const parts = facts.upstreamIdentifier?.split('|');
  if (parts?.length === 4 && parts[0] === group && parts[1] === facts.kind && parts[3]) {
    // kpt writes "default" for a resource without a namespace.
    const namespaces = parts[2] === 'default' ? ['default', ''] : [parts[2] as string];
    return namespaces.map((ns) => `${prefix}|${ns}|${parts[3]}`);
  }
  return [`${prefix}|${facts.namespace}|${facts.name}`];
}

function metadataComment(resource: KrmResource): string | undefined {
  const root = resource.node;
  const pair = isMap(root) ? root.items.find((p) => isScalar(p.key) && p.key.value === 'metadata') : undefined;
  return isScalar(pair?.key) ? pair.key.comment ?? undefined : undefined;
}

export function identityKeys(resource: KrmResource): string[] {
  return identityKeysOf({
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    name: resource.name,
    namespace: resource.namespace ?? '',
    metadataComment: metadataComment(resource),
    upstreamIdentifier: resource.annotation(UPSTREAM_IDENTIFIER),
    path: resource.path,
  });
}

/** The keys within one package (scope '' is the root package). */
export function inScope(scope: string, keys: readonly string[]): string[] {
  return scope === '' ? [...keys] : keys.map((key) => `${scope}/:${key}`);
}

export function describeResource(resource: KrmResource): string {
  if (resource.kind === '' && resource.name === '') return `the document in ${resource.path ?? '(no path)'}${resource.fileIndex ? ` (document ${resource.fileIndex + 1})` : ''}`;
  const namespace = resource.namespace ? `${resource.namespace}/` : '';
  return `${resource.kind} ${namespace}${resource.name}${resource.path ? ` (${resource.path})` : ''}`;
}
