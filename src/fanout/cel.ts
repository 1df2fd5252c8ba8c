/**
 * CEL for PackageVariantSet templates, on @marcbachmann/cel-js (see krm-function-conventions.md §4).
 *
 * The variables are Porch's: `repoDefault`, `packageDefault`, `upstream`, `repository` and
 * `target`. Objects are declared as a type with exactly four fields (name, namespace, labels,
 * annotations): that is the security boundary of the design, and declaring it lets the type
 * checker reject `target.spec` when the functionConfig is validated rather than at run time.
 * `target` of a `repositories` target is `{repo, package}`, another declared type. Every
 * expression is parsed and type-checked once; evaluation reuses the compiled program, metered
 * against its cost budget (src/fanout/cel-cost.ts).
 */
import type * as CelModule from '@marcbachmann/cel-js';
import { BudgetExceeded, CostMeter, MAX_EXPRESSION_NODES, RunBudget, sizeOf } from './cel-cost';
import { cutExcerpt, withExcerpt } from './cel-excerpt';
import { instrumentCel, withMeter } from './cel-metering';

let loaded: typeof CelModule | undefined;

/** Loaded on first use, so that runs without a PackageVariantSet never pay its start-up. */
function cel(): typeof CelModule {
  if (!loaded) {
    loaded = require('@marcbachmann/cel-js') as typeof CelModule;
    instrumentCel(loaded);
  }
  return loaded;
}

/** What `target` is: the `{repo, package}` pair of a repositories target, or the selected object. */
export type TargetShape = 'repository-list' | 'object';

/** Which variables an expression may use. */
export interface Scope {
  readonly shape: TargetShape;
  /** False for `downstream.repoExpr`, which chooses the repository. */
  readonly repository: boolean;
  /** False when no upstream PackageRevision was supplied. */
  readonly upstream: boolean;
}

/** What a CEL expression sees of an object: these four fields and nothing else. */
export interface CelObject {
  readonly name: string;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, unknown>>;
  readonly annotations: Readonly<Record<string, unknown>>;
}

export interface RepositoryListTarget {
  readonly repo: string;
  readonly package: string;
}

export interface CelVariables {
  readonly repoDefault: string;
  readonly packageDefault: string;
  readonly target: CelObject | RepositoryListTarget;
  readonly upstream?: CelObject;
  readonly repository?: CelObject;
}

const OBJECT_TYPE = 'porch.Object';
const LIST_TARGET_TYPE = 'porch.RepositoryListTarget';

/** A YAML value as CEL wants it: integers are CEL ints (BigInt); a JS number would be a double. */
export function toCelValue(value: unknown): unknown {
  if (typeof value === 'number') return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCelValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, toCelValue(entry)]));
  }
  return value;
}

/** The CEL view of an object; a missing namespace is "" as in Porch. */
export function celObject(object: {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly labels: Readonly<Record<string, unknown>>;
  readonly annotations: Readonly<Record<string, unknown>>;
}): CelObject {
  return {
    name: object.name,
    namespace: object.namespace ?? '',
    labels: toCelValue(object.labels) as Record<string, unknown>,
    annotations: toCelValue(object.annotations) as Record<string, unknown>,
  };
}

const environments = new Map<string, CelModule.Environment>();

function environment(scope: Scope): CelModule.Environment {
  const key = `${scope.shape}/${scope.repository}/${scope.upstream}`;
  let env = environments.get(key);
  if (env) return env;
  env = new (cel().Environment)({ homogeneousAggregateLiterals: true, limits: { maxAstNodes: MAX_EXPRESSION_NODES } });
  env.registerType({
    name: OBJECT_TYPE,
    schema: { name: 'string', namespace: 'string', labels: 'map<string, dyn>', annotations: 'map<string, dyn>' },
  });
  env.registerType({ name: LIST_TARGET_TYPE, schema: { repo: 'string', package: 'string' } });
  env.registerVariable('repoDefault', 'string');
  env.registerVariable('packageDefault', 'string');
  env.registerVariable('target', scope.shape === 'object' ? OBJECT_TYPE : LIST_TARGET_TYPE);
  if (scope.upstream) env.registerVariable('upstream', OBJECT_TYPE);
  if (scope.repository) env.registerVariable('repository', OBJECT_TYPE);
  environments.set(key, env);
  return env;
}

/** A runtime failure of an expression: CEL's message with its caret, a non-string result, or a budget run out. */
export class CelEvaluationError extends Error {}

export interface StringExpression {
  readonly source: string;
  /**
   * The expression's value, its cost charged to `run` (a run of its own when absent); throws
   * CelEvaluationError when it fails, is not a string, or exceeds its budget or the run's.
   */
  evaluate(variables: CelVariables, run?: RunBudget): string;
}

export type Compiled = { readonly ok: true; readonly expression: StringExpression } | { readonly ok: false; readonly message: string };

function describeValue(value: unknown): string {
  if (typeof value === 'bigint') return `the int ${value}`;
  if (typeof value === 'number') return `the double ${value}`;
  if (typeof value === 'boolean') return `the bool ${value}`;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return 'a map or object';
}

function errorMessage(error: unknown, scope: Scope): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  if (!scope.repository && code === 'unknown_variable' && /Unknown variable: repository\b/.test(message)) {
    return `${cutExcerpt(message)}\n(\`repository\` is not available in downstream.repoExpr: that expression chooses the repository)`;
  }
  return cutExcerpt(message);
}

/**
 * Parses and type-checks an expression whose value must be a string. A result type of `dyn` is
 * accepted here and checked when evaluated.
 */
export function compileStringExpression(source: string, scope: Scope): Compiled {
  let program: CelModule.ParseResult;
  try {
    program = environment(scope).parse(source);
  } catch (error) {
    return { ok: false, message: errorMessage(error, scope) };
  }
  const checked = program.check();
  if (!checked.valid) return { ok: false, message: errorMessage(checked.error, scope) };
  if (checked.type !== 'string' && checked.type !== 'dyn') {
    return { ok: false, message: withExcerpt(`the expression returns ${checked.type}, but a string is needed`, source) };
  }
  return {
    ok: true,
    expression: {
      source,
      evaluate(variables, run = new RunBudget()) {
        const meter = new CostMeter(run);
        let value: unknown;
        try {
          // The root step is not evaluated through the metered path; its value is charged here.
          value = withMeter(meter, () => program(variables as unknown as CelModule.Context));
          meter.charge(1 + sizeOf(value));
        } catch (error) {
          if (error instanceof BudgetExceeded) throw new CelEvaluationError(withExcerpt(`${error.message}; simplify it`, source));
          throw new CelEvaluationError(cutExcerpt(error instanceof Error ? error.message : String(error)));
        }
        if (typeof value !== 'string') throw new CelEvaluationError(withExcerpt(`the expression returned ${describeValue(value)}, but a string is needed`, source));
        return value;
      },
    },
  };
}
