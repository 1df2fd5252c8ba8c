/**
 * The function under hostile input, as a process (dist/main.js): inputs that ran for minutes,
 * exhausted the heap or ended in a stack trace. Each child is bounded in time, so that a
 * regression fails here instead of hanging the suite.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { MAX_SCALAR_CHARS } from '../../src/krm/input-limits';
import { REPO_ROOT, resourceList, runFunction } from '../helpers';

const MAIN = join(REPO_ROOT, 'dist/main.js');
const CHILD_TIMEOUT_MS = 30_000;
jest.setTimeout(2 * CHILD_TIMEOUT_MS);

function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

function fn(input: string | Buffer, stdin: 'pipe' | number = 'pipe') {
  if (!existsSync(MAIN)) throw new Error('dist/main.js is missing: run `npm run build` (npm test builds first)');
  const run = spawnSync(process.execPath, [MAIN], {
    input: stdin === 'pipe' ? input : undefined,
    stdio: [stdin, 'pipe', 'pipe'],
    env: childEnv(),
    encoding: 'utf8',
    timeout: CHILD_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.error) throw run.error;
  const list = parse(run.stdout, { maxAliasCount: -1 }) as { items: unknown[]; results?: { message: string; severity: string }[] };
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, list };
}

const HEADER = 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n';

/** A set over one Repository (labels given as YAML flow) whose one label expression is `expr`. */
function setInput(labels: string, expr: string): string {
  const repository = `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: c1\n  labels: ${labels}\n`;
  const set = `apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata:
  name: fleet
spec:
  upstream: {repo: catalog, package: base, revision: 1}
  targets:
  - repositorySelector: {}
    template:
      labelExprs:
      - key: probe
        valueExpr: ${JSON.stringify(expr)}
`;
  return resourceList([repository], set);
}

/** The value the probe label got in the PackageVariant written for c1. */
function probeLabel(list: { items: unknown[] }): unknown {
  const variant = list.items.find((item) => (item as { kind: string }).kind === 'PackageVariant') as { spec: { labels: Record<string, string> } };
  return variant.spec.labels.probe;
}

describe('CEL expressions cannot hold a function runner', () => {
  it("'aaaa…!'.matches('^(a+)+$') answers at once (it backtracked for 55 s)", () => {
    const out = fn(setInput('{env: prod}', `'${'a'.repeat(36)}!'.matches('^(a+)+$') ? 'y' : 'n'`));
    expect(out.code).toBe(0);
    expect(probeLabel(out.list)).toBe('n');
  });

  it('a backtracking pattern on a 33-character label answers at once (it ran past 60 s)', () => {
    const out = fn(setInput(`{env: "${'a'.repeat(32)}!"}`, "repository.labels['env'].matches('^(a|a?)+$') ? 'y' : 'n'"));
    expect(out.code).toBe(0);
    expect(probeLabel(out.list)).toBe('n');
  });

  it('nested map() comprehensions are an error result naming the expression, its path and the target (the heap ran out, stdout empty)', () => {
    const range = `[${Array.from({ length: 100 }, (_, i) => i).join(',')}]`;
    const expr = `${range}.map(a, ${range}.map(b, ${range}.map(c, ${range}.map(d, ${range}.map(e, 'xxxxxxxxxxxxxxxx'))))).size() > 0 ? 'y' : 'n'`;
    const out = fn(setInput('{env: prod}', expr));
    expect(out.code).toBe(1);
    expect(out.list.results).toEqual([
      expect.objectContaining({
        severity: 'error',
        message: expect.stringMatching(
          /^PackageVariantSet fleet: spec\.targets\[0\]\.template\.labelExprs\[0\]\.valueExpr failed for Repository c1 \(selected by spec\.targets\[0\]\.repositorySelector\): the expression exceeded its cost budget of 1,000,000 units; simplify it\n\n> {4}1 \| \[0,1,2,3/,
        ),
      }),
    ]);
  });
});

describe('input beyond the documented limits is an error result, before memory runs out', () => {
  const configMap = (name: string, value: string) => `- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: ${name}\n  data:\n    big: ${value}\n`;

  it('more than 64 MiB: three versions of a 23 MB string to merge (a 50 MB one took 2.1 GB, a 200 MB one killed the process)', () => {
    const big = `"${'a: b '.repeat(4.5 * 1024 * 1024)}"`;
    const tag = (source: string) => configMap('big', big).replace('  metadata:\n', `  metadata:\n    annotations:\n      config.kubernetes.io/merge-source: ${source}\n`);
    const out = fn(`${HEADER}${configMap('big', big)}${tag('original')}${tag('updated').replace('a: b', 'a: c')}`);
    expect(out.code).toBe(1);
    expect(out.list).toEqual({
      apiVersion: 'config.kubernetes.io/v1',
      kind: 'ResourceList',
      items: [],
      results: [{ message: expect.stringMatching(/^the input is 70,779,\d{3} bytes; the function reads at most 67,108,864 bytes in 2,500,000 lines and flow entries \(see "Safety" in the README\)$/), severity: 'error' }],
    });
    expect(out.stderr).toMatch(/^package-variant: the input is 70,779,\d{3} bytes; [^\n]*\n$/);
  });

  it('more than 2,500,000 lines, however short', () => {
    const out = fn(`${HEADER}${'- a: 1\n'.repeat(2_600_000)}`);
    expect(out.code).toBe(1);
    expect(out.list.results).toEqual([{ message: expect.stringMatching(/^the input is 2,600,003 lines and flow entries; /), severity: 'error' }]);
  });

  it('more than 2,500,000 flow entries, on one line (a list of two-character strings took 2 GB)', () => {
    const out = fn(`${HEADER}- data: [${'ab, '.repeat(2_600_000)}ab]\n`);
    expect(out.code).toBe(1);
    expect(out.list.results).toEqual([{ message: expect.stringMatching(/^the input is 2,600,00\d lines and flow entries; /), severity: 'error' }]);
  });

  it('a string of more than 4 MiB: the error names the item and the field, and the items come back as they were', () => {
    const input = resourceList([`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n  annotations:\n    config.kubernetes.io/path: cm.yaml\ndata:\n  big: "${'x'.repeat(MAX_SCALAR_CHARS + 1)}"\n`], 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: options\ndata:\n  strategy: resource-merge\n');
    const outcome = runFunction(input);
    expect(outcome.exitCode).toBe(1);
    expect(outcome.results).toEqual([
      {
        message: 'items[0] (ConfigMap big): the string at data.big is 4,194,305 characters; the function works on strings of at most 4,194,304 (see "Safety" in the README)',
        severity: 'error',
        resourceRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'big' },
        field: { path: 'data.big' },
        file: { path: 'cm.yaml' },
      },
    ]);
    expect(outcome.output.startsWith(input)).toBe(true);
  });
});

describe('closed or unreadable standard streams end with one line and exit 1, never a stack trace', () => {
  it('stdout closed before the output is written (`| head`)', async () => {
    const input = `${HEADER}${Array.from({ length: 20_000 }, (_, i) => configMap(`cm-${i}`)).join('')}`;
    const child = spawn(process.execPath, [MAIN], { stdio: ['pipe', 'pipe', 'pipe'], env: childEnv(), timeout: CHILD_TIMEOUT_MS });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toBe('package-variant: stdout was closed before the output was written (EPIPE)\n');
  });

  it('a directory on stdin: the message, also as an error result', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pv-stdin-'));
    const fd = openSync(dir, 'r');
    try {
      const out = fn('', fd);
      expect(out.code).toBe(1);
      expect(out.stderr).toBe('package-variant: cannot read the ResourceList from stdin: EISDIR: illegal operation on a directory, read\n');
      expect(out.list.results).toEqual([{ message: 'cannot read the ResourceList from stdin: EISDIR: illegal operation on a directory, read', severity: 'error' }]);
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true });
    }
  });

  function configMap(name: string): string {
    return `- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: ${name}\n  data:\n    key: value\n`;
  }
});
