/**
 * The function bundle and the update command's bundle are loaded with the V8 code cache the build
 * wrote beside each; a cache V8 does not take (another Node, a damaged file) or none at all only
 * costs the compile. The update runs from the entry and its own bundle alone.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheFileOf, compileBundle, loadBundle } from '../../src/cli/bundle-loader';
import { REPO_ROOT } from '../helpers';

const BUNDLE = join(REPO_ROOT, 'dist', 'function.js');
const UPDATE_BUNDLE = join(REPO_ROOT, 'dist', 'update.js');
const exportsMain = (exports: unknown) => typeof (exports as { main?: unknown }).main === 'function';

describe('the bundle loader', () => {
  it('finds the code cache the build wrote, and V8 takes it', () => {
    expect(existsSync(cacheFileOf(BUNDLE))).toBe(true);
    const compiled = compileBundle(BUNDLE, readFileSync(cacheFileOf(BUNDLE)));
    expect(compiled.script.cachedDataRejected).toBe(false);
    expect(exportsMain(compiled.run())).toBe(true);
  });

  it('compiles as usual when the cache is damaged', () => {
    const damaged = Buffer.from(readFileSync(cacheFileOf(BUNDLE)));
    damaged.fill(7, 0, 64);
    const compiled = compileBundle(BUNDLE, damaged);
    expect(compiled.script.cachedDataRejected).toBe(true);
    expect(exportsMain(compiled.run())).toBe(true);
  });

  it('loads a bundle that has no cache beside it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pv-bundle-'));
    try {
      copyFileSync(BUNDLE, join(dir, 'function.js'));
      expect(exportsMain(loadBundle(join(dir, 'function.js')))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("finds the update bundle's code cache, and V8 takes it", () => {
    const compiled = compileBundle(UPDATE_BUNDLE, readFileSync(cacheFileOf(UPDATE_BUNDLE)));
    expect(compiled.script.cachedDataRejected).toBe(false);
    expect(typeof (compiled.run() as { runUpdate?: unknown }).runUpdate).toBe('function');
  });

  it('runs an update from the entry and the update bundle alone, without the function bundle', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pv-update-bundle-'));
    try {
      const dist = join(dir, 'dist');
      mkdirSync(dist);
      for (const file of ['main.js', 'update.js', 'update.js.cache']) copyFileSync(join(REPO_ROOT, 'dist', file), join(dist, file));
      for (const [version, value] of [['origin', '1'], ['upstream', '2'], ['local', '1']] as const) {
        mkdirSync(join(dir, version));
        writeFileSync(join(dir, version, 'Kptfile'), 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n');
        writeFileSync(join(dir, version, 'cm.yaml'), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  v: "${value}"\n`);
      }
      const run = spawnSync(process.execPath, [join(dist, 'main.js'), 'update', join(dir, 'local'), '--origin', join(dir, 'origin'), '--upstream', join(dir, 'upstream')], { encoding: 'utf8' });
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: expect.stringContaining('1 changed') });
      expect(readFileSync(join(dir, 'local', 'cm.yaml'), 'utf8')).toContain('v: "2"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
