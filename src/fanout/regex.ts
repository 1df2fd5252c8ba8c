/**
 * CEL's `matches` on RE2 (re2js), as cel-go and so Porch evaluate it: RE2 syntax, an unanchored
 * search, and time linear in the input. cel-js's own `matches` uses JavaScript's backtracking
 * RegExp, where `'aaa…!'.matches('^(a+)+$')` runs for minutes.
 */
import type * as Re2Module from 're2js';

let loaded: typeof Re2Module | undefined;

/** Loaded on the first `matches`, so that expressions without one never pay for it. */
function re2(): typeof Re2Module {
  loaded ??= require('re2js') as typeof Re2Module;
  return loaded;
}

/**
 * Measured on re2js 2.10 (src/fanout/cel-cost.ts has the unit): its slowest searches take about
 * 18 ns per input character and program instruction, several times less than a unit of
 * comprehension work, so a unit buys this many character-instructions.
 */
const CHARACTER_INSTRUCTIONS_PER_UNIT = 4;

export interface CompiledRegex {
  /** The cost of compiling the pattern and searching `input`, in cost units, cached or not. */
  cost(input: string): number;
  test(input: string): boolean;
}

const MAX_CACHED = 64;
const cache = new Map<string, CompiledRegex>();

/** RE2's message for a pattern it rejects, e.g. a backreference or lookahead. */
export class RegexSyntaxError extends Error {}

export function compileRegex(pattern: string): CompiledRegex {
  const cached = cache.get(pattern);
  if (cached) return cached;
  const { RE2JS } = re2();
  let compiled: Re2Module.RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    throw new RegexSyntaxError(error instanceof Error ? error.message : String(error));
  }
  const size = compiled.programSize();
  const regex: CompiledRegex = {
    cost: (input) => size + Math.ceil(((input.length + 1) * size) / CHARACTER_INSTRUCTIONS_PER_UNIT),
    test: (input) => compiled.matcher(input).find(),
  };
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(pattern, regex);
  return regex;
}
