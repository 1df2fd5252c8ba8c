/**
 * Package scopes in the function: from the items' path annotations and Kptfiles alone, as
 * `kpt fn eval` sends a composite package (every subpackage's resources and Kptfiles).
 */
import { parse } from 'yaml';
import { resourceList, runFunction } from '../helpers';

type Source = 'original' | 'updated' | undefined;

function item(path: string, body: string, source?: Source): string {
  const annotations = [`internal.config.kubernetes.io/path: '${path}'`, ...(source ? [`config.kubernetes.io/merge-source: ${source}`] : [])];
  return body.replace(/^metadata:\n  name: (.*)$/m, (_m, name) => `metadata:\n  name: ${name}\n  annotations:\n${annotations.map((a) => `    ${a}`).join('\n')}`);
}

const kptfile = (name: string, extra = '') => `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n${extra}`;
const cm = (name: string, value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  v: "${value}"\n`;

/** One version of a package with subpackages a/ and b/, each holding ConfigMap config. */
function version(source: Source, values: { root?: string; a?: string; b?: string | null; c?: string }, extra: string[] = []): string[] {
  const items = [item('Kptfile', kptfile('pkg'), source), item('cm.yaml', cm('config', values.root ?? 'r'), source), item('a/Kptfile', kptfile('a'), source), item('a/cm.yaml', cm('config', values.a ?? 'a'), source)];
  if (values.b !== null) items.push(item('b/Kptfile', kptfile('b'), source), item('b/cm.yaml', cm('config', values.b ?? 'b'), source));
  if (values.c !== undefined) items.push(item('c/Kptfile', kptfile('c'), source), item('c/cm.yaml', cm('config', values.c), source));
  return [...items, ...extra];
}

function run(items: string[]) {
  const out = runFunction(resourceList(items));
  const list = parse(out.output) as { items: Record<string, any>[] };
  const at = (path: string) => list.items.find((i) => i.metadata.annotations?.['internal.config.kubernetes.io/path'] === path);
  return { ...out, at, messages: out.results.map((r) => String(r.message)) };
}

describe('package scopes in the function', () => {
  it('merges same-named resources of sibling subpackages each in its own package', () => {
    const out = run([...version(undefined, { b: 'b-local' }), ...version('original', {}), ...version('updated', { a: 'a2' })]);
    expect(out.exitCode).toBe(0);
    expect(out.at('a/cm.yaml')!.data.v).toBe('a2');
    expect(out.at('b/cm.yaml')!.data.v).toBe('b-local');
    expect(out.at('cm.yaml')!.data.v).toBe('r');
  });

  it('adds a subpackage upstream added, into its own files, though its resources share names', () => {
    const out = run([...version(undefined, { a: 'a-local' }), ...version('original', {}), ...version('updated', { c: 'c' })]);
    expect(out.at('c/cm.yaml')!.data.v).toBe('c');
    expect(out.at('c/Kptfile')).toBeDefined();
    expect(out.at('a/cm.yaml')!.data.v).toBe('a-local');
  });

  it('reports a subpackage added in both as an error', () => {
    const out = run([...version(undefined, { c: 'mine' }), ...version('original', {}), ...version('updated', { c: 'theirs' })]);
    expect(out.exitCode).toBe(1);
    expect(out.messages).toContain('subpackage "c" added in both upstream and local');
  });

  it('keeps a subpackage deleted upstream but changed locally, whole, with a warning', () => {
    const out = run([...version(undefined, { b: 'b-local' }), ...version('original', {}), ...version('updated', { b: null })]);
    expect(out.at('b/cm.yaml')!.data.v).toBe('b-local');
    expect(out.at('b/Kptfile')).toBeDefined();
    expect(out.messages).toContain('subpackage "b" was deleted upstream but changed locally; it is kept. Delete it if it is no longer wanted.');
    const removed = run([...version(undefined, {}), ...version('original', {}), ...version('updated', { b: null })]);
    expect(removed.at('b/cm.yaml')).toBeUndefined();
    expect(removed.at('b/Kptfile')).toBeUndefined();
  });

  it('leaves an independent subpackage alone and says so', () => {
    const own = 'upstream:\n  type: git\n  git:\n    repo: https://example.com/ext\n    directory: /ext\n    ref: v1\n';
    const local = [item('ext/Kptfile', kptfile('ext', own)), item('ext/cm.yaml', cm('config', 'ext'))];
    const out = run([...version(undefined, {}, local), ...version('original', {}), ...version('updated', {}, [item('ext/cm.yaml', cm('config', 'parent'), 'updated')])]);
    expect(out.at('ext/cm.yaml')!.data.v).toBe('ext');
    expect(out.messages).toContain('subpackage "ext" has its own upstream (https://example.com/ext /ext@v1): it is not part of this merge; update it from there');
  });

  it('tells apart by path an identity a subpackage declares twice, within that subpackage only', () => {
    const twice = (source: Source, value: string) => [item('a/more.yaml', cm('config', value), source)];
    const out = run([...version(undefined, {}, twice(undefined, 'm')), ...version('original', {}, twice('original', 'm')), ...version('updated', { a: 'a2', root: 'r2' }, twice('updated', 'm2'))]);
    expect(out.exitCode).toBe(0);
    expect(out.at('a/cm.yaml')!.data.v).toBe('a2');
    expect(out.at('a/more.yaml')!.data.v).toBe('m2');
    expect(out.at('cm.yaml')!.data.v).toBe('r2');
    const warnings = out.results.filter((r) => r.severity === 'warning').map((r) => String(r.message));
    expect(warnings).toEqual([expect.stringMatching(/^ConfigMap config is declared more than once in one version of the package \(origin: a\/cm\.yaml, a\/more\.yaml; upstream: a\/cm\.yaml, a\/more\.yaml; local: a\/cm\.yaml, a\/more\.yaml\)/)]);
  });

  it("force-delete-replace replaces a subpackage's Kptfile whole", () => {
    const root = (description: string, source: Source) => item('Kptfile', kptfile('pkg', `info:\n  description: ${description}\n`), source);
    const sub = (description: string, source: Source) => item('a/Kptfile', kptfile('a', `info:\n  description: ${description}\n  keywords: [x]\n`), source);
    const items = [root('local', undefined), sub('local', undefined), root('v1', 'original'), sub('v1', 'original'), root('v2', 'updated'), item('a/Kptfile', kptfile('a', 'info:\n  description: v2\n'), 'updated')];
    const out = runFunction(resourceList(items, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: o\ndata:\n  strategy: force-delete-replace\n'));
    const list = parse(out.output) as { items: Record<string, any>[] };
    const subKptfile = list.items.find((i) => i.metadata.name === 'a')!;
    expect(subKptfile.info).toEqual({ description: 'v2' });
  });
});
