/**
 * `kpt pkg get` writes every YAML file it fetches through its YAML writer: a file whose document is a
 * list or a scalar (a kustomize patch, a values list) comes out with a final line break, its
 * sequences re-indented, blank lines and document markers dropped, a `|` at its very end as `|-`,
 * and any resource in it with kpt's merge comment and identifier annotation. None of that is a local
 * change: local's file is unchanged where it is origin's, byte for byte or as that writer wrote it.
 */
import { isMap, isScalar, type Document } from 'yaml';
import { UPSTREAM_IDENTIFIER } from '../resources/identity';
import { sameYamlContent } from '../../yaml/same-yaml';

const MERGE_COMMENT = /^\s*kpt-merge:/;

/** A document without what `kpt pkg get` adds to a resource: the identifier annotation, the merge comment. */
function withoutBookkeeping(doc: Document): void {
  const root = doc.contents;
  if (!isMap(root)) return;
  const pair = root.items.find((p) => isScalar(p.key) && p.key.value === 'metadata');
  if (!pair || !isScalar(pair.key)) return;
  if (pair.key.comment && MERGE_COMMENT.test(pair.key.comment)) pair.key.comment = undefined;
  const metadata = pair.value;
  const annotations = isMap(metadata) ? metadata.get('annotations', true) : undefined;
  if (!isMap(metadata) || !isMap(annotations) || !annotations.has(UPSTREAM_IDENTIFIER)) return;
  annotations.delete(UPSTREAM_IDENTIFIER);
  if (annotations.items.length === 0) metadata.delete('annotations');
}

/** Whether `local` is `origin` as `kpt pkg get` wrote it (or as it was). */
export function fetchedAsWritten(local: string, origin: string): boolean {
  return sameYamlContent(local, origin, withoutBookkeeping);
}
