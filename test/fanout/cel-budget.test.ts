/**
 * The cost budget of PackageVariantSet expressions (src/fanout/cel-cost.ts, cel-metering.ts) and
 * `matches` on RE2 (src/fanout/regex.ts). Inputs that hang or exhaust the heap without the budget
 * are in test/cli/function-limits.test.ts, run in a child process; these finish either way.
 */
import { celObject, compileStringExpression, type CelVariables, type Scope } from '../../src/fanout/cel';
import { EXPRESSION_BUDGET, RunBudget, sizeOf } from '../../src/fanout/cel-cost';

const OBJECT: Scope = { shape: 'object', repository: true, upstream: false };
const target = celObject({ name: 'cluster-01', namespace: 'fleet', labels: { region: 'eu', tier: 'gold' }, annotations: {} });
const VARIABLES: CelVariables = { repoDefault: 'cluster-01', packageDefault: 'foo', target, repository: target };

/** `[0, 1, …, n-1]` as a CEL list literal. */
const range = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(', ')}]`;

function outcome(source: string, run?: RunBudget): { value: string } | { error: string } {
  const compiled = compileStringExpression(source, OBJECT);
  if (!compiled.ok) throw new Error(`did not compile: ${compiled.message}`);
  try {
    return { value: compiled.expression.evaluate(VARIABLES, run) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

const BUDGET_ERROR = /^the expression exceeded its cost budget of 1,000,000 units; simplify it\n\n> {4}1 \| /;

describe('the cost budget of one expression', () => {
  it('stops a comprehension that would build 10^6 strings', () => {
    const source = `${range(100)}.map(a, ${range(100)}.map(b, ${range(100)}.map(c, 'x'))).size() > 0 ? 'big' : 'empty'`;
    expect(outcome(source)).toEqual({ error: expect.stringMatching(BUDGET_ERROR) });
  });

  it('charges a comparison by the size of what it compares, not as one step', () => {
    const source = `cel.bind(l, ${range(500)}.map(a, string(a)), ${range(400)}.map(a, l == l.map(s, s))).size() > 0 ? 'y' : 'n'`;
    expect(outcome(source)).toEqual({ error: expect.stringMatching(BUDGET_ERROR) });
  });

  /** `s0` = 'ab', each `s<i+1>` = `s<i> + s<i>`: a string of 2^31 characters built in 30 steps. */
  const DOUBLING = `cel.bind(s0, 'ab', ${Array.from({ length: 30 }, (_, i) => `cel.bind(s${i + 1}, s${i} + s${i}, `).join('')}s30${')'.repeat(31)}`;

  it('charges a string by its length: doubling one 30 times is over budget at once', () => {
    expect(outcome(DOUBLING)).toEqual({ error: expect.stringMatching(BUDGET_ERROR) });
  });

  it('is not escaped by an || or a quantifier that absorbs errors', () => {
    const costly = `${range(200)}.map(a, ${range(200)}.map(b, ${range(30)})).size() > 0`;
    expect(outcome(`(${costly} || true) ? 'y' : 'n'`)).toEqual({ error: expect.stringMatching(BUDGET_ERROR) });
    expect(outcome(`[1, 2].exists(x, ${costly} || x == 2) ? 'y' : 'n'`)).toEqual({ error: expect.stringMatching(BUDGET_ERROR) });
  });

  it('leaves ordinary expressions, and comprehensions over labels, well inside it', () => {
    const run = new RunBudget();
    const source = "target.labels.map(k, k + '=' + string(target.labels[k])).join(',') + '-' + repoDefault.upperAscii()";
    expect(outcome(source, run)).toEqual({ value: 'region=eu,tier=gold-CLUSTER-01' });
    expect(run.limit - run.remaining).toBeLessThan(1_000);
  });

  it('costs the same on every run', () => {
    const source = `${range(50)}.map(a, string(a)).join('-')`;
    const spent = [new RunBudget(), new RunBudget()].map((run) => {
      outcome(source, run);
      return run.limit - run.remaining;
    });
    expect(spent[0]).toBeGreaterThan(50);
    expect(spent[0]).toBe(spent[1]);
  });

  it('cuts a long expression in the excerpt of its message', () => {
    const { error } = outcome(DOUBLING) as { error: string };
    expect(error.split('\n')[2]).toBe(`>    1 | ${DOUBLING.slice(0, 120)}…`);
  });
});

describe("cel-js's own messages", () => {
  it('quote a long line only around the caret', () => {
    const source = `'${'a'.repeat(300)}' + ${'b'.repeat(300)} + 'c'`;
    const compiled = compileStringExpression(source, OBJECT);
    expect(compiled).toEqual({ ok: false, message: expect.stringMatching(/^Unknown variable: b{300}\n\n/) });
    const [, , excerpt, caret] = (compiled as { message: string }).message.split('\n');
    expect(excerpt).toBe(`>    1 | …${`'${'a'.repeat(300)}' + ${'b'.repeat(300)}`.slice(245, 365)}…`);
    expect(caret!.indexOf('^')).toBe(excerpt!.indexOf('b'));
  });
});

describe('the budget of a run', () => {
  it('is shared by every evaluation, and its message says it is the run that ran out', () => {
    const run = new RunBudget(2 * EXPRESSION_BUDGET);
    const source = `${range(300)}.map(a, ${range(300)}.map(b, b)).size() > 0 ? 'y' : 'n'`;
    const results = Array.from({ length: 5 }, () => outcome(source, run));
    expect(results.slice(0, 3)).toEqual(Array(3).fill({ value: 'y' }));
    expect(results[3]).toEqual({ error: expect.stringMatching(/^the run's expressions together exceeded their cost budget of 2,000,000 units; simplify it\n/) });
    expect(results[4]).toEqual(results[3]);
  });
});

describe('the size of a value', () => {
  it('counts characters, elements and entries all the way down', () => {
    expect(sizeOf('abc')).toBe(3);
    expect(sizeOf(7n)).toBe(0);
    expect(sizeOf(['ab', ['c']])).toBe(1 + 2 + 1 + (1 + 1));
    expect(sizeOf({ k: 'vv' })).toBe(1 + 1 + 2);
    expect(sizeOf(new Map([['k', ['x']]]))).toBe(1 + 1 + (1 + 1));
  });

  it('does not remember an empty list, which a comprehension fills in place', () => {
    const accumulator: string[] = [];
    expect(sizeOf(accumulator)).toBe(0);
    accumulator.push('abcd');
    expect(sizeOf(accumulator)).toBe(5);
  });
});

describe('matches is RE2, as in cel-go', () => {
  it('searches unanchored, in RE2 syntax', () => {
    expect(outcome("target.name.matches('ster-0') ? 'y' : 'n'")).toEqual({ value: 'y' });
    expect(outcome("target.name.matches('(?i)^CLUSTER-\\\\d+$') ? 'y' : 'n'")).toEqual({ value: 'y' });
    expect(outcome("target.labels['region'].matches('^[[:lower:]]{2}$') ? 'y' : 'n'")).toEqual({ value: 'y' });
  });

  it('rejects what RE2 does not have (lookaround, backreferences), naming the pattern', () => {
    const { error } = outcome("target.name.matches('^(?=c)cluster') ? 'y' : 'n'") as { error: string };
    expect(error).toMatch(/^Invalid regular expression: \^\(\?=c\)cluster: error parsing regexp: invalid or unsupported Perl syntax: `\(\?=` \(patterns are RE2, as in cel-go\)\n\n> {4}1 \| /);
    expect(outcome("target.name.matches('(c)\\\\1') ? 'y' : 'n'")).toEqual({ error: expect.stringMatching(/^Invalid regular expression: \(c\)\\1: /) });
  });

  it('charges the input times the size of the pattern', () => {
    const spent = (input: string, pattern: string) => {
      const run = new RunBudget();
      outcome(`'${input}'.matches('${pattern}') ? 'y' : 'n'`, run);
      return run.limit - run.remaining;
    };
    const short = spent('a'.repeat(10), 'a+b');
    expect(spent('a'.repeat(1000), 'a+b') / short).toBeGreaterThan(50);
    expect(spent('a'.repeat(10), '(a?){100}a{100}b') / short).toBeGreaterThan(50);
  });

  it('a label that is not a string is no matching overload', () => {
    const withInt = { ...VARIABLES, target: celObject({ name: 'x', namespace: '', labels: { n: 3 }, annotations: {} }) };
    const compiled = compileStringExpression("target.labels['n'].matches('3') ? 'y' : 'n'", OBJECT);
    if (!compiled.ok) throw new Error(compiled.message);
    expect(() => compiled.expression.evaluate(withInt)).toThrow(/^found no matching overload for 'int\.matches\(string\)'/);
  });
});

describe('the size of an expression', () => {
  it('is at most 1,000 nodes, so that checking and evaluating it cannot overflow the stack', () => {
    const compiled = compileStringExpression(Array(501).fill("'a'").join(' + '), OBJECT);
    expect(compiled).toEqual({ ok: false, message: expect.stringMatching(/^Exceeded maxAstNodes \(1000\)/) });
    expect(compileStringExpression(Array(500).fill("'a'").join(' + '), OBJECT).ok).toBe(true);
  });
});
