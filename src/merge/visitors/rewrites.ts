/**
 * Upstream's rewrites: comments, and spellings that mean the same (a key field's default written out
 * or left out). They are not changes: they never override a local value and never conflict. But
 * where local left a value exactly as origin had it, comments included, upstream's rewrite of it is
 * taken (setter comments drive `apply-setters`), and a comment upstream removed goes. Maps and lists
 * merged inside take their own comments by this rule, and their fields and elements each by theirs.
 */
import type { Element, MapField } from '../elements/element';
import { same, sameAsWritten } from '../elements/same';
import { hasValue, sameComments, sameOwnComments } from '../yaml-values';

function rewrittenUpstream(element: Element): boolean {
  return !sameAsWritten(element, 'upstream', 'origin') || !sameComments(element.slots.upstream, element.slots.origin);
}

/** A map or list upstream rewrote at or below it (its data unchanged): merged inside, where each part decides. */
export function upstreamRewroteInside(element: Element): boolean {
  return hasValue(element.slots.local) && hasValue(element.slots.upstream) && rewrittenUpstream(element);
}

/** A value merged whole that upstream rewrote and local left exactly as origin had it. */
export function takesUpstreamRewrite(element: Element): boolean {
  return sameAsWritten(element, 'local', 'origin') && sameComments(element.slots.local, element.slots.origin) && rewrittenUpstream(element);
}

/** A map or list merged inside: its own comments, which local left alone and upstream changed. */
export function takesUpstreamOwnComments(element: Element): boolean {
  const { origin, upstream, local } = element.slots;
  return hasValue(local) && hasValue(upstream) && sameOwnComments(local, origin) && !sameOwnComments(upstream, origin);
}

/** A field's key comments (the lines above it, the comment after `key:`), for a value local did not change. */
export function takesUpstreamKeyComments(field: MapField): boolean {
  const { origin, upstream, local } = field.pairs;
  if (!local || !upstream || !sameOwnComments(local.key, origin?.key) || sameOwnComments(upstream.key, origin?.key)) return false;
  const nested = field.element.kind === 'map' || field.element.kind === 'keyed-list';
  return nested || same(field.element, 'local', 'origin');
}
