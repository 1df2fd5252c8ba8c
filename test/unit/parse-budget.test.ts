/**
 * The bounds on what a run reads at all and on what it hands to the full YAML parser
 * (src/yaml/parse-budget.ts, src/krm/input-limits.ts), and on what a set makes (src/fanout/targets.ts):
 * each ends the run with an error result, never with memory run out.
 */
import { parse } from 'yaml';
import { MAX_INPUT_OBJECTS } from '../../src/krm/input-bounds';
import { checkWholeList } from '../../src/krm/input-limits';
import { MAX_DOCUMENT_UNITS, ParseBudget, ParseBudgetExceeded } from '../../src/yaml/parse-budget';
import { countLines, countUnits } from '../../src/yaml/text-units';
import { parseResourceList } from '../../src/krm/resource-list';
import { FunctionError } from '../../src/krm/results';
import { packageVariantFunction } from '../../src/function';
import { MAX_VARIANTS } from '../../src/fanout/targets';
import { resourceList, runFunction } from '../helpers';

const HEADER = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n';
const OPTIONS = 'functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: options\n  data:\n    strategy: resource-merge\n';

function thrown(action: () => void): string {
  try {
    action();
  } catch (error) {
    if (error instanceof FunctionError) return error.results.map((r) => r.message).join('\n');
    if (error instanceof ParseBudgetExceeded) return error.message;
    throw error;
  }
  return 'nothing thrown';
}

describe('the parser budget of a run', () => {
  it('counts lines as a file has them, with or without a last newline, and flow entries as units', () => {
    expect([countLines(''), countLines('a'), countLines('a\n'), countLines('a\nb'), countLines('a\n\nb\n')]).toEqual([0, 1, 1, 2, 3]);
    expect([countUnits('a: 1\n'), countUnits('a: [1, 2, {b: 3}]\n'), countUnits('[{"a":1},{"a":2}]')]).toEqual([1, 5, 5]);
  });

  it('takes documents until one would pass a bound on characters, units, units in one document or documents, and names that bound', () => {
    const budget = new ParseBudget({ bytes: 100, units: 5, documents: 3, documentUnits: 4 });
    budget.spend('a: 1\nb: 2\n');
    budget.spend('c: 3\n');
    expect(thrown(() => budget.spend('d: 4\ne: 5\nf: 6\n'))).toBe(
      'the input needs the full YAML parser for more than it reads in a run (6 lines and flow entries): it parses at most 100 characters, 5 lines and flow entries (4 in one item) and 3 documents, for items outside the simple YAML the function reads itself and for the items a run changes (see "Safety" in the README)',
    );
    expect(thrown(() => budget.spend('d: [1, 2, 3, 4]\n'))).toMatch(/\(5 lines and flow entries in one item\)/);
    budget.spend('g: 7\n');
    expect(thrown(() => budget.spend('h: 8\n'))).toMatch(/\(4 documents\)/);
    expect(thrown(() => new ParseBudget({ bytes: 10, units: 5, documents: 3, documentUnits: 5 }).spend('key: a long value\n'))).toMatch(/\(18 characters\)/);
  });

  it('bounds a list parsed as one document by its characters, and lines and flow entries', () => {
    expect(thrown(() => checkWholeList('a: 1\n'.repeat(4), { bytes: 100, units: 4 }))).toBe('nothing thrown');
    expect(thrown(() => checkWholeList('a: 1\n'.repeat(5), { bytes: 100, units: 4 }))).toMatch(/it has 25 characters and 5 lines and flow entries: the function parses at most 100 characters and 4 lines and flow entries that way/);
    expect(thrown(() => checkWholeList('[1, 2, 3, 4]', { bytes: 100, units: 4 }))).toMatch(/it has 12 characters and 5 lines and flow entries/);
  });

  it('refuses, through the function, a list that cannot be read item by item and is too long to parse whole', () => {
    // One anchor keeps the line scan from splitting the list: it would be one document of MAX_DOCUMENT_UNITS + 1 lines.
    const input = `${HEADER}- a: &x 1\n${'- a: 1\n'.repeat(MAX_DOCUMENT_UNITS - 3)}`;
    const outcome = runFunction(input);
    expect(outcome.exitCode).toBe(1);
    expect(parse(outcome.output).items).toEqual([]);
    expect(outcome.results).toEqual([{ severity: 'error', message: expect.stringMatching(/^the input must be parsed as one YAML document .* and 250,001 lines and flow entries: the function parses at most 16,777,216 characters and 250,000 lines and flow entries that way/) }]);
  });

  it('refuses, through the function, a JSON list on one line with more flow entries than it parses', () => {
    const input = `{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[${Array.from({ length: MAX_DOCUMENT_UNITS / 2 }, () => '{"a":1}').join(',')}]}`;
    const outcome = runFunction(input);
    expect(outcome.exitCode).toBe(1);
    expect(outcome.results).toEqual([{ severity: 'error', message: expect.stringMatching(/ and 250,000 lines and flow entries that way/) }]);
  });

  it('stops a run whose items need the parser for more documents than it reads, before memory runs out', () => {
    // Folded scalars put every item outside the fast reader's subset.
    const input = `${HEADER}${'- a: >-\n    x\n'.repeat(11)}${OPTIONS}`;
    expect(thrown(() => parseResourceList(input, { parseLimits: { bytes: 1000, units: 100, documents: 10, documentUnits: 100 } }))).toMatch(/^the input needs the full YAML parser for more than it reads in a run \(11 documents\)/);
    expect(parseResourceList(input, { parseLimits: { bytes: 1000, units: 100, documents: 11, documentUnits: 100 } }).items).toHaveLength(11);
  });

  it('stops a run that builds the trees of more items than it may parse (a merge): the budget covers trees built later too', () => {
    const configMap = (name: string, source?: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  annotations:\n    config.kubernetes.io/path: ${name}.yaml\n${source ? `    config.kubernetes.io/merge-source: ${source}\n` : ''}data:\n  k: ${source ?? 'local'}\n`;
    const input = resourceList(['a', 'b'].flatMap((name) => [configMap(name, 'original'), configMap(name, 'updated'), configMap(name)]));
    const merge = (documents: number) => () => packageVariantFunction(parseResourceList(input, { parseLimits: { bytes: 10_000, units: 1000, documents, documentUnits: 1000 } }));
    expect(thrown(merge(6))).toBe('nothing thrown');
    expect(thrown(merge(5))).toMatch(/^the input needs the full YAML parser for more than it reads in a run \(6 documents\)/);
  });
});

describe('the bound on objects', () => {
  it('refuses more items than a run reads, before reading them', () => {
    const outcome = runFunction(`${HEADER}${'- a: 1\n'.repeat(MAX_INPUT_OBJECTS + 1)}${OPTIONS}`);
    expect(outcome.exitCode).toBe(1);
    expect(outcome.results).toEqual([{ severity: 'error', message: 'the input has 1,000,001 items; the function reads at most 1,000,000 objects in a run (see "Safety" in the README)' }]);
  });

  it('counts the objects of a functionConfig List with the items', () => {
    const list = `functionConfig:\n  apiVersion: v1\n  kind: List\n  items:\n${'  - {a: 1}\n'.repeat(MAX_INPUT_OBJECTS)}`;
    const outcome = runFunction(`${HEADER}- a: 1\n${list}`);
    expect(outcome.results).toEqual([{ severity: 'error', message: 'the input has 1 items and 1,000,000 objects in its functionConfig List; the function reads at most 1,000,000 objects in a run (see "Safety" in the README)' }]);
  });
});

describe('the bound on PackageVariants', () => {
  it('refuses a set whose targets make more PackageVariants than a run writes, naming the target', () => {
    const names = Array.from({ length: MAX_VARIANTS + 1 }, (_, i) => `p${i}`).join(', ');
    const set = `apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata:\n  name: fleet\nspec:\n  upstream: {repo: catalog, package: base, revision: 1}\n  targets:\n  - repositories:\n    - name: c1\n      packageNames: [${names}]\n`;
    const repository = 'apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: c1\n';
    const outcome = runFunction(resourceList([repository], set));
    expect(outcome.exitCode).toBe(1);
    expect(outcome.results).toEqual([
      expect.objectContaining({
        severity: 'error',
        message: 'PackageVariantSet fleet: spec.targets[0]: the targets make more than 200,000 PackageVariants, the most one set makes in a run (see "Safety" in the README); split the fleet over several sets',
        field: { path: 'spec.targets[0]' },
      }),
    ]);
  });
});
