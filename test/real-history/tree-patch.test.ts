/**
 * The fixtures' building blocks: the compact tree patch must turn one tree into the other exactly
 * (text and binary files, modes, deletions, no final newline), and the kpt-get model must write what
 * `kpt pkg get` writes for the common shapes.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { manifest, readTree } from '../../scripts/lib/git-trees.cjs';
import { fetchedText } from '../../scripts/lib/kpt-get-model.cjs';
import { applyTreePatch, diffTrees, lineHunks } from '../../scripts/lib/tree-patch.cjs';

const applyHunks = (a: string[], hunks: [number, number, string[]][]): string[] => {
  const out = [...a];
  for (const [at, count, lines] of [...hunks].reverse()) out.splice(at, count, ...lines);
  return out;
};

type Entry = { content: string | Uint8Array; mode: number };

function writeFiles(root: string, files: Record<string, Entry>): void {
  mkdirSync(root, { recursive: true });
  for (const [path, { content, mode }] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
    chmodSync(join(root, path), mode);
  }
}

describe('tree patch', () => {
  it('hunks turn one list of lines into the other', () => {
    const line = fc.constantFrom('a', 'b', 'c', 'd', '', '  x: 1');
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), fc.array(line, { maxLength: 40 }), (a, b) => {
        expect(applyHunks(a, lineHunks(a, b))).toEqual(b);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps only the changed region of a long file', () => {
    const a = Array.from({ length: 5000 }, (_, i) => `line ${i}`);
    const b = [...a];
    b[100] = 'changed';
    b.splice(4000, 2);
    expect(lineHunks(a, b)).toEqual([
      [100, 1, ['changed']],
      [4000, 2, []],
    ]);
  });

  it('rebuilds a tree exactly: text, binary, modes, deletions, directories', () => {
    const path = fc.constantFrom('Kptfile', 'README.md', 'a/b.yaml', 'a/c/d.txt', 'bin/tool', 'e.yaml');
    const content = fc.oneof(
      fc.array(fc.constantFrom('apiVersion: v1', 'kind: X', '', 'data:', '  k: v', '# note'), { maxLength: 8 }).map((ls) => ls.join('\n')),
      fc.uint8Array({ minLength: 1, maxLength: 16 }).map((bytes) => Uint8Array.from([0xff, 0, ...bytes])),
    );
    const entry = fc.record({ content, mode: fc.constantFrom(0o644, 0o755) });
    const tree = fc.dictionary(path, entry, { maxKeys: 6 });
    fc.assert(
      fc.property(tree, tree, (from, to) => {
        const dir = mkdtempSync(join(tmpdir(), 'pv-tree-patch-'));
        try {
          writeFiles(join(dir, 'from'), from);
          writeFiles(join(dir, 'to'), to);
          const equal = manifest(readTree(join(dir, 'from'))) === manifest(readTree(join(dir, 'to')));
          const patch = diffTrees(join(dir, 'from'), join(dir, 'to'));
          expect(patch === '').toBe(equal);
          applyTreePatch(join(dir, 'from'), patch);
          expect(manifest(readTree(join(dir, 'from')))).toBe(manifest(readTree(join(dir, 'to'))));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('kpt-get model', () => {
  it('writes the merge comment and identifier, creating annotations at the end of metadata', () => {
    const text = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  replicas: 1\n';
    expect(fetchedText(text)).toBe(
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: # kpt-merge: shop/web\n  name: web\n  namespace: shop\n' +
        "  annotations:\n    internal.kpt.dev/upstream-identifier: 'apps|Deployment|shop|web'\nspec:\n  replicas: 1\n",
    );
  });

  it('appends to existing annotations, marks blueprint attribution, unfolds flow scalars, in every document', () => {
    const text = [
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '  name: setters',
      '  annotations:',
      '    cnrm.cloud.google.com/blueprint: cnrm/acm/v0.1.0',
      'data:',
      '  note: "a long value',
      '    folded here"',
      '---',
      'apiVersion: v1',
      'kind: Namespace',
      'metadata:',
      '  name: team',
      '  annotations: {}',
      '  labels:',
      '    a: b',
      '',
    ].join('\n');
    expect(fetchedText(text)).toBe(
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata: # kpt-merge: /setters',
        '  name: setters',
        '  annotations:',
        '    cnrm.cloud.google.com/blueprint: cnrm/acm/v0.1.0,kpt-pkg',
        "    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|setters'",
        'data:',
        '  note: "a long value folded here"',
        '---',
        'apiVersion: v1',
        'kind: Namespace',
        'metadata: # kpt-merge: /team',
        '  name: team',
        '  labels:',
        '    a: b',
        '  annotations:',
        "    internal.kpt.dev/upstream-identifier: '|Namespace|default|team'",
        '',
      ].join('\n'),
    );
  });
});
