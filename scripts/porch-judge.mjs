#!/usr/bin/env node
/**
 * npm run porch-judge: builds the judge (judge/porch, Porch's own repository code as a Go module),
 * then replays every sync scenario of the test suite under it (test/porch-judge/porch-judge.test.ts)
 * and runs Porch's own controllers beside sync (test/porch-judge/controllers.test.ts), and ends with
 * `N passed, M failed`. `--plant-wrong-revision` renumbers one published tag behind
 * sync's back in one scenario, to show that the judge then fails, naming the repository and the
 * PackageRevision.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const unknown = args.filter((a) => a !== '--plant-wrong-revision');
if (unknown.length) {
  console.error(`porch-judge: unknown argument ${unknown[0]}; the one option is --plant-wrong-revision`);
  process.exit(2);
}

if (spawnSync('go', ['version']).status !== 0) {
  console.error('porch-judge: go is not on PATH; the judge needs Go 1.26 (README Set-up)');
  process.exit(1);
}
const started = Date.now();
const build = spawnSync('go', ['build', '-o', join('bin', 'porch-judge'), '.'], { cwd: join(root, 'judge', 'porch'), stdio: 'inherit' });
if (build.status !== 0) {
  console.error('porch-judge: go build of judge/porch failed');
  process.exit(1);
}
console.log(`porch-judge: judge/porch built in ${((Date.now() - started) / 1000).toFixed(1)} s`);

const scratch = mkdtempSync(join(tmpdir(), 'porch-judge-'));
const results = join(scratch, 'results.json');
const env = { ...process.env, ...(args.length ? { PORCH_JUDGE_PLANT: 'wrong-revision' } : {}) };
const jest = spawnSync(process.execPath, [join(root, 'node_modules', 'jest', 'bin', 'jest.js'), '--runTestsByPath', join('test', 'porch-judge', 'porch-judge.test.ts'), join('test', 'porch-judge', 'controllers.test.ts'), '--json', '--outputFile', results], { cwd: root, env, stdio: 'inherit' });
let summary;
try {
  summary = JSON.parse(readFileSync(results, 'utf8'));
} catch {
  console.error(`porch-judge: jest gave no results (exit ${jest.status})`);
  process.exit(1);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
const skipped = summary.numPendingTests ? `, ${summary.numPendingTests} skipped` : '';
console.log(`${summary.numPassedTests} passed, ${summary.numFailedTests} failed${skipped}`);
process.exit(summary.numFailedTests === 0 && jest.status === 0 ? 0 : 1);
