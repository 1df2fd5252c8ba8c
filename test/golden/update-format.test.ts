/**
 * `package-variant update` output a reviewer can read (issue 11) and files that keep what they hold
 * (issue 13): each case under update-format/ has origin/, upstream/ and local/ packages, and
 * expected/, the local package after the update, byte for byte. UPDATE_GOLDEN=1 rewrites expected/;
 * review every file before keeping it.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseDocument } from 'yaml';
import { updateFromDirectories } from '../../src/update/update';

const CASES = join(__dirname, 'update-format');

function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/** Lines of `after` that are not in `before`, and the other way round, by longest common subsequence. */
function changedLines(before: string, after: string): { removed: string[]; added: string[] } {
  const a = before.split('\n');
  const b = after.split('\n');
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i -= 1) for (let j = b.length - 1; j >= 0; j -= 1) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const removed: string[] = [];
  const added: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      i += 1;
      j += 1;
    } else if (j < b.length && (i === a.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) added.push(b[j++]!);
    else removed.push(a[i++]!);
  }
  return { removed, added };
}

/** Runs one case on a copy of its local package; the updated copy's directory. */
function runCase(name: string): { dir: string; results: string[] } {
  const dir = mkdtempSync(join(tmpdir(), `pv-format-${name}-`));
  cpSync(join(CASES, name, 'local'), dir, { recursive: true });
  const outcome = updateFromDirectories({ local: dir, origin: join(CASES, name, 'origin'), upstream: join(CASES, name, 'upstream') });
  return { dir, results: outcome.results.filter((r) => r.severity === 'error').map((r) => r.message) };
}

/** What `git diff` counts between two files: [added, removed] lines. */
function gitDiffStat(before: string, after: string): [number, number] {
  const diff = spawnSync('git', ['diff', '--no-index', '--numstat', before, after], { encoding: 'utf8' });
  const [added, removed] = diff.stdout.split('\t');
  return [Number(added), Number(removed)];
}

const cases = readdirSync(CASES, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();

describe('update keeps each file as its author wrote it', () => {
  const outputs = new Map<string, { dir: string; results: string[] }>();
  afterAll(() => {
    for (const { dir } of outputs.values()) rmSync(dir, { recursive: true, force: true });
  });
  /** The case's local package as the update left it (run once per case). */
  const updated = (name: string) => {
    if (!outputs.has(name)) outputs.set(name, runCase(name));
    return outputs.get(name)!;
  };

  it.each(cases)('%s: the updated package is expected/, byte for byte', (name) => {
    const { dir, results } = updated(name);
    expect(results).toEqual([]);
    const expectedDir = join(CASES, name, 'expected');
    if (process.env.UPDATE_GOLDEN === '1') {
      rmSync(expectedDir, { recursive: true, force: true });
      cpSync(dir, expectedDir, { recursive: true });
    }
    expect(filesBelow(dir)).toEqual(filesBelow(expectedDir));
    for (const file of filesBelow(dir)) expect([file, readFileSync(join(dir, file)).toString('latin1')]).toEqual([file, readFileSync(join(expectedDir, file)).toString('latin1')]);
  });

  it.each(['wide', 'compact'])('%s: a one-line upstream change to a field local did not touch is a one-line diff', (name) => {
    const { dir, results } = updated(name);
    expect(results).toEqual([]);
    const before = readFileSync(join(CASES, name, 'local', 'deployment.yaml'), 'utf8');
    const after = readFileSync(join(dir, 'deployment.yaml'), 'utf8');
    expect(gitDiffStat(join(CASES, name, 'local', 'deployment.yaml'), join(dir, 'deployment.yaml'))).toEqual([1, 1]);
    expect(changedLines(before, after)).toEqual({ removed: ['        image: registry.example.com/web:1.4.0'.replace(/^/, name === 'wide' ? '  ' : '')], added: ['        image: registry.example.com/web:1.5.0'.replace(/^/, name === 'wide' ? '  ' : '')] });
  });

  it.each(['wide', 'compact'])('%s: an element upstream adds to a list is written in the file\'s style', (name) => {
    const before = readFileSync(join(CASES, name, 'local', 'service.yaml'), 'utf8');
    const after = readFileSync(join(CASES, name, 'expected', 'service.yaml'), 'utf8');
    const dash = name === 'wide' ? '    - ' : '  - ';
    expect(changedLines(before, after)).toEqual({ removed: [], added: [`${dash}name: metrics`, `${dash.replace('-', ' ')}port: 9090`, `${dash.replace('-', ' ')}targetPort: 9090`] });
  });

  it('mixed: each document keeps its own style, and a sequence in the other style keeps it', () => {
    const rbac = changedLines(readFileSync(join(CASES, 'mixed', 'local', 'rbac.yaml'), 'utf8'), readFileSync(join(CASES, 'mixed', 'expected', 'rbac.yaml'), 'utf8'));
    expect(rbac).toEqual({ removed: ['  name: web'], added: ['      - watch', '  name: web-frontend'] });
    const worker = changedLines(readFileSync(join(CASES, 'mixed', 'local', 'worker.yaml'), 'utf8'), readFileSync(join(CASES, 'mixed', 'expected', 'worker.yaml'), 'utf8'));
    expect(worker).toEqual({ removed: ['          - --concurrency=4'], added: ['          - --concurrency=8', '          - --retries=3'] });
  });

  it('YAML 1.1 look-alikes taken from upstream are quoted where they are strings; local text keeps its spelling', () => {
    const flags = readFileSync(join(CASES, 'yaml11-lookalikes', 'expected', 'flags.yaml'), 'utf8');
    for (const line of ['  legacy: yes', '  owner: team-b', '  debug: "y"', '  tls: "on"', '  cache: "no"', '  window: "12:30"', '  quoted-mode: "0755"', "  quoted-scale: '1e3'", '  "on": push']) expect(flags.split('\n')).toContain(line);
    const job = readFileSync(join(CASES, 'yaml11-lookalikes', 'expected', 'job.yaml'), 'utf8');
    for (const line of ['              value: "on"', '              value: "12:30"', '              value: 1e3', '            defaultMode: 0755']) expect(job.split('\n')).toContain(line);
  });

  it('%YAML 1.1: the directive stays and 0755 keeps its spelling and its value, 493', () => {
    const text = readFileSync(join(CASES, 'yaml11-directive', 'expected', 'legacy.yaml'), 'utf8');
    expect(text.startsWith('%YAML 1.1\n---\n')).toBe(true);
    expect(text).toMatch(/^ {10}defaultMode: 0755$/m);
    expect(parseDocument(text).getIn(['spec', 'template', 'spec', 'volumes', 0, 'configMap', 'defaultMode'])).toBe(493);
    expect(text).toMatch(/legacy:8/);
  });

  it('CRLF: every line of the file, new document included, ends in CRLF', () => {
    const bytes = readFileSync(join(CASES, 'crlf', 'expected', 'windows.yaml'), 'latin1');
    expect(bytes).toMatch(/level: high\r\n/);
    expect(bytes).toMatch(/---\r\napiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n {2}name: third\r\n/);
    expect(bytes.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  });

  it('comments and markers: header, separators with comments, trailing comments and `...` stay; a removed document takes its own `---`', () => {
    const settings = changedLines(readFileSync(join(CASES, 'comments-and-markers', 'local', 'settings.yaml'), 'utf8'), readFileSync(join(CASES, 'comments-and-markers', 'expected', 'settings.yaml'), 'utf8'));
    expect(settings).toEqual({ removed: ['  color: blue'], added: ['  color: green'] });
    expect(readFileSync(join(CASES, 'comments-and-markers', 'expected', 'pair.yaml'), 'utf8')).toBe('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\ndata:\n  k: v\n');
  });
});
