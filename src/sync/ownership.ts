/**
 * Who owns a downstream package, recorded in git: Porch keeps a PackageVariant's ownership in
 * PackageRevision metadata outside git (porch-lifecycle.md §1, §11.2), which a cluster-less sync does
 * not have. The root Kptfile of every package sync writes carries two annotations under this
 * project's own prefix (a domain of the project's GitHub organisation, not Porch's): the owner and
 * the deletion policy it was created with, so that the policy holds after the variant is gone.
 */
import type { KrmResource } from '../krm/resource';
import { PackageResources } from '../package/resource-files';
import { KPTFILE } from '../package/scopes';
import type { PackageTree } from '../package/tree';

export const OWNER_ANNOTATION = 'package-variant.github.io/owner';
export const DELETION_POLICY_ANNOTATION = 'package-variant.github.io/deletion-policy';

export type DeletionPolicy = 'delete' | 'orphan';

/** A variant as an owner: `PackageVariant/<namespace>/<name>`, or `PackageVariantSet/<namespace>/<set>` for the variants a set makes. */
export function ownerOf(kind: 'PackageVariant' | 'PackageVariantSet', namespace: string | undefined, name: string): string {
  return `${kind}/${namespace || 'default'}/${name}`;
}

export interface Ownership {
  readonly owner: string;
  readonly deletionPolicy: DeletionPolicy;
}

/** Records `ownership` on a root Kptfile. */
export function setOwnership(kptfile: KrmResource, ownership: Ownership): void {
  kptfile.setAnnotation(OWNER_ANNOTATION, ownership.owner);
  kptfile.setAnnotation(DELETION_POLICY_ANNOTATION, ownership.deletionPolicy);
}

/** The package with `ownership` recorded on its root Kptfile (the package as it was, when it holds it already or has no Kptfile). */
export function withOwnership(tree: PackageTree, ownership: Ownership): PackageTree {
  const resources = PackageResources.read(tree);
  const kptfile = resources.items.find((item) => item.isKptfile && item.path === KPTFILE);
  if (!kptfile) return tree;
  setOwnership(kptfile, ownership);
  return kptfile.isChanged ? resources.written(resources.items) : tree;
}
