/**
 * A new downstream package cloned from its upstream, as Porch's clone task makes it
 * (porch-lifecycle.md §1 steps 2 to 5): the upstream's files; the root Kptfile's `metadata.name`
 * set to the downstream package, `upstream` and `upstreamLock` to the upstream revision; for a
 * deployment Repository the package context generated (porch-semantics.md §2.1); then, as Porch's
 * clone ends (its mergekey.go, kpt's AddMergeComment filter), on every resource the Kptfile and the
 * context included, a `# kpt-merge:` comment on `metadata` and the `internal.kpt.dev/upstream-identifier`
 * annotation, so a later upgrade knows each resource by its upstream name. sync adds its ownership
 * record (ownership.ts) to the Kptfile.
 */
import { isScalar, Pair, Scalar, type YAMLMap } from 'yaml';
import { LEGACY_PATH, LOCAL_CONFIG, PATH } from '../krm/annotations';
import { KrmResource } from '../krm/resource';
import { PackageResources } from '../package/resource-files';
import { KPTFILE } from '../package/scopes';
import type { PackageTree } from '../package/tree';
import { addMergeKey } from './merge-key';
import { setOwnership, type Ownership } from './ownership';

/** Where a package comes from, as its Kptfile records it. */
export interface UpstreamLock {
  readonly repo: string;
  /** The package's path in the upstream repository, without a leading slash. */
  readonly directory: string;
  /** The upstream revision's ref: its tag, `<path>/v<N>`. */
  readonly ref: string;
  readonly commit: string;
}

export interface CloneFacts {
  /** The downstream package's path in its repository, below the Repository's directory. */
  readonly packagePath: string;
  readonly lock: UpstreamLock;
  readonly ownership: Ownership;
  /** The Repository has `spec.deployment: true`: generate the package context. */
  readonly deployment: boolean;
}

export const PACKAGE_CONTEXT_FILE = 'package-context.yaml';
export const PACKAGE_CONTEXT_NAME = 'kptfile.kpt.dev';

/** `upstream` and `upstreamLock` as Porch's clone writes them: type git, and no update strategy. */
function upstreamRecords(lock: UpstreamLock): [string, unknown][] {
  const git = { repo: lock.repo, directory: lock.directory, ref: lock.ref };
  return [
    ['upstream', { type: 'git', git }],
    ['upstreamLock', { type: 'git', git: { ...git, commit: lock.commit } }],
  ];
}

/** Sets `key` in `map` to `value`, where it is, or, when new, right after `after` (kpt's field order). */
function setAfter(resource: KrmResource, map: YAMLMap, key: string, value: unknown, after: string): void {
  const node = resource.doc.createNode(value);
  const index = map.items.findIndex((pair) => isScalar(pair.key) && pair.key.value === key);
  if (index >= 0) map.items[index]!.value = node;
  else {
    const at = map.items.findIndex((pair) => isScalar(pair.key) && pair.key.value === after);
    map.items.splice(at + 1, 0, new Pair(new Scalar(key), node));
  }
  resource.markChanged();
}

function editKptfile(kptfile: KrmResource, facts: CloneFacts): void {
  const name = facts.packagePath.slice(facts.packagePath.lastIndexOf('/') + 1);
  kptfile.setIn(['metadata', 'name'], name);
  setOwnership(kptfile, facts.ownership);
  let after = 'metadata';
  for (const [key, value] of upstreamRecords(facts.lock)) {
    setAfter(kptfile, kptfile.node, key, value, after);
    after = key;
  }
}

/** The package context kpt's builtin generates: every `kptfile.kpt.dev` ConfigMap replaced by one at the root. */
function packageContext(name: string, packagePath: string): KrmResource {
  const context = KrmResource.fromData({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: PACKAGE_CONTEXT_NAME, annotations: { [LOCAL_CONFIG]: 'true' } },
    data: { name, 'package-path': packagePath },
  });
  context.setAnnotation(PATH, PACKAGE_CONTEXT_FILE);
  context.setAnnotation(LEGACY_PATH, PACKAGE_CONTEXT_FILE);
  return context;
}

const isPackageContext = (item: KrmResource): boolean => item.apiVersion === 'v1' && item.kind === 'ConfigMap' && item.name === PACKAGE_CONTEXT_NAME;

export class CloneError extends Error {}

export function clonePackage(upstream: PackageTree, facts: CloneFacts): PackageTree {
  const resources = PackageResources.read(upstream);
  const kptfile = resources.items.find((item) => item.isKptfile && item.path === KPTFILE);
  if (!kptfile) throw new CloneError(`the upstream package ${facts.lock.directory} at ${facts.lock.ref} has no Kptfile at its root`);
  editKptfile(kptfile, facts);
  const items = facts.deployment ? [...resources.items.filter((item) => !isPackageContext(item)), packageContext(kptfile.name, facts.packagePath)] : [...resources.items];
  // After the package context, as Porch's clone orders its steps: the context gets its key too.
  for (const item of items) addMergeKey(item);
  return resources.written(items);
}
