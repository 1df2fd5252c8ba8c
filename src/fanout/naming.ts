/**
 * Names and ownership of generated PackageVariants, as Porch's controller makes them
 * (`ensurePackageVariants`, porch-semantics.md §6.7).
 */
import { createHash } from 'node:crypto';

/** Porch's label on the PackageVariants a set owns. Porch's value is the set's UID; a package has none, so it is the set's name. */
export const OWNER_LABEL = 'config.porch.kpt.dev/packagevariantset';

const MAX_NAME = 63;
const KEEP = 54;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** What ties a PackageVariant to its target: computed from the rendered (or stored) downstream. */
export function variantIdentity(setName: string, repo: string, pkg: string): string {
  return `${setName}-${repo}-${pkg}`;
}

/** Shortens past 63 characters to 54 characters, `-` and 8 hex digits of the SHA-1, as Porch does. */
function shorten(text: string): string {
  if (text.length <= MAX_NAME) return text;
  return `${text.slice(0, KEEP)}-${createHash('sha1').update(text).digest('hex').slice(0, 8)}`;
}

/** Porch's name for a PackageVariant: the identity, shortened with a hash when too long. */
export const variantName = (identity: string): string => shorten(identity);

/** The owner label's value: the set's name, shortened the same way to fit a label value. */
export const ownerLabelValue = (setName: string): string => shorten(setName);

/**
 * Kubernetes accepts an object name that is a DNS subdomain. Porch does not check the names it
 * makes (upper case or a `/` of a nested package pass through) and fails when it creates them;
 * the function reports such a name instead of writing it.
 */
export function isValidObjectName(name: string): boolean {
  return name.length <= 253 && DNS_SUBDOMAIN.test(name);
}
