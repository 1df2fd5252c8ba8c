/**
 * The cross-field rules of a PackageVariantSet: Porch's `validatePackageVariantSet` checks with its
 * messages and in its order (porch-semantics.md §6.2), then what Porch finds only later or never:
 * label selectors that are not valid. The schema has already checked types and unknown fields.
 */
import { listEntries, type OneOrList } from '../config/one-or-list';
import type { Result } from '../krm/results';
import { selectorProblems } from './selector';
import { injectorEntries, setError, targetPath, templatePath, type FunctionTemplate, type MapExpr, type Target, type VariantSet } from './types';

function upstreamErrors(set: VariantSet): Result[] {
  const upstream = set.spec.upstream;
  if (!upstream) return [setError(set, 'spec.upstream is a required field', 'spec.upstream')];
  const errors: Result[] = [];
  if (!upstream.package) errors.push(setError(set, 'spec.upstream.package is a required field', 'spec.upstream.package'));
  if (!upstream.repo) errors.push(setError(set, 'spec.upstream.repo is a required field', 'spec.upstream.repo'));
  if (!upstream.revision && !upstream.workspaceName) {
    errors.push(setError(set, 'either spec.upstream.revision or spec.upstream.workspaceName must be specified', 'spec.upstream'));
  }
  return errors;
}

function mapExprErrors(set: VariantSet, base: string, written: OneOrList<MapExpr> | undefined): Result[] {
  return listEntries(base, written).flatMap(({ value: entry, path }) => [
    ...(entry.key !== undefined && entry.keyExpr !== undefined ? [setError(set, `${path} may specify only one of \`key\` and \`keyExpr\``, `${path}.keyExpr`)] : []),
    ...(entry.value !== undefined && entry.valueExpr !== undefined ? [setError(set, `${path} may specify only one of \`value\` and \`valueExpr\``, `${path}.valueExpr`)] : []),
  ]);
}

function functionErrors(set: VariantSet, base: string, functions: readonly FunctionTemplate[] | undefined): Result[] {
  return (functions ?? []).flatMap((fn, j) => [
    ...(!fn.image ? [setError(set, `${base}[${j}].image must not be empty`, `${base}[${j}].image`)] : []),
    ...(fn.name?.includes('.') ? [setError(set, `${base}[${j}].name must not contain '.'`, `${base}[${j}].name`)] : []),
  ]);
}

/** Porch's template checks; policies are enums in the schema already. */
function templateErrors(set: VariantSet, i: number, target: Target): Result[] {
  const template = target.template;
  if (!template) return [];
  const at = templatePath(i);
  const errors: Result[] = [];
  const downstream = template.downstream;
  if (downstream?.repo !== undefined && downstream.repoExpr !== undefined) {
    errors.push(setError(set, `${at} may specify only one of \`downstream.repo\` and \`downstream.repoExpr\``, `${at}.downstream.repoExpr`));
  }
  if (downstream?.package !== undefined && downstream.packageExpr !== undefined) {
    errors.push(setError(set, `${at} may specify only one of \`downstream.package\` and \`downstream.packageExpr\``, `${at}.downstream.packageExpr`));
  }
  errors.push(...mapExprErrors(set, `${at}.labelExprs`, template.labelExprs));
  errors.push(...mapExprErrors(set, `${at}.annotationExprs`, template.annotationExprs));
  errors.push(...mapExprErrors(set, `${at}.packageContext.dataExprs`, template.packageContext?.dataExprs));
  if (template.injectors !== undefined && template.injectorExprs !== undefined) {
    errors.push(setError(set, `${at} may specify only one of \`injectors\` and \`injectorExprs\` (the design's name for \`injectors\`)`, `${at}.injectorExprs`));
  }
  for (const { value: injector, path } of injectorEntries(template, at)) {
    if (injector.name !== undefined && injector.nameExpr !== undefined) errors.push(setError(set, `${path} may specify only one of \`name\` and \`nameExpr\``, path));
    if (injector.name === undefined && injector.nameExpr === undefined) errors.push(setError(set, `${path} must specify either \`name\` or \`nameExpr\``, path));
  }
  errors.push(...functionErrors(set, `${at}.pipeline.validators`, template.pipeline?.validators));
  errors.push(...functionErrors(set, `${at}.pipeline.mutators`, template.pipeline?.mutators));
  return errors;
}

/** Porch's rule for a repositories entry's package names, applied to the design's selector package names too. */
function packageNameErrors(set: VariantSet, base: string, names: readonly string[] | undefined): Result[] {
  return (names ?? []).flatMap((name, k) => (name ? [] : [setError(set, `${base}.packageNames[${k}] cannot be empty`, `${base}.packageNames[${k}]`)]));
}

function targetErrors(set: VariantSet, i: number, target: Target): Result[] {
  const at = targetPath(i);
  const errors: Result[] = [];
  if (target.repositories !== undefined) {
    if (target.repositories.length === 0) errors.push(setError(set, `${at}.repositories must not be an empty list if specified`, `${at}.repositories`));
    target.repositories.forEach((repository, j) => {
      if (!repository.name) errors.push(setError(set, `${at}.repositories[${j}].name cannot be empty`, `${at}.repositories[${j}].name`));
      errors.push(...packageNameErrors(set, `${at}.repositories[${j}]`, repository.packageNames));
    });
  }
  for (const selector of ['repositorySelector', 'objectSelector'] as const) {
    errors.push(...packageNameErrors(set, `${at}.${selector}`, target[selector]?.packageNames));
  }
  if (target.objectSelector !== undefined) {
    // "objectselector" in lower case is Porch's spelling.
    if (!target.objectSelector.apiVersion) errors.push(setError(set, `${at}.objectselector.apiVersion cannot be empty`, `${at}.objectSelector.apiVersion`));
    if (!target.objectSelector.kind) errors.push(setError(set, `${at}.objectselector.kind cannot be empty`, `${at}.objectSelector.kind`));
  }
  const kinds = [target.repositories, target.repositorySelector, target.objectSelector].filter((s) => s !== undefined).length;
  if (kinds !== 1) errors.push(setError(set, `${at} must specify one of \`repositories\`, \`repositorySelector\`, or \`objectSelector\``, at));
  errors.push(...templateErrors(set, i, target));
  return errors;
}

/** Whether spec.upstream names a package revision, so that it can be looked up. */
export const hasValidUpstream = (set: VariantSet): boolean => upstreamErrors(set).length === 0;

/** Porch's checks, in Porch's order. */
export function porchValidationErrors(set: VariantSet): Result[] {
  const errors = upstreamErrors(set);
  const targets = set.spec.targets ?? [];
  if (targets.length === 0) errors.push(setError(set, 'must specify at least one item in spec.targets', 'spec.targets'));
  targets.forEach((target, i) => errors.push(...targetErrors(set, i, target)));
  return errors;
}

/** Label selectors that the API machinery would refuse to convert. */
export function selectorErrors(set: VariantSet): Result[] {
  return (set.spec.targets ?? []).flatMap((target, i) => {
    const at = targetPath(i);
    const selectors = [
      ...(target.repositorySelector ? [{ selector: target.repositorySelector, field: `${at}.repositorySelector` }] : []),
      ...(target.objectSelector ? [{ selector: target.objectSelector, field: `${at}.objectSelector` }] : []),
    ];
    return selectors.flatMap(({ selector, field }) =>
      selectorProblems(selector, field).map((problem) => setError(set, `${problem.field}: ${problem.message}`, problem.field)),
    );
  });
}
