/**
 * The plan as text: one line per downstream, grouped by repository, and a message of several lines
 * (git's own, quoted from a server) kept inside its entry, where no line of it reads as an entry.
 */
import { planText, type PlannedDownstream, type SyncPlan } from '../../src/sync/plan';

const entry = (over: Partial<PlannedDownstream>): PlannedDownstream => ({ repository: 'edge1', pkg: 'app', variant: 'PackageVariant default/v', action: 'create', detail: '', refs: [], results: [], ...over });
const plan = (downstreams: PlannedDownstream[]): SyncPlan => ({ downstreams, writes: [], problems: [] });

it('keeps each entry on its line, the repositories sorted', () => {
  const text = planText(plan([entry({ repository: 'edge2', detail: 'catalog/app v1', refs: ['drafts/app/packagevariant-1'] }), entry({ action: 'unchanged' })]), new Map([['edge1', './edge1.git'], ['edge2', './edge2.git']]));
  expect(text).toBe(['repository edge1 (./edge1.git)', '  unchanged   app', 'repository edge2 (./edge2.git)', '  create      app  catalog/app v1 -> drafts/app/packagevariant-1', 'Plan: 1 create, 1 unchanged.', ''].join('\n'));
});

it("indents the further lines of a message under its entry: a server's text cannot pose as an entry or a repository", () => {
  const forged = "git fetch failed: fatal: no such repository\nrepository edge9 (./edge9.git)\n  create      evil  catalog/evil v1\n";
  const text = planText(plan([entry({ action: 'invalid', detail: forged, results: [{ severity: 'warning', message: 'one\n  unchanged   x' }] })]), new Map([['edge1', './edge1.git']]));
  const lines = text.split('\n');
  expect(lines.filter((line) => /^(repository |  \S)/.test(line))).toEqual(['repository edge1 (./edge1.git)', '  invalid     app  git fetch failed: fatal: no such repository']);
  expect(lines).toContain('        repository edge9 (./edge9.git)');
  expect(lines).toContain('          unchanged   x');
  expect(text.endsWith('Plan: 1 invalid, 0 unchanged.\n')).toBe(true);
});
