/**
 * Metering inside @marcbachmann/cel-js. Its evaluator evaluates every sub-expression through one
 * method, `run(node, context)`; wrapped, it charges each step to the active CostMeter
 * (src/fanout/cel-cost.ts) and sends `matches` to RE2 (src/fanout/regex.ts). cel-js exports neither
 * its Evaluator class nor a hook, so the prototype is found through a function's `this`, which
 * cel-js binds to the evaluator. Outside `withMeter` the wrapped method does what it did.
 */
import type * as CelModule from '@marcbachmann/cel-js';
import { sizeOf, type CostMeter } from './cel-cost';
import { compileRegex, RegexSyntaxError } from './regex';

interface AstNode {
  readonly op: string;
  readonly args: unknown;
  readonly meta: { readonly alternate?: unknown; readonly macro?: unknown };
}

interface Evaluator {
  run(node: AstNode, context: unknown): unknown;
  createError(code: string, message: string, node: AstNode): Error;
  debugType(value: unknown): { readonly name: string };
}

/**
 * How a step is charged. A read (a variable, field, index, literal, branch, or the accumulator of
 * a comprehension) yields a value that already exists: 1. A build (list and map literals, `map()`
 * and `filter()`) pays for the value it makes. A scan (operators and functions) pays for the value
 * it makes and for the operands it may walk: `==` on two lists, `contains` on a long string.
 */
type StepKind = 'read' | 'build' | 'scan';

const READS = new Set(['value', 'id', '.', '.?', '[]', '[?]', 'accuValue', 'accuInc', 'accuPush', '?:', '||', '&&']);

function kindOf(node: AstNode): StepKind {
  if (READS.has(node.op)) return 'read';
  if (node.op === 'list' || node.op === 'map' || node.meta.alternate !== undefined || node.meta.macro !== undefined) return 'build';
  return 'scan';
}

/** The operands a scanning step has seen so far. */
interface Frame {
  readonly scans: boolean;
  operands: number;
}

let active: CostMeter | undefined;
let frame: Frame | undefined;

function isMatchesCall(node: AstNode): node is AstNode & { args: [string, AstNode, AstNode[]] } {
  return node.op === 'rcall' && Array.isArray(node.args) && node.args[0] === 'matches' && (node.args[2] as unknown[]).length === 1;
}

function matches(evaluator: Evaluator, node: AstNode & { args: [string, AstNode, AstNode[]] }, context: unknown, meter: CostMeter): boolean {
  const [, receiver, [argument]] = node.args;
  const parent = frame;
  frame = undefined;
  let input: unknown;
  let pattern: unknown;
  try {
    input = evaluator.run(receiver, context);
    pattern = evaluator.run(argument!, context);
  } finally {
    frame = parent;
  }
  if (typeof input !== 'string' || typeof pattern !== 'string') {
    const types = [input, pattern].map((value) => evaluator.debugType(value).name);
    throw evaluator.createError('no_matching_overload', `found no matching overload for '${types[0]}.matches(${types[1]})'`, node);
  }
  let regex;
  try {
    regex = compileRegex(pattern);
  } catch (error) {
    if (!(error instanceof RegexSyntaxError)) throw error;
    throw evaluator.createError('invalid_regular_expression', `Invalid regular expression: ${pattern}: ${error.message} (patterns are RE2, as in cel-go)`, node);
  }
  meter.charge(1 + regex.cost(input));
  return regex.test(input);
}

function instrument(prototype: Evaluator): void {
  const plainRun = prototype.run;
  prototype.run = function meteredRun(this: Evaluator, node: AstNode, context: unknown): unknown {
    const meter = active;
    if (!meter) return plainRun.call(this, node, context);
    if (isMatchesCall(node)) return matches(this, node, context, meter);
    const kind = kindOf(node);
    const parent = frame;
    const own: Frame = { scans: kind === 'scan', operands: 0 };
    frame = own;
    let value: unknown;
    try {
      value = plainRun.call(this, node, context);
    } finally {
      frame = parent;
    }
    const size = kind !== 'read' || parent?.scans ? sizeOf(value) : 0;
    meter.charge(1 + (kind === 'read' ? 0 : size) + own.operands);
    if (parent?.scans) parent.operands += size;
    return value;
  };
}

let instrumented = false;

/** Wraps the evaluator of this cel-js module once; every Environment shares its prototype. */
export function instrumentCel(cel: typeof CelModule): void {
  if (instrumented) return;
  const probe = new cel.Environment();
  let prototype: Evaluator | undefined;
  probe.registerFunction('evaluatorPrototype(): bool', function (this: Evaluator) {
    prototype = Object.getPrototypeOf(this) as Evaluator;
    return true;
  });
  probe.evaluate('evaluatorPrototype()');
  if (!prototype || typeof prototype.run !== 'function') throw new Error('cel-js no longer evaluates through Evaluator.run: metering cannot be installed');
  instrument(prototype);
  instrumented = true;
}

/**
 * Runs an evaluation under a meter. Throws the meter's BudgetExceeded when it ran out, even if
 * CEL's error-absorbing `||`, `&&` or quantifiers let the evaluation finish.
 */
export function withMeter<T>(meter: CostMeter, evaluate: () => T): T {
  const [outerMeter, outerFrame] = [active, frame];
  active = meter;
  frame = undefined;
  try {
    const value = evaluate();
    if (meter.exhausted) throw meter.exhausted;
    return value;
  } finally {
    [active, frame] = [outerMeter, outerFrame];
  }
}
