/**
 * The acceptance check for no-op runs through the real kpt: over every real-world package in
 * ../shared/conformance/real-packages and test/corpus/edge-cases, `kpt fn eval --exec <our
 * function>` must leave every file byte-identical to `kpt fn eval --exec cat`.
 *
 * The baseline is `cat`, not the package as it was: kpt re-serialises the files it reads (it
 * re-indents `commonLabels:` maps, drops a blank line after a license header...), and that is
 * kpt's doing, not the function's.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers';
import { copyPackage, childEnv, EVAL_EXEC, mapLimit, missingDistMessage, readTree, runProcess, type ProcessOutcome } from './kpt-harness';
import { describeUnless, kptAbsent } from '../skip-notice';

const SHARED = join(REPO_ROOT, '..', 'shared');
const REAL_PACKAGES = join(SHARED, 'conformance', 'real-packages');

/**
 * Packages kpt itself cannot read, so kpt fails before any function runs. There the function
 * must fail the same way: same kpt exit code, same message, no file touched.
 */
const KPT_CANNOT_READ: Record<string, string> = {
  'render-helm-chart-local': 'helloworld-chart/templates/*.yaml are Go templates, not YAML (kpt: MalformedYAMLError)',
  'render-helm-chart-remote-values-file': 'helloworld-chart/templates/*.yaml are Go templates, not YAML (kpt: MalformedYAMLError)',
};

/** kpt runs at a time: kpt and Node each take about a core while they start. */
const CONCURRENCY = 2;
const KPT_TIMEOUT_MS = 60_000;

interface Package {
  name: string;
  dir: string;
}

function packageDirs(): Package[] {
  const under = (parent: string) =>
    readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => ({ name: entry.name, dir: join(parent, entry.name) }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  return [...under(join(REAL_PACKAGES, 'examples')), ...under(join(REAL_PACKAGES, 'package-examples')), { name: 'edge-cases', dir: join(REPO_ROOT, 'test', 'corpus', 'edge-cases') }];
}

interface Outcome {
  cat: ProcessOutcome;
  ours: ProcessOutcome;
  catTree: Map<string, Buffer>;
  ourTree: Map<string, Buffer>;
  sourceFiles: string[];
}

/** Where two trees differ, each as a readable line or block; empty when identical. */
function treeDifferences(cat: Map<string, Buffer>, ours: Map<string, Buffer>): string[] {
  const problems: string[] = [];
  for (const file of new Set([...cat.keys(), ...ours.keys()])) {
    const a = cat.get(file);
    const b = ours.get(file);
    if (!a) problems.push(`${file}: written by our function only`);
    else if (!b) problems.push(`${file}: missing after our function (present after cat)`);
    else if (!a.equals(b)) {
      const catLines = a.toString('utf8').split('\n');
      const ourLines = b.toString('utf8').split('\n');
      let line = 0;
      while (line < catLines.length && catLines[line] === ourLines[line]) line++;
      const show = (lines: string[]) => lines.slice(Math.max(0, line - 2), line + 3).map((l) => JSON.stringify(l)).join('\n    ');
      problems.push(`${file}: differs from line ${line + 1}\n  cat:\n    ${show(catLines)}\n  ours:\n    ${show(ourLines)}`);
    }
  }
  return problems;
}

const describeIfKpt = describeUnless(kptAbsent(), 'the no-op identity suite (test/e2e/no-op-identity.test.ts)');

const packages = packageDirs();

describeIfKpt('a no-op kpt fn eval of the function leaves real packages byte-identical to --exec cat', () => {
  const outcomes = new Map<string, Outcome>();
  let tmp = '';

  beforeAll(async () => {
    const missing = missingDistMessage();
    if (missing) throw new Error(missing);
    tmp = mkdtempSync(join(tmpdir(), 'pv-noop-'));
    const env = childEnv();
    const jobs = packages.flatMap((pkg) =>
      (['cat', 'ours'] as const).map((side) => {
        const dir = join(tmp, pkg.name, side);
        copyPackage(pkg.dir, dir);
        return { pkg, side, dir, exec: side === 'cat' ? 'cat' : EVAL_EXEC };
      }),
    );
    const results = await mapLimit(jobs, CONCURRENCY, (job) => runProcess('kpt', ['fn', 'eval', job.dir, '--exec', job.exec], { env, timeoutMs: KPT_TIMEOUT_MS }));
    packages.forEach((pkg, i) => {
      const [cat, ours] = [results[2 * i]!, results[2 * i + 1]!];
      outcomes.set(pkg.name, {
        // kpt names the package directory in its messages; compare them without it.
        cat: { ...cat, stderr: cat.stderr.split(join(tmp, pkg.name, 'cat')).join('PKG') },
        ours: { ...ours, stderr: ours.stderr.split(join(tmp, pkg.name, 'ours')).join('PKG') },
        catTree: readTree(join(tmp, pkg.name, 'cat')),
        ourTree: readTree(join(tmp, pkg.name, 'ours')),
        sourceFiles: [...readTree(pkg.dir).keys()],
      });
    });
  }, 300_000);

  afterAll(() => {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('finds the real packages', () => {
    expect(packages.length).toBeGreaterThanOrEqual(50);
    for (const name of Object.keys(KPT_CANNOT_READ)) expect(packages.map((p) => p.name)).toContain(name);
  });

  const readable = packages.filter((pkg) => !(pkg.name in KPT_CANNOT_READ));
  const unreadable = packages.filter((pkg) => pkg.name in KPT_CANNOT_READ);

  it.each(readable.map((pkg) => [pkg.name]))('%s', (name) => {
    const outcome = outcomes.get(name)!;
    expect({ cat: outcome.cat.exitCode, catStderr: outcome.cat.exitCode === 0 ? '' : outcome.cat.stderr }).toEqual({ cat: 0, catStderr: '' });
    expect({ ours: outcome.ours.exitCode, stderr: outcome.ours.exitCode === 0 ? '' : outcome.ours.stderr }).toEqual({ ours: 0, stderr: '' });
    expect(treeDifferences(outcome.catTree, outcome.ourTree)).toEqual([]);
    // kpt neither adds nor removes files on a no-op; a smaller tree would mean a broken copy.
    expect([...outcome.ourTree.keys()].sort()).toEqual([...outcome.sourceFiles].sort());
  });

  it.each(unreadable.map((pkg) => [pkg.name, KPT_CANNOT_READ[pkg.name]!]))('%s fails in kpt as with cat (%s)', (name) => {
    const outcome = outcomes.get(name)!;
    // If cat starts passing here, kpt learnt to read the package: move it to the checked list.
    expect(outcome.cat.exitCode).not.toBe(0);
    expect(outcome.ours.exitCode).toBe(outcome.cat.exitCode);
    expect(outcome.ours.stderr).toBe(outcome.cat.stderr);
    expect(treeDifferences(outcome.catTree, outcome.ourTree)).toEqual([]);
    expect(treeDifferences(readTree(packages.find((p) => p.name === name)!.dir), outcome.ourTree)).toEqual([]);
  });
});
