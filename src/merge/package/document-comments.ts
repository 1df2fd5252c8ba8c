/**
 * A document's own comments, which `yaml` keeps on the document rather than on a resource's fields
 * (a licence header followed by a blank line, comments after the content), follow the README's
 * comment rule as a resource's comments do: where local left them as origin had them, upstream's
 * are taken, so a header upstream moved to a document it added above is not left behind twice.
 */
import type { Document } from 'yaml';
import type { KrmResource } from '../../krm/resource';
import type { ResourceTuple } from '../resources/identity';

const KEYS = ['commentBefore', 'comment'] as const;

const text = (doc: Document | undefined, key: (typeof KEYS)[number]) => doc?.[key] ?? '';

/** Takes upstream's document comments into each local resource's document where the rule says so; such a resource is changed. */
export function mergeDocumentComments(items: readonly KrmResource[], counterparts: ReadonlyMap<KrmResource, ResourceTuple>): void {
  for (const item of items) {
    const { origin, upstream, local } = counterparts.get(item) ?? {};
    if (local !== item || !origin || !upstream) continue;
    for (const key of KEYS) {
      const was = text(origin.doc, key);
      if (text(local.doc, key) !== was || text(upstream.doc, key) === was) continue;
      local.doc[key] = upstream.doc[key] ?? null;
      local.markChanged();
    }
  }
}
