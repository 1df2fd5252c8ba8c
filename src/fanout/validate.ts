/**
 * The cross-field rules of a PackageVariantSet: Porch's `validatePackageVariantSet` checks with its
 * messages and in its order (porch-semantics.md §6.2), then what Porch finds only later or never:
 * label selectors that are not valid. The schema has already checked types and unknown fields.
 */
import type { Result } from '../krm/results';
import { selectorProblems } from './selector';
import { setError, targetPath, templatePath, type FunctionTemplate, type MapExpr, type Target, type VariantSet } from './types';

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

function mapExprErrors(set: VariantSet, base: string, entries: readonly MapExpr[] | undefined): Result[] {
  return (entries ?? []).flatMap((entry, j) => [
    ...(entry.key !== undefined && entry.keyExpr !== undefined ? [setError(set, `${base}[${j}] may specify only one of \`key\` and \`keyExpr\``, `${base}[${j}].keyExpr`)] : []),
    ...(entry.value !== undefined && entry.valueExpr !== undefined
      ? [setError(set, `${base}[${j}] may specify only one of \`value\` and \`valueExpr\``, `${base}[${j}].valueExpr`)]
      : []),
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
  (template.injectors ?? []).forEach((injector, j) => {
    const field = `${at}.injectors[${j}]`;
    if (injector.name !== undefined && injector.nameExpr !== undefined) errors.push(setError(set, `${field} may specify only one of \`name\` and \`nameExpr\``, field));
    if (injector.name === undefined && injector.nameExpr === undefined) errors.push(setError(set, `${field} must specify either \`name\` or \`nameExpr\``, field));
  });
  errors.push(...functionErrors(set, `${at}.pipeline.validators`, template.pipeline?.validators));
  errors.push(...functionErrors(set, `${at}.pipeline.mutators`, template.pipeline?.mutators));
  return errors;
}

function targetErrors(set: VariantSet, i: number, target: Target): Result[] {
  const at = targetPath(i);
  const errors: Result[] = [];
  if (target.repositories !== undefined) {
    if (target.repositories.length === 0) errors.push(setError(set, `${at}.repositories must not be an empty list if specified`, `${at}.repositories`));
    target.repositories.forEach((repository, j) => {
      if (!repository.name) errors.push(setError(set, `${at}.repositories[${j}].name cannot be empty`, `${at}.repositories[${j}].name`));
      (repository.packageNames ?? []).forEach((name, k) => {
        const field = `${at}.repositories[${j}].packageNames[${k}]`;
        if (!name) errors.push(setError(set, `${field} cannot be empty`, field));
      });
    });
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
