/** The two package files the mutations edit besides injection points: the root Kptfile and the package context. */
import type { KrmResource } from '../krm/resource';

export const PACKAGE_CONTEXT_NAME = 'kptfile.kpt.dev';
export const PACKAGE_CONTEXT_FILE = 'package-context.yaml';

// Porch addresses both files by their path at the package root; items without a path (a
// hand-built ResourceList) are taken as being at the root.
const atRoot = (resource: KrmResource, file: string) => resource.path === undefined || resource.path === file;

export function rootKptfiles(items: readonly KrmResource[]): KrmResource[] {
  return items.filter((item) => item.isKptfile && atRoot(item, 'Kptfile'));
}

export function packageContexts(items: readonly KrmResource[]): KrmResource[] {
  // The name first: it rules out every item but one, reading one field.
  return items.filter((item) => item.name === PACKAGE_CONTEXT_NAME && item.apiVersion === 'v1' && item.kind === 'ConfigMap' && atRoot(item, PACKAGE_CONTEXT_FILE));
}
