/**
 * The PackageVariants a set asks for: each target context rendered, named as Porch names it, and
 * checked as a whole before anything is written.
 */
import { isDeepStrictEqual } from 'node:util';
import { errorResult, FunctionError, type Result } from '../krm/results';
import { isValidObjectName, variantIdentity, variantName } from './naming';
import { describeTarget, renderVariantSpec, RenderError, type RenderInputs, type VariantSpec } from './render';
import type { TargetContext } from './targets';
import { setError, targetPath, type VariantSet } from './types';

export interface DesiredVariant {
  readonly identity: string;
  readonly name: string;
  readonly spec: VariantSpec;
}

/** Enough to act on; a set with 10,000 targets that all fail the same way should not print 10,000. */
const MAX_REPORTED = 20;

function capped(set: VariantSet, errors: Result[]): Result[] {
  if (errors.length <= MAX_REPORTED) return errors;
  const more = errors.length - MAX_REPORTED;
  return [...errors.slice(0, MAX_REPORTED), errorResult(`PackageVariantSet ${set.name}: ${more} more error${more === 1 ? '' : 's'} not shown`, { resourceRef: set.ref })];
}

/**
 * Renders every context, in order. Porch lets the last of two targets with the same downstream
 * win silently; here identical duplicates count once and differing ones are an error. Throws
 * FunctionError with every problem (capped), so nothing is written unless every target renders.
 */
export function desiredVariants(inputs: RenderInputs, contexts: readonly TargetContext[]): DesiredVariant[] {
  const { set } = inputs;
  const errors: Result[] = [];
  const byIdentity = new Map<string, { variant: DesiredVariant; context: TargetContext }>();
  for (const context of contexts) {
    let spec: VariantSpec;
    try {
      spec = renderVariantSpec(inputs, context);
    } catch (error) {
      if (!(error instanceof RenderError)) throw error;
      errors.push(error.result);
      continue;
    }
    const { repo, package: pkg } = spec.downstream;
    const identity = variantIdentity(set.name, repo, pkg);
    const name = variantName(identity);
    const at = targetPath(context.index);
    if (!isValidObjectName(name)) {
      errors.push(
        setError(
          set,
          `the PackageVariant for downstream repository ${repo}, package ${pkg} would be named "${name}", which is not a valid Kubernetes object name (lower-case letters, digits, '-' and '.' only); it comes from ${describeTarget(context)}`,
          at,
        ),
      );
      continue;
    }
    const earlier = byIdentity.get(identity);
    if (!earlier) {
      byIdentity.set(identity, { variant: { identity, name, spec }, context });
    } else if (!isDeepStrictEqual(earlier.variant.spec, spec)) {
      errors.push(
        setError(
          set,
          `${describeTarget(earlier.context)} and ${describeTarget(context)} both render PackageVariant ${name} (downstream repository ${repo}, package ${pkg}), with different specs`,
          at,
        ),
      );
    }
  }
  if (errors.length) throw new FunctionError(capped(set, errors));
  return [...byIdentity.values()].map(({ variant }) => variant);
}
