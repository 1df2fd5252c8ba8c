/**
 * Every YAML example of the design document (../shared/reference/package-variant-design.md) runs
 * through the function: the fixtures in test/fixtures/design-examples/ are the examples re-indented,
 * and scenarios.ts says how each is used and what its result must be (the design's tables). The
 * same scenarios run through `kpt fn eval` in test/e2e/design-examples.test.ts.
 */
import { allExamples, comparableLines, designTable } from './design-doc';
import { designScenarios } from './scenarios';
import { errors, run, runAgain } from '../variant/variant-helpers';

const examples = allExamples();
const scenarios = designScenarios();

describe('the fixtures are the design examples', () => {
  it('ten examples, numbered in the order of the design, each from later lines than the one before', () => {
    expect(examples.map((example) => example.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    examples.slice(1).forEach((example, i) => expect(example.lines[0]).toBeGreaterThan(examples[i]!.lines[1]));
  });

  it.each(examples.map((example) => [example.file, example] as const))('%s differs from its lines of the design only in indentation', (_file, example) => {
    const { fixture, design } = comparableLines(example);
    expect(fixture.length).toBeGreaterThan(0);
    expect(fixture).toEqual(design);
  });

  it("the design's tables are read whole", () => {
    expect(designTable(493, 501, ['Repository', 'Package Name'])).toHaveLength(7);
    expect(designTable(530, 540, ['Repository', 'Package Name'])).toHaveLength(9);
    expect(designTable(504, 509, ['Repository', 'Labels'])).toEqual(designTable(772, 777, ['Repository', 'Labels']));
  });

  it('every example is used by a scenario', () => {
    expect([...new Set(scenarios.flatMap((scenario) => scenario.examples))].sort((a, b) => a - b)).toEqual(examples.map((example) => example.number));
  });
});

describe('the design examples through the function', () => {
  it.each(scenarios.map((scenario) => [scenario.name, scenario] as const))('%s', (_name, scenario) => {
    const first = run(scenario.files, scenario.functionConfig);
    expect(errors(first)).toEqual([]);
    expect(first.exitCode).toBe(0);
    scenario.check({ files: first.files, ordered: true });
    const second = runAgain(first, scenario.functionConfig);
    expect(second.exitCode).toBe(0);
    expect(second.files).toEqual(first.files);
  });
});
