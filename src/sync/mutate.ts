/**
 * A variant's mutations of a package (package context, pipeline, injection), run by the function's
 * own PackageVariant step on the package's resources, with its labels and annotations
 * (variant-metadata.ts), and Porch's rule for whether they change it
 * (porch-lifecycle.md §3: a file more or less, or a different text; a Kptfile equal in meaning is
 * equal, so reformatting alone never makes a new revision).
 */
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import type { ConfigObject } from '../config/function-config';
import { ResourceList, RESOURCE_LIST_VERSIONS } from '../krm/resource-list';
import type { Result } from '../krm/results';
import { PackageResources } from '../package/resource-files';
import { KPTFILE } from '../package/scopes';
import type { PackageTree } from '../package/tree';
import { applyPackageVariant } from '../variant';
import { recordMetadata } from './variant-metadata';

export interface Mutated {
  readonly tree: PackageTree;
  readonly results: readonly Result[];
}

/**
 * The package with the variant's mutations, and its labels and annotations on the root Kptfile;
 * throws FunctionError naming what is wrong (Porch's validation errors among them).
 */
export function mutatePackage(tree: PackageTree, variant: ConfigObject, candidates: readonly ConfigObject[]): Mutated {
  const resources = PackageResources.read(tree);
  const list = new ResourceList(RESOURCE_LIST_VERSIONS[0], [...resources.items], undefined);
  applyPackageVariant(list, variant, candidates);
  const kptfile = list.items.find((item) => item.isKptfile && item.path === KPTFILE);
  if (kptfile) recordMetadata(kptfile, variant);
  return { tree: resources.written(list.items), results: list.results };
}

const KPTFILE_NAME = /(^|\/)Kptfile$/;

function sameKptfile(a: string, b: string): boolean {
  try {
    return isDeepStrictEqual(parse(a), parse(b));
  } catch {
    return false;
  }
}

/** Porch's "differs": file count, a missing file, a different text; Kptfiles compared by meaning. */
export function packagesDiffer(before: PackageTree, after: PackageTree): boolean {
  if (before.files.size !== after.files.size) return true;
  for (const [path, file] of before.files) {
    const other = after.files.get(path);
    if (!other) return true;
    if (file.bytes.equals(other.bytes)) continue;
    if (!KPTFILE_NAME.test(path) || !sameKptfile(file.bytes.toString('utf8'), other.bytes.toString('utf8'))) return true;
  }
  return false;
}

