/**
 * Rendering one PackageVariantSpec from a target's template, in the order of Porch's
 * `renderPackageVariantSpec` (porch-semantics.md §6.5): downstream repository first (its
 * expression cannot see `repository`), then the Repository, then everything else. Plain values
 * are copied and each `Expr` entry is laid over them in order, so the expression wins.
 */
import { listEntries, type OneOrList } from '../config/one-or-list';
import type { Result } from '../krm/results';
import { CelEvaluationError, celObject, type CelObject, type CelVariables } from './cel';
import type { ExpressionTable } from './expressions';
import { DEFAULT_NAMESPACE, REPOSITORY_API, type ObjectView } from './objects';
import type { TargetContext } from './targets';
import { injectorEntries, setError, templatePath, type FunctionTemplate, type MapExpr, type Upstream, type VariantSet } from './types';

export interface VariantSpec {
  upstream: Upstream;
  downstream: { repo: string; package: string };
  adoptionPolicy?: string;
  deletionPolicy?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  packageContext?: { data?: Record<string, string>; removeKeys?: string[] };
  pipeline?: { validators?: Record<string, unknown>[]; mutators?: Record<string, unknown>[] };
  injectors?: { group?: string; version?: string; kind?: string; name: string }[];
}

/** A target that cannot be rendered; the result says which target and which field. */
export class RenderError extends Error {
  constructor(readonly result: Result) {
    super(result.message);
  }
}

export interface RenderInputs {
  readonly set: VariantSet;
  readonly expressions: ExpressionTable;
  readonly repositories: ReadonlyMap<string, ObjectView>;
  readonly upstream: CelObject | undefined;
}

/** How messages name a target: the selected object, or the repository and package. */
export function describeTarget(context: TargetContext): string {
  const { object } = context;
  if (!object) return `${context.source} (repository ${context.repoDefault}, package ${context.packageDefault})`;
  return `${object.kind} ${object.namespace ? `${object.namespace}/` : ''}${object.name} (selected by ${context.source})`;
}

class Renderer {
  private readonly variables: { -readonly [K in keyof CelVariables]: CelVariables[K] };

  constructor(
    private readonly inputs: RenderInputs,
    private readonly context: TargetContext,
  ) {
    const { repoDefault, packageDefault, object } = context;
    this.variables = {
      repoDefault,
      packageDefault,
      target: object ? celObject(object) : { repo: repoDefault, package: packageDefault },
      ...(inputs.upstream ? { upstream: inputs.upstream } : {}),
    };
  }

  fail(message: string, field: string): never {
    throw new RenderError(setError(this.inputs.set, message, field));
  }

  evaluate(path: string): string {
    try {
      return this.inputs.expressions.get(path).evaluate(this.variables);
    } catch (error) {
      if (error instanceof CelEvaluationError) this.fail(`${path} failed for ${describeTarget(this.context)}: ${error.message}`, path);
      throw error;
    }
  }

  /** Porch's `copyAndOverlayMapExpr`: a missing key or value is ""; later entries win; empty is omitted. */
  overlay(base: string, plain: Readonly<Record<string, string>> | undefined, written: OneOrList<MapExpr> | undefined): Record<string, string> | undefined {
    const out = new Map(Object.entries(plain ?? {}));
    for (const { value: entry, path } of listEntries(base, written)) {
      const key = entry.keyExpr !== undefined ? this.evaluate(`${path}.keyExpr`) : (entry.key ?? '');
      const value = entry.valueExpr !== undefined ? this.evaluate(`${path}.valueExpr`) : (entry.value ?? '');
      out.set(key, value);
    }
    return out.size > 0 ? Object.fromEntries(out) : undefined;
  }

  /** A pipeline function as given, its configMap overlaid where configMap or configMapExprs stood. */
  pipelineFunction(base: string, fn: FunctionTemplate): Record<string, unknown> {
    const configMap = this.overlay(`${base}.configMapExprs`, fn.configMap, fn.configMapExprs);
    const out: Record<string, unknown> = {};
    let placed = false;
    for (const [key, value] of Object.entries(fn)) {
      if (key === 'configMap' || key === 'configMapExprs') {
        if (configMap && !placed) out.configMap = configMap;
        placed = true;
      } else {
        out[key] = value;
      }
    }
    return out;
  }

  render(): VariantSpec {
    const { set, repositories } = this.inputs;
    const { context } = this;
    const template = context.target.template;
    const base = templatePath(context.index);
    const downstream = template?.downstream;

    let repo = context.repoDefault;
    // A selected object's name is the default repository; a repositories entry names it in `name`.
    let repoField = context.object ? context.source : `${context.source}.name`;
    if (downstream?.repo) [repo, repoField] = [downstream.repo, `${base}.downstream.repo`];
    if (downstream?.repoExpr) [repo, repoField] = [this.evaluate(`${base}.downstream.repoExpr`), `${base}.downstream.repoExpr`];
    // Porch looks the Repository up only for targets with a template; here every downstream
    // repository must be among the objects, so a misspelt one is caught before anything is written.
    const repository = repositories.get(repo);
    if (!repository) {
      this.fail(
        `downstream repository "${repo}" of ${describeTarget(context)} is not among the objects: no ${REPOSITORY_API} Repository of that name in namespace ${set.namespace ?? DEFAULT_NAMESPACE}`,
        repoField,
      );
    }
    const spec: VariantSpec = { upstream: { ...set.spec.upstream }, downstream: { repo, package: context.packageDefault } };
    if (!template) return spec;
    this.variables.repository = celObject(repository);

    if (downstream?.package) spec.downstream.package = downstream.package;
    if (downstream?.packageExpr) spec.downstream.package = this.evaluate(`${base}.downstream.packageExpr`);
    if (template.adoptionPolicy) spec.adoptionPolicy = template.adoptionPolicy;
    if (template.deletionPolicy) spec.deletionPolicy = template.deletionPolicy;
    const labels = this.overlay(`${base}.labelExprs`, template.labels, template.labelExprs);
    if (labels) spec.labels = labels;
    const annotations = this.overlay(`${base}.annotationExprs`, template.annotations, template.annotationExprs);
    if (annotations) spec.annotations = annotations;

    const packageContext = template.packageContext;
    if (packageContext) {
      const data = this.overlay(`${base}.packageContext.dataExprs`, packageContext.data, packageContext.dataExprs);
      const evaluated = (packageContext.removeKeyExprs ?? []).map((_, j) => this.evaluate(`${base}.packageContext.removeKeyExprs[${j}]`));
      const removeKeys = [...new Set([...(packageContext.removeKeys ?? []), ...evaluated])].sort();
      spec.packageContext = { ...(data ? { data } : {}), ...(removeKeys.length ? { removeKeys } : {}) };
    }

    if (template.pipeline) {
      // Evaluated validators first, as Porch does; written mutators first, as kpt's Pipeline type orders them.
      const [validators, mutators] = (['validators', 'mutators'] as const).map((list) =>
        (template.pipeline?.[list] ?? []).map((fn, j) => this.pipelineFunction(`${base}.pipeline.${list}[${j}]`, fn)),
      ) as [Record<string, unknown>[], Record<string, unknown>[]];
      if (mutators.length || validators.length) {
        spec.pipeline = { ...(mutators.length ? { mutators } : {}), ...(validators.length ? { validators } : {}) };
      }
    }

    if (template.injectors !== undefined || template.injectorExprs !== undefined) {
      spec.injectors = injectorEntries(template, base).map(({ value: { group, version, kind, name, nameExpr }, path }) => ({
        ...(group !== undefined ? { group } : {}),
        ...(version !== undefined ? { version } : {}),
        ...(kind !== undefined ? { kind } : {}),
        name: nameExpr ? this.evaluate(`${path}.nameExpr`) : (name ?? ''),
      }));
    }
    return spec;
  }
}

/** The PackageVariantSpec of one target context; throws RenderError. */
export function renderVariantSpec(inputs: RenderInputs, context: TargetContext): VariantSpec {
  return new Renderer(inputs, context).render();
}
