/**
 * Every CEL expression of a set's templates, compiled once while the functionConfig is validated
 * and looked up by field path when each target is rendered. All evaluations of a run share one
 * cost budget (src/fanout/cel-cost.ts), so a set with many targets cannot multiply it.
 */
import { listEntries, type OneOrList } from '../config/one-or-list';
import { compileStringExpression, type Scope, type StringExpression, type TargetShape } from './cel';
import { RunBudget } from './cel-cost';
import { injectorEntries, templatePath, type MapExpr, type PackageVariantTemplate, type Target } from './types';

interface ExpressionSite {
  readonly path: string;
  readonly source: string;
  /** `downstream.repoExpr` chooses the repository, so `repository` is not available in it. */
  readonly choosesRepository: boolean;
}

function mapExprSites(base: string, written: OneOrList<MapExpr> | undefined): ExpressionSite[] {
  return listEntries(base, written).flatMap(({ value: entry, path }) => [
    ...(entry.keyExpr !== undefined ? [{ path: `${path}.keyExpr`, source: entry.keyExpr, choosesRepository: false }] : []),
    ...(entry.valueExpr !== undefined ? [{ path: `${path}.valueExpr`, source: entry.valueExpr, choosesRepository: false }] : []),
  ]);
}

/**
 * The expressions of one template, in render order. As in Porch, an empty `repoExpr`,
 * `packageExpr` or `nameExpr` counts as unset, while map entries and `removeKeyExprs` are
 * evaluated whenever present.
 */
function templateExpressions(template: PackageVariantTemplate, base: string): ExpressionSite[] {
  const sites: ExpressionSite[] = [];
  const { downstream, packageContext, pipeline } = template;
  if (downstream?.repoExpr) sites.push({ path: `${base}.downstream.repoExpr`, source: downstream.repoExpr, choosesRepository: true });
  if (downstream?.packageExpr) sites.push({ path: `${base}.downstream.packageExpr`, source: downstream.packageExpr, choosesRepository: false });
  sites.push(...mapExprSites(`${base}.labelExprs`, template.labelExprs));
  sites.push(...mapExprSites(`${base}.annotationExprs`, template.annotationExprs));
  sites.push(...mapExprSites(`${base}.packageContext.dataExprs`, packageContext?.dataExprs));
  (packageContext?.removeKeyExprs ?? []).forEach((source, j) => {
    sites.push({ path: `${base}.packageContext.removeKeyExprs[${j}]`, source, choosesRepository: false });
  });
  for (const { value: injector, path } of injectorEntries(template, base)) {
    if (injector.nameExpr) sites.push({ path: `${path}.nameExpr`, source: injector.nameExpr, choosesRepository: false });
  }
  for (const list of ['validators', 'mutators'] as const) {
    (pipeline?.[list] ?? []).forEach((fn, j) => sites.push(...mapExprSites(`${base}.pipeline.${list}[${j}].configMapExprs`, fn.configMapExprs)));
  }
  return sites;
}

/** `target` of a repositories target is `{repo, package}`; of a selector target, the object. */
function targetShape(target: Target): TargetShape {
  return target.repositories !== undefined ? 'repository-list' : 'object';
}

interface CompileProblem {
  readonly path: string;
  readonly message: string;
}

/** The compiled expressions of every target, by field path, each charging the run's budget. */
export class ExpressionTable {
  private readonly compiled = new Map<string, StringExpression>();
  private readonly run = new RunBudget();

  /**
   * Compiles every expression; returns the problems, one per expression. Without an upstream
   * PackageRevision, an expression that needs `upstream` is a problem too.
   */
  compileAll(targets: readonly Target[], upstreamFound: boolean, describeUpstream: () => string): CompileProblem[] {
    const problems: CompileProblem[] = [];
    targets.forEach((target, i) => {
      if (!target.template) return;
      const shape = targetShape(target);
      for (const site of templateExpressions(target.template, templatePath(i))) {
        const scope: Scope = { shape, repository: !site.choosesRepository, upstream: true };
        const outcome = compileStringExpression(site.source, scope);
        if (!outcome.ok) {
          problems.push({ path: site.path, message: outcome.message });
        } else if (!upstreamFound && !compileStringExpression(site.source, { ...scope, upstream: false }).ok) {
          problems.push({ path: site.path, message: `the expression uses \`upstream\`, but ${describeUpstream()}` });
        } else {
          const { source, evaluate } = outcome.expression;
          this.compiled.set(site.path, { source, evaluate: (variables) => evaluate(variables, this.run) });
        }
      }
    });
    return problems;
  }

  /** The compiled expression at a path that compileAll accepted. */
  get(path: string): StringExpression {
    const expression = this.compiled.get(path);
    if (!expression) throw new Error(`no compiled expression at ${path}`);
    return expression;
  }
}
