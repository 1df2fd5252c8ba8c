/**
 * The cost budget of PackageVariantSet expressions. @marcbachmann/cel-js bounds only the parse
 * (AST nodes, nesting); evaluation is bounded here (src/fanout/cel-metering.ts), in units close to
 * Kubernetes' CEL cost units: a step costs 1, plus the size of the value it builds, plus, for an
 * operator or function, the size of the operands it may walk. Sizes count characters of strings and
 * elements and entries of lists and maps all the way down. `matches` pays for its input times the
 * size of its compiled pattern (src/fanout/regex.ts).
 *
 * One expression may spend 1,000,000 units, Kubernetes' `PerCallLimit`: about 0.1 to 0.4 s here
 * (README "Safety"). A run's expressions together may spend 50 times that: Kubernetes' 10,000,000
 * is per object, and a set fans out over thousands of targets (its benchmark spends about 120 units
 * a target).
 */
import { groupDigits } from '../yaml/group-digits';

export const EXPRESSION_BUDGET = 1_000_000;
export const RUN_BUDGET = 50_000_000;

/**
 * cel-js limits nesting (250 levels) but not the depth of an operator chain (`a + b + …`), which
 * its checker and evaluator walk recursively: 2,000 `+` overflow the stack. A PackageVariantSet
 * expression needs tens of nodes, a lookup table a few hundred.
 */
export const MAX_EXPRESSION_NODES = 1_000;

/** Why an evaluation was stopped; the message names the budget that ran out. */
export class BudgetExceeded extends Error {}

/** What a whole run may spend, shared by all its evaluations. */
export class RunBudget {
  remaining: number;

  constructor(readonly limit: number = RUN_BUDGET) {
    this.remaining = limit;
  }
}

const inUnits = (n: number) => `${groupDigits(n)} units`;

const sizes = new WeakMap<object, number>();

/**
 * The size of a CEL value: a string's length, a list's or map's elements plus their own sizes.
 * Memoised per object, so a value that is read again, or shared by a larger one, is measured once.
 * An empty value is not memoised: a comprehension's accumulator starts as an empty list that cel-js
 * then fills in place.
 */
export function sizeOf(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value === null || typeof value !== 'object') return 0;
  const known = sizes.get(value);
  if (known !== undefined) return known;
  let size = 0;
  if (value instanceof Uint8Array) {
    size = value.length;
  } else if (Array.isArray(value) || value instanceof Set) {
    for (const element of value) size += 1 + sizeOf(element);
  } else if (value instanceof Map) {
    for (const [key, entry] of value) size += 1 + sizeOf(key) + sizeOf(entry);
  } else {
    for (const key of Object.keys(value)) size += 1 + key.length + sizeOf((value as Record<string, unknown>)[key]);
  }
  if (size > 0) sizes.set(value, size);
  return size;
}

/**
 * The meter of one evaluation. Once a budget runs out every further charge throws again, and
 * `exhausted` stays set: CEL's `||`, `&&` and quantifiers absorb errors, so a caller must check it
 * after a value comes back.
 */
export class CostMeter {
  private spent = 0;
  exhausted: BudgetExceeded | undefined;

  constructor(
    private readonly run: RunBudget,
    private readonly limit: number = EXPRESSION_BUDGET,
  ) {}

  charge(units: number): void {
    if (this.exhausted) throw this.exhausted;
    this.spent += units;
    this.run.remaining -= units;
    if (this.spent > this.limit) {
      this.exhausted = new BudgetExceeded(`the expression exceeded its cost budget of ${inUnits(this.limit)}`);
    } else if (this.run.remaining < 0) {
      this.exhausted = new BudgetExceeded(`the run's expressions together exceeded their cost budget of ${inUnits(this.run.limit)}`);
    }
    if (this.exhausted) throw this.exhausted;
  }
}
