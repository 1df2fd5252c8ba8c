/**
 * The parts of a validated PackageVariant the mutations read, and the checks Porch's controller
 * makes on top of the schema (src/config/schemas/package-variant.ts leaves them to code so that
 * the messages are Porch's).
 */
import type { ConfigObject } from '../config/function-config';
import { asList, listEntries, type OneOrList } from '../config/one-or-list';
import type { Result } from '../krm/results';
import { variantError } from './step';

export interface KptFunction {
  name?: string;
  image?: string;
  [field: string]: unknown;
}

export interface Injector {
  group?: string;
  version?: string;
  kind?: string;
  name: string;
}

export interface VariantSpec {
  upstream?: { repo?: string; package?: string };
  downstream?: { repo?: string; package?: string };
  packageContext?: { data?: Record<string, string>; removeKeys?: string[] };
  pipeline?: { mutators?: KptFunction[]; validators?: KptFunction[] };
  injectors?: Injector[];
}

/** The spec as written: the design writes `injectors` as one selector, Porch as a list. */
type WrittenSpec = Omit<VariantSpec, 'injectors'> & { injectors?: OneOrList<Injector> };

const writtenSpec = (variant: ConfigObject): WrittenSpec => (variant.spec ?? {}) as WrittenSpec;

/** The spec in Porch's form, whichever form it was written in. */
export function variantSpec(variant: ConfigObject): VariantSpec {
  const spec = writtenSpec(variant);
  return spec.injectors === undefined ? (spec as VariantSpec) : { ...spec, injectors: asList(spec.injectors) };
}

/** Porch's `validatePackageVariant` checks, in its order, apart from the package-context keys (package-context.ts). */
export function checkControllerFields(variant: ConfigObject): Result[] {
  const spec = writtenSpec(variant);
  const errors: Result[] = [];
  for (const side of ['upstream', 'downstream'] as const) {
    const target = spec[side];
    if (!target) {
      errors.push(variantError(variant, `missing required field spec.${side}`, `spec.${side}`));
      continue;
    }
    for (const field of ['repo', 'package'] as const) {
      if (!target[field]) errors.push(variantError(variant, `missing required field spec.${side}.${field}`, `spec.${side}.${field}`));
    }
  }
  for (const { value: injector, path } of listEntries('spec.injectors', spec.injectors)) {
    if (injector.name === '') errors.push(variantError(variant, `${path}.name must not be empty`, `${path}.name`));
  }
  return errors;
}
