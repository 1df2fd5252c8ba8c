/**
 * Step 1: `spec.packageContext` edits the package context, the ConfigMap `kptfile.kpt.dev` in
 * `package-context.yaml` that kpt and Porch generate for deployable packages.
 */
import type { ConfigObject } from '../config/function-config';
import type { KrmResource } from '../krm/resource';
import type { Result } from '../krm/results';
import { PACKAGE_CONTEXT_FILE, PACKAGE_CONTEXT_NAME, packageContexts } from './package-items';
import { variantSpec } from './spec';
import { describeItem, itemResult, variantError, type Step } from './step';
import { ensureMap, mapOrAbsent, setScalar } from './yaml-edit';

/** kpt and Porch own these keys; Porch rejects them in data and in removeKeys, in this order. */
const RESERVED_KEYS: Record<string, string> = {
  name: 'the package name',
  'package-path': "the package's path in its repository",
};

function checkKeys(variant: ConfigObject, data: Record<string, string>, removeKeys: readonly string[]): Result[] {
  const errors: Result[] = [];
  for (const [key, meaning] of Object.entries(RESERVED_KEYS)) {
    if (Object.prototype.hasOwnProperty.call(data, key)) {
      errors.push(variantError(variant, `spec.packageContext.data must not contain the key "${key}": kpt and Porch set it to ${meaning}`, `spec.packageContext.data.${key}`));
    }
    removeKeys.forEach((removed, i) => {
      if (removed === key) {
        errors.push(variantError(variant, `spec.packageContext.removeKeys must not contain the key "${key}": kpt and Porch set it to ${meaning}`, `spec.packageContext.removeKeys[${i}]`));
      }
    });
  }
  removeKeys.forEach((removed, i) => {
    if (Object.prototype.hasOwnProperty.call(data, removed) && !(removed in RESERVED_KEYS)) {
      errors.push(
        variantError(
          variant,
          `spec.packageContext: the key "${removed}" is both set in data and listed in removeKeys; keep it in one of them (Porch would silently remove it)`,
          `spec.packageContext.removeKeys[${i}]`,
        ),
      );
    }
  });
  return errors;
}

function findContext(variant: ConfigObject, items: readonly KrmResource[]): { context?: KrmResource; errors: Result[] } {
  const found = packageContexts(items);
  if (found.length === 0) {
    return {
      errors: [
        variantError(
          variant,
          `spec.packageContext edits the package context, but the package has none: ConfigMap ${PACKAGE_CONTEXT_NAME} in ${PACKAGE_CONTEXT_FILE} at the package root. ` +
            'Create it, e.g. by fetching the package with `kpt pkg get --for-deployment`',
          'spec.packageContext',
        ),
      ],
    };
  }
  if (found.length > 1) {
    return { errors: [variantError(variant, `the package has ${found.length} package contexts: ${found.map(describeItem).join(', ')}; keep one`, 'spec.packageContext')] };
  }
  const context = found[0]!;
  if (mapOrAbsent(context.node, 'data') === false) {
    return { errors: [itemResult(context, 'error', `${describeItem(context)}: data must be a map of strings`, 'data')] };
  }
  return { context, errors: [] };
}

export function planPackageContext(variant: ConfigObject, items: readonly KrmResource[]): Step {
  const { data = {}, removeKeys = [] } = variantSpec(variant).packageContext ?? {};
  const errors = checkKeys(variant, data, removeKeys);
  // Nothing to set or remove: Porch skips the step, even when the package has no context.
  if (Object.keys(data).length === 0 && removeKeys.length === 0) return { errors, apply: () => [] };
  const { context, errors: contextErrors } = findContext(variant, items);
  errors.push(...contextErrors);
  return {
    errors,
    apply: () => (context ? [applyContext(context, data, removeKeys)] : []),
  };
}

function applyContext(context: KrmResource, data: Record<string, string>, removeKeys: readonly string[]): Result {
  let changed = false;
  const keys = Object.keys(data);
  if (keys.length > 0) {
    const map = ensureMap(context.doc, context.node, 'data');
    // New keys are appended in byte order (Porch's canonical order); existing ones stay in place.
    for (const key of [...keys].sort()) changed = setScalar(context.doc, map, key, data[key]!) || changed;
  }
  const map = mapOrAbsent(context.node, 'data');
  for (const key of removeKeys) {
    if (map && map.has(key)) {
      map.delete(key);
      changed = true;
    }
  }
  if (changed) context.markChanged();
  const set = keys.length ? `set ${keys.map((key) => `${key}=${JSON.stringify(data[key])}`).join(', ')}` : '';
  const removed = removeKeys.length ? `removed ${removeKeys.join(', ')}` : '';
  return itemResult(context, 'info', `package context: ${[set, removed].filter(Boolean).join('; ')}`);
}
