/**
 * Composite packages through the update: package scopes, kpt's package-level table per subpackage,
 * independent subpackages, and the strategies per package (merge-semantics §6, §7).
 */
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDiskTree } from '../../src/disk/disk-tree';
import { updateFromDirectories } from '../../src/update/update';
import { updateTree } from '../../src/merge/package/update-tree';
import { configMap, kptfile, text, tree, writeFiles, type Files } from './trees';

const UPSTREAM_RECORD = 'upstream:\n  type: git\n  git:\n    repo: https://example.com/other.git\n    directory: /ext\n    ref: main\nupstreamLock:\n  type: git\n  git:\n    repo: https://example.com/other.git\n    directory: /ext\n    ref: main\n    commit: 1111111111111111111111111111111111111111\n';

/** A root package with subpackages a/ and b/ that hold resources of the same names. */
const BASE: Files = {
  Kptfile: kptfile('pkg'),
  'cm.yaml': configMap('config', { where: 'root' }),
  'a/Kptfile': kptfile('a'),
  'a/cm.yaml': configMap('config', { where: 'a' }),
  'b/Kptfile': kptfile('b'),
  'b/cm.yaml': configMap('config', { where: 'b' }),
  'b/README.md': 'b\n',
};

const without = (files: Files, ...prefixes: string[]) => Object.fromEntries(Object.entries(files).filter(([p]) => !prefixes.some((x) => p === x || p.startsWith(`${x}/`))));

function update(origin: Files, upstream: Files, local: Files, strategy?: 'fast-forward' | 'force-delete-replace') {
  return updateTree(tree(local), tree(origin), tree(upstream), strategy ? { strategy } : {});
}

const messages = (result: ReturnType<typeof update>) => result.results.map((r) => `${r.severity}: ${r.message}`);

describe('package scopes', () => {
  it('resources with the same name in sibling subpackages are separate resources', () => {
    const upstream = { ...BASE, 'a/cm.yaml': configMap('config', { where: 'a', v: '2' }) };
    const local = { ...BASE, 'b/cm.yaml': configMap('config', { where: 'b-local' }) };
    const result = update(BASE, upstream, local);
    expect(messages(result).filter((m) => m.startsWith('error'))).toEqual([]);
    expect(text(result.tree, 'a/cm.yaml')).toBe(configMap('config', { where: 'a', v: '2' }));
    expect(text(result.tree, 'b/cm.yaml')).toBe(configMap('config', { where: 'b-local' }));
    expect(text(result.tree, 'cm.yaml')).toBe(configMap('config', { where: 'root' }));
  });

  it('a subpackage added upstream is added whole, although its resources share names with a sibling', () => {
    const upstream = { ...BASE, 'c/Kptfile': kptfile('c'), 'c/cm.yaml': configMap('config', { where: 'c' }), 'c/docs/c.md': 'c\n' };
    const local = { ...BASE, 'a/cm.yaml': configMap('config', { where: 'a-local' }) };
    const out = update(BASE, upstream, local).tree!;
    expect(text(out, 'c/Kptfile')).toBe(kptfile('c'));
    expect(text(out, 'c/cm.yaml')).toBe(configMap('config', { where: 'c' }));
    expect(text(out, 'c/docs/c.md')).toBe('c\n');
    expect(text(out, 'a/cm.yaml')).toBe(configMap('config', { where: 'a-local' }));
  });

  it('a subpackage added upstream and locally is an error naming it', () => {
    const added = { 'c/Kptfile': kptfile('c'), 'c/cm.yaml': configMap('config', { where: 'c' }) };
    const result = update(BASE, { ...BASE, ...added }, { ...BASE, ...added });
    expect(result.tree).toBeUndefined();
    expect(messages(result)).toContain('error: subpackage "c" added in both upstream and local');
  });

  it('a subpackage deleted upstream goes whole when unchanged locally, directory included', () => {
    const out = update(BASE, without(BASE, 'b'), BASE).tree!;
    expect([...out.files.keys()].filter((p) => p.startsWith('b/'))).toEqual([]);
    expect(out.dirs.has('b')).toBe(false);
  });

  it.each([
    ['a resource', { 'b/cm.yaml': configMap('config', { where: 'b-local' }) }],
    ['a non-KRM file', { 'b/README.md': 'mine\n' }],
    ['a resource added', { 'b/more.yaml': configMap('more', {}) }],
  ])('a subpackage deleted upstream but with %s changed locally is kept whole, with a warning', (_what, change) => {
    const local = { ...BASE, ...change };
    const result = update(BASE, without(BASE, 'b'), local);
    for (const [path, content] of Object.entries(local)) if (path.startsWith('b/')) expect(text(result.tree, path)).toBe(content);
    expect(messages(result)).toContain('warning: subpackage "b" was deleted upstream but changed locally; it is kept. Delete it if it is no longer wanted.');
  });

  it('deviation: a subpackage deleted upstream with a changed package nested in it is kept whole', () => {
    const nested = { ...BASE, 'b/x/Kptfile': kptfile('x'), 'b/x/cm.yaml': configMap('config', { where: 'x' }) };
    const local = { ...nested, 'b/x/cm.yaml': configMap('config', { where: 'x-local' }) };
    const kept = update(nested, without(nested, 'b'), local).tree!;
    expect(text(kept, 'b/cm.yaml')).toBe(configMap('config', { where: 'b' }));
    expect(text(kept, 'b/x/cm.yaml')).toBe(configMap('config', { where: 'x-local' }));
    const removed = update(nested, without(nested, 'b'), nested).tree!;
    expect([...removed.files.keys()].filter((p) => p.startsWith('b/'))).toEqual([]);
  });

  it('a subpackage deleted locally stays deleted, even when upstream changed it', () => {
    const upstream = { ...BASE, 'b/cm.yaml': configMap('config', { where: 'b2' }) };
    const out = update(BASE, upstream, without(BASE, 'b')).tree!;
    expect([...out.files.keys()].filter((p) => p.startsWith('b/'))).toEqual([]);
  });

  it("a subpackage's Kptfile merges, its upstream and lock following upstream's", () => {
    const origin = { ...BASE, 'a/Kptfile': kptfile('a', `${UPSTREAM_RECORD}info:\n  description: one\n`) };
    const newer = UPSTREAM_RECORD.replace('ref: main\n    commit: 1111111111111111111111111111111111111111', 'ref: main\n    commit: 2222222222222222222222222222222222222222');
    const upstream = { ...BASE, 'a/Kptfile': kptfile('a', `${newer}info:\n  description: two\n`) };
    const local = { ...BASE, 'a/Kptfile': kptfile('a', `${UPSTREAM_RECORD}info:\n  description: one\n  keywords: [mine]\n`) };
    const out = text(update(origin, upstream, local).tree, 'a/Kptfile')!;
    expect(out).toMatch(/commit: "?2222222222222222222222222222222222222222/);
    expect(out).toMatch(/description: two/);
    expect(out).toMatch(/keywords: \[ ?mine ?\]/);
  });

  it('an independent subpackage (its own upstream, not what origin recorded) is not part of the merge', () => {
    const ext = { 'ext/Kptfile': kptfile('ext', UPSTREAM_RECORD), 'ext/cm.yaml': configMap('config', { where: 'ext' }) };
    const upstream = { ...BASE, 'ext/cm.yaml': configMap('config', { where: 'from-parent-upstream' }) };
    const result = update(BASE, upstream, { ...BASE, ...ext });
    expect(text(result.tree, 'ext/cm.yaml')).toBe(configMap('config', { where: 'ext' }));
    expect(messages(result)).toContain('info: subpackage "ext" has its own upstream (https://example.com/other.git /ext@main): it is not part of this merge; update it from there');
  });

  it('deviation: a file whose path begins with a subpackage name is its own package\'s (kpt skips "bin/" beside "b/")', () => {
    const origin = { ...BASE, 'bin/run.sh': 'v1\n', 'b-config.yaml': configMap('bc', { v: '1' }) };
    const upstream = { ...origin, 'bin/run.sh': 'v2\n', 'b-config.yaml': configMap('bc', { v: '2' }) };
    const out = update(origin, upstream, origin).tree!;
    expect(text(out, 'bin/run.sh')).toBe('v2\n');
    expect(text(out, 'b-config.yaml')).toBe(configMap('bc', { v: '2' }));
  });

  it('a subpackage unfetched upstream (an upstream, no lock) merges only its Kptfile', () => {
    const unfetched = 'upstream:\n  type: git\n  git:\n    repo: https://example.com/other.git\n    directory: /a\n    ref: v2\n';
    const origin = { ...BASE, 'a/Kptfile': kptfile('a', `upstream:\n  type: git\n  git:\n    repo: https://example.com/other.git\n    directory: /a\n    ref: v1\n`) };
    const upstream = { ...BASE, 'a/Kptfile': kptfile('a', unfetched), 'a/cm.yaml': configMap('config', { where: 'a2' }) };
    const out = update(origin, upstream, origin).tree!;
    expect(text(out, 'a/Kptfile')).toMatch(/ref: v2/);
    expect(text(out, 'a/cm.yaml')).toBe(configMap('config', { where: 'a' }));
  });
});

describe('strategies per package', () => {
  it('fast-forward refuses over a subpackage added or deleted locally, naming it', () => {
    const added = update(BASE, BASE, { ...BASE, 'c/Kptfile': kptfile('c') }, 'fast-forward');
    expect(added.tree).toBeUndefined();
    expect(messages(added)).toContain('error: Kptfile c (c/Kptfile) was added locally');
    const deleted = update(BASE, BASE, without(BASE, 'b'), 'fast-forward');
    expect(messages(deleted)).toEqual(expect.arrayContaining([expect.stringMatching(/Kptfile b .* was deleted locally/)]));
  });

  it("force-delete-replace gives every package upstream's content: local subpackages go, deleted ones come back", () => {
    const upstream = { ...BASE, 'a/cm.yaml': configMap('config', { where: 'a2' }) };
    const local = { ...without(BASE, 'b'), 'mine/Kptfile': kptfile('mine'), 'mine/cm.yaml': configMap('config', {}), 'a/cm.yaml': configMap('config', { where: 'mine' }) };
    const out = update(BASE, upstream, local, 'force-delete-replace').tree!;
    expect(text(out, 'a/cm.yaml')).toBe(configMap('config', { where: 'a2' }));
    expect(text(out, 'b/cm.yaml')).toBe(configMap('config', { where: 'b' }));
    expect(text(out, 'b/README.md')).toBe('b\n');
    expect([...out.files.keys()].filter((p) => p.startsWith('mine/'))).toEqual([]);
  });
});

describe('directory mode on disk', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pv-pkg-update-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the plan: new subpackage and files created, a deleted subpackage removed with its directory', () => {
    writeFiles(join(dir, 'origin'), BASE);
    writeFiles(join(dir, 'upstream'), { ...without(BASE, 'b'), 'c/Kptfile': kptfile('c'), 'c/cm.yaml': configMap('config', { where: 'c' }), 'docs/new.md': 'n\n' });
    writeFiles(join(dir, 'local'), BASE);
    const outcome = updateFromDirectories({ local: join(dir, 'local'), origin: join(dir, 'origin'), upstream: join(dir, 'upstream') });
    expect(outcome.plan!.removes).toEqual(['b/Kptfile', 'b/README.md', 'b/cm.yaml']);
    expect(outcome.plan!.removeDirs).toEqual(['b']);
    expect(outcome.plan!.writes.map((w) => w.path)).toEqual(['c/Kptfile', 'c/cm.yaml', 'docs/new.md']);
    expect(existsSync(join(dir, 'local/b'))).toBe(false);
    expect(readFileSync(join(dir, 'local/c/cm.yaml'), 'utf8')).toBe(configMap('config', { where: 'c' }));
    expect([...readDiskTree(join(dir, 'local')).files.keys()].sort()).toEqual(['Kptfile', 'a/Kptfile', 'a/cm.yaml', 'c/Kptfile', 'c/cm.yaml', 'cm.yaml', 'docs/new.md']);
  });

  it('writes nothing when the update fails', () => {
    const added = { 'c/Kptfile': kptfile('c') };
    writeFiles(join(dir, 'origin'), BASE);
    writeFiles(join(dir, 'upstream'), { ...BASE, ...added, 'a/cm.yaml': configMap('config', { where: 'a2' }) });
    writeFiles(join(dir, 'local'), { ...BASE, ...added });
    const before = readDiskTree(join(dir, 'local'));
    const outcome = updateFromDirectories({ local: join(dir, 'local'), origin: join(dir, 'origin'), upstream: join(dir, 'upstream') });
    expect(outcome.plan).toBeUndefined();
    const after = readDiskTree(join(dir, 'local'));
    expect([...after.files].map(([p, f]) => [p, f.bytes.toString()])).toEqual([...before.files].map(([p, f]) => [p, f.bytes.toString()]));
  });
});

describe('resource files keep their text around the documents', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pv-pkg-text-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const run = (origin: Files, upstream: Files, local: Files) => {
    writeFiles(join(dir, 'origin'), origin);
    writeFiles(join(dir, 'upstream'), upstream);
    writeFiles(join(dir, 'local'), local);
    const outcome = updateFromDirectories({ local: join(dir, 'local'), origin: join(dir, 'origin'), upstream: join(dir, 'upstream') });
    expect(outcome.results.filter((r) => r.severity === 'error')).toEqual([]);
    return { outcome, read: (path: string) => readFileSync(join(dir, 'local', path), 'utf8') };
  };
  const LICENCE = '# Copyright 2024 Example Authors\n#\n# Licensed under the Apache License, Version 2.0\n';
  const file = (a: string, b: string) => `${LICENCE}---\n${configMap('first', { v: a })}--- # the second one\n${configMap('second', { v: b })}`;

  it('a licence header before the first `---` stays when a resource of the file changes', () => {
    const { outcome, read } = run({ Kptfile: kptfile('pkg'), 'cm.yaml': file('1', 'x') }, { Kptfile: kptfile('pkg'), 'cm.yaml': file('2', 'x') }, { Kptfile: kptfile('pkg'), 'cm.yaml': file('1', 'mine') });
    expect(outcome.plan!.writes.map((w) => w.path)).toEqual(['cm.yaml']);
    expect(read('cm.yaml')).toBe(file('2', 'mine'));
  });

  it('a file without documents (comments only) is left as it is', () => {
    const notes = '# resources go here\n';
    const { outcome, read } = run({ Kptfile: kptfile('pkg'), 'cm.yaml': configMap('c', { v: '1' }) }, { Kptfile: kptfile('pkg'), 'cm.yaml': configMap('c', { v: '2' }) }, { Kptfile: kptfile('pkg'), 'cm.yaml': configMap('c', { v: '1' }), 'notes.yaml': notes });
    expect(outcome.plan!.writes.map((w) => w.path)).toEqual(['cm.yaml']);
    expect(outcome.plan!.removes).toEqual([]);
    expect(read('notes.yaml')).toBe(notes);
  });

  it('a file upstream adds is its upstream text: header, markers and comments between documents', () => {
    const added = `${LICENCE}---\n${configMap('first', { v: '1' })}---\n# between\n---\n${configMap('second', { v: '2' })}...\n`;
    const { read } = run({ Kptfile: kptfile('pkg') }, { Kptfile: kptfile('pkg'), 'new.yaml': added }, { Kptfile: kptfile('pkg') });
    expect(read('new.yaml')).toBe(added);
  });

  it("a local resource that carries kpt's merge-source annotation is local's: it does not pose as a version, and the bookkeeping goes", () => {
    const cm = (data: string, annotations = '') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n${annotations}data:\n${data}`;
    const local = cm('  k: "1"\n  local: x\n', '  annotations:\n    config.kubernetes.io/merge-source: updated\n');
    const { read } = run({ Kptfile: kptfile('pkg'), 'a.yaml': cm('  k: "1"\n') }, { Kptfile: kptfile('pkg'), 'a.yaml': cm('  k: "2"\n') }, { Kptfile: kptfile('pkg'), 'a.yaml': local });
    expect(read('a.yaml')).toBe(cm('  k: "2"\n  local: x\n'));
  });

  it('an added resource keeps its layout whatever its annotations, ours among them, and a YAML 1.1 look-alike gets its quotes', () => {
    const layout = (name: string, annotations: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /${name}\n  name: ${name}\n${annotations}data:\n  note:   'spaced out,\n    folded over two lines'\n  list:\n    - a\n    -   b\n`;
    const added = {
      'none.yaml': layout('none', ''),
      'some.yaml': layout('some', '  annotations:\n    owner: team # who\n'),
      'empty.yaml': layout('empty', '  annotations: {}\n'),
      'ours.yaml': layout('ours', "  annotations:\n    config.kubernetes.io/path: 'elsewhere.yaml'\n"),
      'yes.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yes-no\ndata:\n  answer: yes\n',
    };
    const { read } = run({ Kptfile: kptfile('pkg') }, { Kptfile: kptfile('pkg'), ...added }, { Kptfile: kptfile('pkg') });
    for (const path of ['none.yaml', 'some.yaml']) expect(read(path)).toBe(added[path as keyof typeof added]);
    // kpt's path annotation is bookkeeping, and a map of annotations left empty is dropped, as kpt's writer drops it.
    expect(read('ours.yaml')).toBe(added['ours.yaml'].replace("  annotations:\n    config.kubernetes.io/path: 'elsewhere.yaml'\n", ''));
    expect(read('empty.yaml')).toBe(added['empty.yaml'].replace('  annotations: {}\n', ''));
    expect(read('yes.yaml')).toBe(added['yes.yaml'].replace('answer: yes', 'answer: "yes"'));
  });
});

describe('the schemas of custom kinds', () => {
  /** A CRD whose Widget keeps `ports` as a list keyed by `id`, which no fallback key names: without the CRD the list is replaced whole. */
  const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    plural: widgets
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        description: a widget, *with* prose & !marks
        type: object
        properties:
          spec:
            type: object
            properties:
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [id]
                items:
                  type: object
                  properties:
                    id: {type: string}
                    port: {type: integer}
`;
  const widget = (ports: string) => `apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  ports:\n${ports}`;
  const GADGET_CRD = CRD.replace(/widgets/g, 'gadgets').replace('kind: Widget', 'kind: Gadget').replace('x-kubernetes-list-type: map', 'x-kubernetes-list-type: atomic');

  it("an unchanged CRD still gives the schema of the kind upstream changed, and an unrelated one is left alone", () => {
    const origin = { Kptfile: kptfile('pkg'), 'crd.yaml': CRD, 'gadget-crd.yaml': GADGET_CRD, 'w.yaml': widget('  - id: a\n    port: 1\n') };
    const upstream = { ...origin, 'w.yaml': widget('  - id: a\n    port: 2\n') };
    const local = { ...origin, 'w.yaml': widget('  - id: a\n    port: 1\n  - id: b\n    port: 3\n') };
    const result = update(origin, upstream, local);
    expect(messages(result).filter((m) => m.startsWith('error'))).toEqual([]);
    // Keyed by id: upstream's new port for a, local's b kept (an atomic list would be upstream's alone).
    expect(text(result.tree, 'w.yaml')).toBe(widget('  - id: a\n    port: 2\n  - id: b\n    port: 3\n'));
    expect(text(result.tree, 'crd.yaml')).toBe(CRD);
    expect(text(result.tree, 'gadget-crd.yaml')).toBe(GADGET_CRD);
  });
});
