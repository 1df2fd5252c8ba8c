/**
 * Valid but unusual input (issue 13, "input fidelity"): JSON and flow-style lists, bytes that are
 * not UTF-8, `%YAML 1.1`, tags and aliases the merge cannot carry, trailing comments, CRLF. Each
 * case is the input that went wrong, and what a run must give for it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseDocument, stringify } from 'yaml';
import { packageVariantFunction } from '../../src/function';
import { runKrmFunction } from '../../src/krm/run';
import { decodeUtf8, encodeText } from '../../src/yaml/utf8';
import { updateFromDirectories } from '../../src/update/update';
import type { UpdateOutcome } from '../../src/update/locked-update';
import { REPO_ROOT } from '../helpers';

const cm = (name: string, data: string, source?: string) =>
  `- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: ${name}\n    annotations:\n      config.kubernetes.io/path: ${name}.yaml${source ? `\n      config.kubernetes.io/merge-source: ${source}` : ''}\n  data:\n${data}`;

/** A list whose merge changes `local`'s data: upstream changes `a` from "1" to "2". */
const mergeList = (local = '    a: "1"\n', extraItems = '') =>
  `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${cm('cm', local)}${cm('cm', '    a: "1"\n', 'original')}${cm('cm', '    a: "2"\n', 'updated')}${extraItems}`;

const run = (input: string) => runKrmFunction(input, packageVariantFunction);
const errors = (output: string) => ((parse(output) as { results?: { severity: string; message: string; field?: { path: string } }[] }).results ?? []).filter((r) => r.severity === 'error');

describe('JSON and flow-style ResourceLists', () => {
  const data = parse(mergeList()) as Record<string, unknown>;

  it('a JSON list comes back as JSON, with its layout, merged', () => {
    for (const indent of [2, 0]) {
      const input = `${JSON.stringify(data, null, indent)}\n`;
      const { output, exitCode } = run(input);
      expect(exitCode).toBe(0);
      const out = JSON.parse(output) as { items: { data: Record<string, string> }[]; results: unknown[] };
      expect(out.items).toHaveLength(1);
      expect(out.items[0]!.data).toEqual({ a: '2' });
      expect(out.results).toHaveLength(1);
      expect(output.includes('\n  "items": [')).toBe(indent === 2);
    }
  });

  it('an unchanged JSON item keeps its text: numbers such as 1.0 and 12345678901234567890', () => {
    const input = JSON.stringify(data, null, 2).replace('"items": [', '"items": [\n    {"apiVersion": "v1", "kind": "Sizes", "metadata": {"name": "s"}, "spec": {"ratio": 1.0, "big": 12345678901234567890}},');
    const { output, exitCode } = run(input);
    expect(exitCode).toBe(0);
    expect(output).toContain('{"apiVersion": "v1", "kind": "Sizes", "metadata": {"name": "s"}, "spec": {"ratio": 1.0, "big": 12345678901234567890}}');
    expect(() => JSON.parse(output)).not.toThrow();
  });

  it('a JSON list the run leaves alone is its input, byte for byte, whatever its layout', () => {
    const compact = JSON.stringify({ apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList', items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }] });
    const odd = '{ "apiVersion" : "config.kubernetes.io/v1",\n   "kind":"ResourceList",\n "items": [ {"apiVersion": "v1", "kind": "ConfigMap",\n     "metadata": {"name": "x"}, "data": {"n": 1.50}} ] }\n';
    for (const input of [compact, odd]) expect(run(input)).toEqual({ output: input, exitCode: 0 });
  });

  it('a flow-style YAML list comes back as block YAML', () => {
    const input = stringify(data, { collectionStyle: 'flow' });
    expect(input.startsWith('{')).toBe(true);
    const { output, exitCode } = run(input);
    expect(exitCode).toBe(0);
    expect(output).toMatch(/^apiVersion: config\.kubernetes\.io\/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n/);
    expect(output).not.toMatch(/[{}]/);
    expect((parse(output) as { items: { data: unknown }[] }).items[0]!.data).toEqual({ a: '2' });
  });
});

describe('bytes that are not UTF-8', () => {
  const withByte = (text: string, marker: string) => {
    const [before, after] = text.split(marker) as [string, string];
    return Buffer.concat([Buffer.from(before), Buffer.of(0xe9), Buffer.from(after)]);
  };

  it('in a run that changes the package: an error naming the item, exit 1, and the input\'s bytes', () => {
    const bytes = withByte(mergeList('    a: "1"\n    note: "caf@"\n'), '@');
    const { output, exitCode } = run(decodeUtf8(bytes));
    expect(exitCode).toBe(1);
    expect(errors(output).map((r) => r.message)).toEqual([expect.stringMatching(/^items\[0\] \(ConfigMap cm\) is not valid UTF-8: byte 0xE9 at line 12, column 15/)]);
    expect(encodeText(output).subarray(0, bytes.length).equals(bytes)).toBe(true);
  });

  it('in a JSON list too, the error names the item', () => {
    const json = JSON.stringify(parse(mergeList('    a: "1"\n    note: "caf@"\n')), null, 2);
    const { output, exitCode } = run(decodeUtf8(withByte(json, '@')));
    expect(exitCode).toBe(1);
    expect((JSON.parse(output) as { results: { message: string }[] }).results.map((r) => r.message)).toContainEqual(expect.stringMatching(/^items\[0\] \(ConfigMap cm\) is not valid UTF-8/));
  });

  it('in a run that changes nothing: the input, byte for byte', () => {
    const bytes = withByte('apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n  data:\n    k: "caf@"\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: options\n  data:\n    strategy: resource-merge\n', '@');
    const { output, exitCode } = run(decodeUtf8(bytes));
    expect(exitCode).toBe(0);
    expect(encodeText(output).equals(bytes)).toBe(true);
  });

  const main = join(REPO_ROOT, 'dist', 'main.js');
  const process = (input: Buffer) => {
    if (!existsSync(main)) throw new Error('dist/main.js is missing: run `npm run build` (npm test builds first)');
    return spawnSync(global.process.execPath, [main], { input });
  };

  it('through the entry: a no-op run passes the bytes through; a merge stops with exit 1', () => {
    const noOp = withByte('apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n  data:\n    k: "caf@"\n', '@');
    const passed = process(noOp);
    expect(passed.status).toBe(0);
    expect(passed.stdout.equals(noOp)).toBe(true);
    const merging = withByte(mergeList('    a: "1"\n    note: "caf@"\n'), '@');
    const stopped = process(merging);
    expect(stopped.status).toBe(1);
    expect(stopped.stdout.subarray(0, merging.length).equals(merging)).toBe(true);
    expect(stopped.stdout.toString('latin1')).toMatch(/is not valid UTF-8/);
  });
});

describe('%YAML 1.1 lists', () => {
  it('an untouched 0755 keeps its spelling and its value, 493, in a rewritten item', () => {
    const { output, exitCode } = run(`%YAML 1.1\n---\n${mergeList('    a: "1"\n    mode: 0755\n')}`);
    expect(exitCode).toBe(0);
    expect(output).toMatch(/^ {4}mode: 0755$/m);
    expect(output).not.toMatch(/0o755/);
    expect(parseDocument(output).getIn(['items', 0, 'data', 'mode'])).toBe(493);
    expect(parseDocument(output).getIn(['items', 0, 'data', 'a'])).toBe('2');
  });

  it('an annotation added in a 1.1 document is a plain map, not an !!omap', () => {
    const list = `%YAML 1.1\n---\napiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n${cm('cm', '    a: "1"\n').replace(/ {4}annotations:\n.*\n/, '')}${cm('cm', '    a: "1"\n', 'original')}${cm('cm', '    a: "1"\n    b: "2"\n', 'updated').replace('      config.kubernetes.io/path: cm.yaml\n', '      config.kubernetes.io/path: cm.yaml\n      team: shop\n')}`;
    const { output, exitCode } = run(list);
    expect(exitCode).toBe(0);
    expect(output).not.toMatch(/!!omap/);
    expect(parseDocument(output).getIn(['items', 0, 'metadata', 'annotations', 'team'])).toBe('shop');
  });
});

describe('tags and aliases the merge cannot carry', () => {
  it.each([
    ['!!binary', '    a: "1"\n    blob: !!binary aGVsbG8=\n', 'data.blob'],
    ['!!timestamp', '    a: "1"\n    when: !!timestamp 2001-12-14t21:59:43.10-05:00\n', 'data.when'],
    ['!!set', '    a: "1"\n    members: !!set {x, y}\n', 'data.members'],
  ])('%s in a merged item: an error naming the item and the field', (tag, local, field) => {
    const { output, exitCode } = run(mergeList(local));
    expect(exitCode).toBe(1);
    const [error] = errors(output);
    expect(error!.message).toMatch(new RegExp(`^cannot merge ConfigMap cm \\(cm\\.yaml\\): ${field.replace('.', '\\.')}: the merge cannot carry a ${tag.replace(/!/g, '!')} value`));
    expect(error!.field).toEqual({ path: field });
    expect(output).not.toMatch(/internal error/);
  });

  it('an alias in a merged item to another item\'s anchor: an error naming the item and the field', () => {
    const list = mergeList('    a: "1"\n    shared: *s\n').replace('items:\n', `items:\n${cm('other', '    x: &s "v"\n')}`);
    const { output, exitCode } = run(list);
    expect(exitCode).toBe(1);
    expect(errors(output).map((r) => [r.message, r.field])).toEqual([[expect.stringMatching(/^cannot merge ConfigMap cm \(cm\.yaml\): data\.shared: it is an alias \(\*s\) to another item's anchor/), { path: 'data.shared' }]]);
  });

  it('an anchor in a merged item that another item uses: an error naming both', () => {
    const list = `${mergeList('    a: "1"\n    shared: &s "v"\n')}${cm('other', '    x: *s\n')}`;
    const { output, exitCode } = run(list);
    expect(exitCode).toBe(1);
    expect(errors(output).map((r) => r.message)).toEqual([expect.stringMatching(/^cannot merge ConfigMap cm \(cm\.yaml\): data\.shared: its anchor &s is used by ConfigMap other at data\.x/)]);
  });

  it('an alias within one merged item is carried: the merge sees its value', () => {
    const { output, exitCode } = run(mergeList('    a: "1"\n    first: &v "same"\n    second: *v\n'));
    expect(exitCode).toBe(0);
    expect((parse(output) as { items: { data: unknown }[] }).items[0]!.data).toEqual({ a: '2', first: 'same', second: 'same' });
  });
});

describe('comments and line endings of a rewritten item', () => {
  it('a comment after the item\'s last line survives its rewrite', () => {
    const { output, exitCode } = run(mergeList('    a: "1"\n  # keep me: the item\'s last words\n'));
    expect(exitCode).toBe(0);
    expect(output).toMatch(/ {4}a: "2"\n {2}# keep me: the item's last words\n/);
  });

  it('a CRLF list comes back with CRLF on every line', () => {
    const { output, exitCode } = run(mergeList().replace(/\n/g, '\r\n'));
    expect(exitCode).toBe(0);
    expect(output).toMatch(/a: "2"\r\n/);
    expect(output).toMatch(/\r\nresults:\r\n/);
    expect(output.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  });
});

describe('update and files that are not UTF-8', () => {
  let dir: string;
  const write = (path: string, content: string | Buffer) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  const config = (name: string, value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "${value}"\n`;
  const update = () => updateFromDirectories({ local: join(dir, 'local'), origin: join(dir, 'origin'), upstream: join(dir, 'upstream') });
  const written = (outcome: UpdateOutcome) => outcome.plan?.writes.map((w) => w.path) ?? [];
  const latin1 = Buffer.from('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  text: "caf\xe9"\n', 'latin1');

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pv-utf8-'));
    for (const side of ['origin', 'local']) write(`${side}/cm.yaml`, config('cm', '1'));
    write('upstream/cm.yaml', config('cm', '2'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a file the update must rewrite is refused, naming it, and nothing is written', () => {
    const local = Buffer.concat([Buffer.from(config('cm', '1')), Buffer.from('---\n'), latin1]);
    write('local/cm.yaml', local);
    write('origin/cm.yaml', local);
    const outcome = update();
    expect(outcome.results.filter((r) => r.severity === 'error').map((r) => r.message)).toEqual(['cm.yaml is not valid UTF-8 (line 13) and the update would rewrite it; fix its encoding']);
    expect(readFileSync(join(dir, 'local', 'cm.yaml')).equals(local)).toBe(true);
  });

  it('a document that is not UTF-8 and must be rewritten is one error', () => {
    const local = Buffer.concat([Buffer.from(config('cm', '1')), Buffer.from('  note: "caf\xe9"\n', 'latin1')]);
    write('local/cm.yaml', local);
    const outcome = update();
    expect(outcome.results.filter((r) => r.severity === 'error').map((r) => r.message)).toEqual(['cm.yaml is not valid UTF-8 (line 7) and the update would rewrite it; fix its encoding']);
    expect(written(outcome)).toEqual([]);
    expect(readFileSync(join(dir, 'local', 'cm.yaml')).equals(local)).toBe(true);
  });

  it('a file the update leaves alone keeps its bytes', () => {
    write('local/notes.yaml', latin1);
    const outcome = update();
    expect(outcome.results.filter((r) => r.severity === 'error')).toEqual([]);
    expect(written(outcome)).toEqual(['cm.yaml']);
    expect(readFileSync(join(dir, 'local', 'notes.yaml')).equals(latin1)).toBe(true);
  });
});
