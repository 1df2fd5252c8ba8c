/**
 * What each bundle the entry loads may hold (scripts/build.mjs). Start-up is paid in every process
 * Porch, kpt or a CI job starts: the entry answers a run that asks for nothing without `yaml`, and
 * an update loads neither the function's schemas and validators nor CEL, RE2 or sync.
 */
import { buildSync, type Metafile } from 'esbuild';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers';

/** The inputs esbuild bundles from `entry`, as the build bundles it, and the bundle's size. */
function bundled(entry: string): { inputs: string[]; bytes: number } {
  const result = buildSync({
    entryPoints: [join(REPO_ROOT, entry)],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
    external: ['./function.js', './update.js'],
    define: { PACKAGE_VERSION: '"0.0.0"' },
  });
  const metafile = result.metafile as Metafile;
  return { inputs: Object.keys(metafile.inputs), bytes: result.outputFiles[0]!.contents.length };
}

describe('the bundles', () => {
  it('the entry holds no package of node_modules and stays small', () => {
    const { inputs, bytes } = bundled('src/cli/entry.ts');
    expect(inputs.filter((input) => input.includes('node_modules'))).toEqual([]);
    expect(bytes).toBeLessThan(16 * 1024);
  });

  it('the update command holds none of what only the function and sync use', () => {
    const { inputs } = bundled('src/cli/update-line.ts');
    const foreign = /node_modules\/(?:re2js|@marcbachmann|ajv|fast-uri)\/|^src\/(?:sync|fanout|variant)\/|^src\/function\.ts$|^src\/config\/generated\//;
    expect(inputs.filter((input) => foreign.test(input))).toEqual([]);
    expect(inputs).toContain('src/update/git-update.ts');
  });
});
