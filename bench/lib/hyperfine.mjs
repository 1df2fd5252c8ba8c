// Whole-process timings from hyperfine (https://github.com/sharkdp/hyperfine), where it is installed:
// an established harness to set beside a benchmark's own interleaved measurement. Absent, callers
// say so in a note and go on without it; `.ci/run` does not run benchmarks.
//
// Each command runs through hyperfine's shell (which it measures and subtracts), `node ARGS < STDIN`,
// with the environment given. Node builtins only.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

/** hyperfine's version (`hyperfine 1.15.0`), or null when it is not on PATH. */
export function hyperfineVersion() {
  const probe = spawnSync('hyperfine', ['--version'], { encoding: 'utf8' });
  return probe.status === 0 ? probe.stdout.trim() : null;
}

const quote = (word) => `'${String(word).replace(/'/g, "'\\''")}'`;

/**
 * Times `commands` ({ label, args, stdin }) with hyperfine, `runs` times each after `warmup`
 * runs; resolves their median wall times in milliseconds by label.
 */
export function hyperfineMedians(commands, { runs, warmup, env }) {
  const dir = mkdtempSync(join(os.tmpdir(), 'pv-bench-hyperfine-'));
  const json = join(dir, 'times.json');
  try {
    const shellCommands = commands.map(({ args, stdin }) => `${[process.execPath, ...args].map(quote).join(' ')} < ${quote(stdin)} > /dev/null`);
    const names = commands.flatMap(({ label }) => ['--command-name', label]);
    const run = spawnSync('hyperfine', ['--style', 'none', '--warmup', String(warmup), '--runs', String(runs), '--export-json', json, ...names, ...shellCommands], { env, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`hyperfine exited ${run.status}: ${run.stderr.slice(0, 400)}`);
    const { results } = JSON.parse(readFileSync(json, 'utf8'));
    return Object.fromEntries(results.map((result, i) => [commands[i].label, Number((result.median * 1000).toFixed(1))]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
