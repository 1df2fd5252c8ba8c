/**
 * The function bundle is loaded with the V8 code cache the build wrote beside it; a cache V8 does not
 * take (another Node, a damaged file) or none at all only costs the compile.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheFileOf, compileBundle, loadBundle } from '../../src/cli/bundle-loader';
import { REPO_ROOT } from '../helpers';

const BUNDLE = join(REPO_ROOT, 'dist', 'function.js');
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
});
