/**
 * The merge key Porch's clone and upgrade put on every resource they write (Porch's mergekey.go,
 * kpt's AddMergeComment filter): a `# kpt-merge: <namespace>/<name>` comment on `metadata` and the
 * `internal.kpt.dev/upstream-identifier` annotation, so that a later upgrade knows each resource by
 * its upstream name. kpt's own update writes them too; `package-variant update` does not (README,
 * the update's departures from kpt), sync does, as it writes what Porch writes.
 */
import { isMap, isScalar, Scalar, type YAMLMap } from 'yaml';
import { UPSTREAM_IDENTIFIER } from '../merge/resources/identity';
import type { KrmResource } from '../krm/resource';
import { PackageResources } from '../package/resource-files';
import type { PackageTree } from '../package/tree';

const MERGE_COMMENT = 'kpt-merge:';

/** kpt's namespace for what cannot have one, which the identifier spells `~C`. */
const NOT_A_NAMESPACE = '_non_namespaceable_';

/**
 * kpt's AddMergeComment filter: on a resource that names anything (a name, a namespace or labels), a
 * `# kpt-merge: <namespace>/<name>` comment on `metadata` unless one is there, and the upstream
 * identifier `<group>|<kind>|<namespace, "default" when empty>|<name>` taken from the comment.
 */
export function addMergeKey(resource: KrmResource): void {
  const pair = resource.node.items.find((p) => isScalar(p.key) && p.key.value === 'metadata');
  if (!pair || !isScalar(pair.key) || !isMap(pair.value)) return;
  const namespace = resource.namespace ?? '';
  if (resource.name === '' && namespace === '' && !hasLabels(pair.value)) return;
  if (!pair.key.comment?.includes(MERGE_COMMENT)) {
    pair.key.comment = ` ${MERGE_COMMENT} ${namespace}/${resource.name}`;
    resource.markChanged();
  }
  // A comment that holds the marker but no `namespace/name` after it names the resource by its metadata.
  const [keyNamespace, keyName] = mergeKeyOf(pair.key.comment) ?? [namespace, resource.name];
  const shownNamespace = keyNamespace === '' ? 'default' : namespace === NOT_A_NAMESPACE ? '~C' : keyNamespace;
  const group = resource.apiVersion.includes('/') ? resource.apiVersion.slice(0, resource.apiVersion.indexOf('/')) : '';
  const identifier = `${group}|${resource.kind}|${shownNamespace}|${keyName}`;
  if (resource.annotation(UPSTREAM_IDENTIFIER) === identifier) return;
  // Single-quoted, as kyaml sets it (where Porch's upgrade writes a Kptfile again from its fields, plain).
  const value = new Scalar(identifier);
  value.type = 'QUOTE_SINGLE';
  resource.setIn(['metadata', 'annotations', UPSTREAM_IDENTIFIER], value);
}

/** The namespace and name a `kpt-merge:` comment gives, as kpt splits it (at the first `/`). */
function mergeKeyOf(comment: string): [string, string] | undefined {
  const text = comment.replace(/^#/, '').trim();
  if (!text.startsWith(MERGE_COMMENT)) return undefined;
  const rest = text.slice(MERGE_COMMENT.length).trim();
  const slash = rest.indexOf('/');
  return slash === -1 ? undefined : [rest.slice(0, slash), rest.slice(slash + 1)];
}

function hasLabels(metadata: YAMLMap): boolean {
  const labels = metadata.get('labels', true);
  return isMap(labels) && labels.items.length > 0;
}

/** The package with the merge key on each of its resources, as Porch's upgrade ends. */
export function withMergeKeys(tree: PackageTree): PackageTree {
  const resources = PackageResources.read(tree);
  for (const item of resources.items) addMergeKey(item);
  return resources.written(resources.items);
}
