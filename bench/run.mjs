// Benchmark runner: runs every bench/*.bench.mjs module, prints a report, writes
// bench/results/latest.json and exits non-zero when any benchmark misses its target.
//
// Usage: node bench/run.mjs [name-filter]      (npm run bench builds dist/main.js first)
//
// A benchmark module exports:
//   name         short identifier, e.g. 'startup'
//   description  one line: what is measured and why
//   async run({ log, root }) → { pass: boolean, target: string, figures: { ... }, notes?: string[] }
//     figures   the measured numbers (nested objects allowed); if a module returns no `figures`
//               key, every key other than pass/target/notes is taken as a figure.
// `log(...)` prints a progress line under the benchmark's heading. A benchmark that throws fails.
//
// Uses node builtins only. bench/results/ holds machine-specific output and should be gitignored.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = join(benchDir, '..');
const resultsFile = join(benchDir, 'results', 'latest.json');

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write('Usage: node bench/run.mjs [name-filter]\nRuns bench/*.bench.mjs whose name or file name contains name-filter.\n');
  process.exit(0);
}
const filter = args.find((arg) => !arg.startsWith('-'));

function gitRevision() {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' });
  if (head.status !== 0) return null;
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: root, encoding: 'utf8' });
  return `${head.stdout.trim()}${dirty.status === 0 && dirty.stdout.trim() ? '+dirty' : ''}`;
}

function formatValue(value) {
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(3).replace(/\.?0+$/, '');
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Prints nested figures as an indented key: value tree. */
function printFigures(figures, indent = '    ') {
  const width = Math.max(0, ...Object.keys(figures).map((key) => key.length));
  for (const [key, value] of Object.entries(figures)) {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      console.log(`${indent}${key}:`);
      printFigures(value, `${indent}  `);
    } else {
      console.log(`${indent}${key.padEnd(width)}  ${formatValue(value)}`);
    }
  }
}

function normalise(returned) {
  if (!returned || typeof returned !== 'object') throw new Error(`run() returned ${formatValue(returned)}, not an object`);
  if (typeof returned.pass !== 'boolean') throw new Error('run() result has no boolean `pass`');
  const { pass, target, notes, figures, ...rest } = returned;
  return {
    pass,
    target: target === undefined ? '(not stated)' : String(target),
    figures: figures ?? rest,
    notes: Array.isArray(notes) ? notes.map(String) : notes ? [String(notes)] : [],
  };
}

const files = readdirSync(benchDir)
  .filter((file) => file.endsWith('.bench.mjs'))
  .sort();

const modules = [];
for (const file of files) {
  const module = await import(pathToFileURL(join(benchDir, file)).href);
  const name = typeof module.name === 'string' ? module.name : file.replace(/\.bench\.mjs$/, '');
  if (filter && !name.includes(filter) && !file.includes(filter)) continue;
  modules.push({ file, name, module });
}

if (modules.length === 0) {
  console.error(
    filter
      ? `bench: no benchmark matches "${filter}" (have: ${files.map((f) => f.replace(/\.bench\.mjs$/, '')).join(', ') || 'none'})`
      : `bench: no *.bench.mjs files in ${relative(process.cwd(), benchDir) || '.'}`,
  );
  process.exit(2);
}

const environment = {
  node: process.version,
  platform: `${process.platform} ${os.release()} ${process.arch}`,
  cpus: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown'}`,
  loadavg: os.loadavg().map((load) => Number(load.toFixed(2))),
  git: gitRevision(),
};

console.log(`package-variant benchmarks — node ${environment.node}, ${environment.platform}, ${environment.cpus}`);
console.log(`git ${environment.git ?? 'unknown'}, load average ${environment.loadavg.join(' ')}`);

const startedAt = new Date();
const results = [];
for (const { file, name, module } of modules) {
  console.log(`\n▶ ${name} (${file})`);
  if (module.description) console.log(`  ${module.description}`);
  const log = (...parts) => console.log(`  · ${parts.map((part) => (typeof part === 'string' ? part : formatValue(part))).join(' ')}`);
  const began = process.hrtime.bigint();
  let outcome;
  try {
    if (typeof module.run !== 'function') throw new Error('module exports no run() function');
    outcome = normalise(await module.run({ log, root }));
  } catch (error) {
    outcome = {
      pass: false,
      target: '(benchmark failed to run)',
      figures: {},
      notes: [],
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    };
  }
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  results.push({ name, file, description: module.description ?? '', seconds: Number(seconds.toFixed(2)), ...outcome });

  console.log(`  target: ${outcome.target}`);
  printFigures(outcome.figures);
  for (const note of outcome.notes) console.log(`  note: ${note}`);
  if (outcome.error) console.log(`  error: ${outcome.error.split('\n').join('\n    ')}`);
  console.log(`  ${outcome.pass ? 'PASS' : 'FAIL'} ${name} (${seconds.toFixed(1)} s)`);
}

const failed = results.filter((result) => !result.pass);
console.log(`\n${results.length - failed.length}/${results.length} benchmarks met their targets${failed.length ? `; missed: ${failed.map((r) => r.name).join(', ')}` : ''}`);

mkdirSync(dirname(resultsFile), { recursive: true });
writeFileSync(
  resultsFile,
  `${JSON.stringify({ startedAt: startedAt.toISOString(), filter: filter ?? null, environment, pass: failed.length === 0, results }, null, 2)}\n`,
);
console.log(`figures written to ${relative(process.cwd(), resultsFile) || resultsFile}`);

process.exitCode = failed.length ? 1 : 0;
