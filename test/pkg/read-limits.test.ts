/**
 * The bounds on what `update` reads (src/package/read-limits.ts): a file too large is an error naming it
 * and the bound, before it is read, and nothing is written; listed in `.krmignore`, it is not read
 * at all.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_FILE_BYTES, MAX_PACKAGE_BYTES, MAX_RESOURCE_BYTES, ReadBudget } from '../../src/package/read-limits';
import { REPO_ROOT } from '../helpers';
import { configMap, oneChangeUpdate } from './trees';

let dir: string;
beforeEach(() => {
  dir = oneChangeUpdate('pv-limits-');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function cli() {
  const run = spawnSync(process.execPath, [join(REPO_ROOT, 'dist/main.js'), 'update', join(dir, 'local'), '--origin', join(dir, 'origin'), '--upstream', join(dir, 'upstream')], { encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const MiB = 1024 * 1024;

describe('what update reads is bounded', () => {
  it('resource files over 64 MiB in a package are an error naming the file that goes past; nothing is written', () => {
    const resource = (name: string, mib: number) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  x: "${'x'.repeat(mib * MiB)}"\n`;
    writeFileSync(join(dir, 'local', 'a.yaml'), resource('a', 33));
    writeFileSync(join(dir, 'local', 'b.yaml'), resource('b', 33));
    const run = cli();
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `package-variant update: ${join(dir, 'local', 'b.yaml')} takes the resource files past 64.0 MiB: update reads up to 64.0 MiB of resource files (Kptfile, *.yaml, *.yml) in a package, the most the function takes; list it in .krmignore to leave it out of the update\npackage-variant update: nothing was written\n`,
    );
    expect(readFileSync(join(dir, 'local', 'cm.yaml'), 'utf8')).toBe(configMap('cm', { v: '1' }));
  });

  it("documents outside the simple subset go to yaml's parser up to the function's bound for a run (16 MiB); past it the update stops naming the file", () => {
    // A folded scalar is outside the subset the update reads itself; three versions of 6 MiB are 18 MiB
    // (each changed: a version with local's very text shares local's parse).
    const folded = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  x: >-\n    ${'x'.repeat(6 * MiB)}\n`;
    writeFileSync(join(dir, 'origin', 'big.yaml'), folded('big'));
    writeFileSync(join(dir, 'local', 'big.yaml'), folded('big').replace('kind: ConfigMap', 'kind: ConfigMap\nimmutable: false'));
    writeFileSync(join(dir, 'upstream', 'big.yaml'), folded('big').replace('kind: ConfigMap', 'kind: ConfigMap\nimmutable: true'));
    const run = cli();
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/\[error\]: big\.yaml: the input needs the full YAML parser for more than it reads in a run \(18,874,\d{3} characters\)/);
    expect(run.stderr).toMatch(/nothing was written/);
    expect(readFileSync(join(dir, 'local', 'cm.yaml'), 'utf8')).toBe(configMap('cm', { v: '1' }));
  });

  it("origin's document with local's very text shares local's parse: three versions of 6 MiB take 12 MiB of the parser's 16", () => {
    const folded = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  x: >-\n    ${'x'.repeat(6 * MiB)}\n`;
    for (const version of ['origin', 'local']) writeFileSync(join(dir, version, 'big.yaml'), folded('big'));
    writeFileSync(join(dir, 'upstream', 'big.yaml'), folded('big').replace('kind: ConfigMap', 'kind: ConfigMap\nimmutable: true'));
    const run = cli();
    expect(run.code).toBe(0);
    expect(readFileSync(join(dir, 'local', 'big.yaml'), 'utf8')).toBe(folded('big').replace('kind: ConfigMap', 'kind: ConfigMap\nimmutable: true'));
  });

  it('any other file over 256 MiB is an error before it is read (a sparse file: no memory is spent on it)', () => {
    const blob = join(dir, 'upstream', 'disk.img');
    writeFileSync(blob, '');
    truncateSync(blob, 300 * MiB);
    const run = cli();
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/disk\.img is 300\.0 MiB: update reads a file of up to 256\.0 MiB; list it in \.krmignore/);
  });

  it('listed in .krmignore, neither is read, and the update goes ahead', () => {
    writeFileSync(join(dir, 'local', 'big.yaml'), `x: ${'x'.repeat(65 * MiB)}\n`);
    writeFileSync(join(dir, 'local', 'disk.img'), '');
    truncateSync(join(dir, 'local', 'disk.img'), 300 * MiB);
    writeFileSync(join(dir, 'local', '.krmignore'), 'big.yaml\n*.img\n');
    const run = cli();
    expect(run.stderr).toBe('package-variant update: 0 files added, 1 changed, 0 removed\n');
    expect(run.code).toBe(0);
    expect(readFileSync(join(dir, 'local', 'cm.yaml'), 'utf8')).toBe(configMap('cm', { v: '2' }));
  });

  it('resource files are read up to 64 MiB, and all files up to 1 GiB, in one version', () => {
    const budget = new ReadBudget((path, problem) => new Error(`${path} ${problem}`));
    budget.spend('a.yaml', MAX_RESOURCE_BYTES);
    expect(() => budget.spend('b.yaml', 1)).toThrow('b.yaml takes the resource files past 64.0 MiB');
    const all = new ReadBudget((path, problem) => new Error(`${path} ${problem}`));
    for (let i = 0; i < MAX_PACKAGE_BYTES / MAX_FILE_BYTES; i += 1) all.spend(`blob-${i}`, MAX_FILE_BYTES);
    expect(() => all.spend('last.bin', 1)).toThrow('last.bin takes the package past 1024.0 MiB, the most update reads of one version');
  });
});
