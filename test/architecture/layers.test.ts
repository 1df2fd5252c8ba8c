/**
 * The floors of src/ hold: no import from a floor above, none between two parts of one floor, and no
 * module that reaches itself through its imports. The checker is itself checked on a planted upward
 * import and a planted pair of modules importing each other.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers';
import { floorViolations, importCycles, importGraph } from './layers';

const SRC = join(REPO_ROOT, 'src');

describe('the floors of src/', () => {
  const graph = importGraph(SRC);

  it('reads the imports of every module', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('cli/update.ts')!.length).toBeGreaterThan(0);
  });

  it('no module imports from a floor above its own, nor from another part of its floor', () => {
    expect(floorViolations(graph)).toEqual([]);
  });

  it('no two modules import each other, directly or around a cycle', () => {
    expect(importCycles(graph)).toEqual([]);
  });
});

describe('the checker', () => {
  let copy: string;
  beforeEach(() => {
    copy = mkdtempSync(join(tmpdir(), 'pv-layers-'));
    cpSync(SRC, copy, { recursive: true });
  });
  afterEach(() => rmSync(copy, { recursive: true, force: true }));

  it('names a planted upward import', () => {
    writeFileSync(join(copy, 'yaml/planted.ts'), "import { runUpdate } from '../update/update';\nexport const planted = runUpdate;\n");
    expect(floorViolations(importGraph(copy))).toEqual([
      'src/yaml/planted.ts imports src/update/update.ts: yaml may not import from update, a floor above it',
    ]);
  });

  it('names a planted import between two parts of one floor', () => {
    writeFileSync(join(copy, 'variant/planted.ts'), "export { fanOut } from '../fanout';\n");
    expect(floorViolations(importGraph(copy))).toEqual([
      'src/variant/planted.ts imports src/fanout/index.ts: variant and fanout are parts of one floor and independent',
    ]);
  });

  it('names a planted pair of modules importing each other', () => {
    writeFileSync(join(copy, 'krm/planted-a.ts'), "import { b } from './planted-b';\nexport const a = (): number => b() + 1;\n");
    writeFileSync(join(copy, 'krm/planted-b.ts'), "import { a } from './planted-a';\nexport const b = (): number => a() - 1;\n");
    expect(importCycles(importGraph(copy))).toContainEqual(['krm/planted-a.ts', 'krm/planted-b.ts']);
  });
});
