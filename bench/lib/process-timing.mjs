// Whole-process timing for the benchmarks: hyperfine (Debian's `hyperfine`) where it is installed,
// else one child at a time; peak RSS and CPU time of every run from /usr/bin/time (or, where that
// is missing, a -r preload that records process.resourceUsage() at exit). Node builtins only.
//
//   const timing = processTiming(tmpDir);             // what is available, once per benchmark
//   const runs = await timing.measure({ command, args, env, cwd, runs, prepare: [cmd, ...args] });
//   // runs.wall: seconds per run; runs.rssKib, runs.cpuSeconds: per run, or null; runs.tool
//   const [a, b] = await timing.interleave({ commands: [{ command, args }, ...], runs, prepare });
//
// `prepare` runs before each timed run (restoring the input a run changes) and is not timed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const TIME_BIN = '/usr/bin/time';

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export const round = (value, digits = 3) => (value === null || value === undefined ? value : Number(value.toFixed(digits)));
export const kibToMB = (kib) => round((kib * 1024) / 1e6, 1);

/** Spawns a command, resolves { code, signal, seconds, stdout, stderr }. */
export function runTimed(command, args, { env, cwd } = {}) {
  return new Promise((resolve, reject) => {
    const out = [];
    const err = [];
    const start = process.hrtime.bigint();
    const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      resolve({ code, signal, seconds, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}

/** The `%M,%U,%S` lines /usr/bin/time (or the preload, with spaces) appended: [{ rssKib, cpuSeconds }]. */
function readUsages(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/[\s,]+/).map(Number))
    .filter((numbers) => numbers.length === 3 && numbers.every(Number.isFinite))
    .map(([rss, user, sys]) => ({ rssKib: rss, cpuSeconds: user + sys }));
}

const hasHyperfine = () => spawnSync('hyperfine', ['--version'], { encoding: 'utf8' }).status === 0;

/**
 * What this machine offers for timing: hyperfine or not, /usr/bin/time or a preload. `dir` holds the
 * scratch files (usage records, the preload, hyperfine's JSON).
 */
export function processTiming(dir) {
  const hyperfine = hasHyperfine();
  const haveTime = existsSync(TIME_BIN);
  const preload = join(dir, 'usage-preload.cjs');
  if (!haveTime) {
    writeFileSync(
      preload,
      "process.on('exit', () => { const u = process.resourceUsage(); require('node:fs').appendFileSync(process.env.BENCH_USAGE_FILE, `${u.maxRSS} ${u.userCPUTime / 1e6} ${u.systemCPUTime / 1e6}\\n`); });\n",
    );
  }
  const notes = [
    hyperfine ? 'wall times by hyperfine (no shell, a prepare step before each run)' : 'hyperfine not found: wall time measured around each child process (apt-get install hyperfine for the harness)',
    haveTime ? 'peak RSS and CPU time by /usr/bin/time' : `${TIME_BIN} not found: peak RSS from process.resourceUsage() at exit (node commands only)`,
  ];
  let serial = 0;

  /** The command as run: under /usr/bin/time, or (node only) with the preload. */
  function wrapped(command, args, usageFile) {
    if (haveTime) return [TIME_BIN, ['-f', '%M,%U,%S', '-a', '-o', usageFile, command, ...args]];
    if (command === process.execPath) return [command, ['-r', preload, ...args]];
    return [command, args];
  }

  async function measure({ command, args, env = process.env, cwd, runs, prepare }) {
    serial += 1;
    const usageFile = join(dir, `usage-${serial}.txt`);
    rmSync(usageFile, { force: true });
    const runEnv = { ...env, BENCH_USAGE_FILE: usageFile };
    const [cmd, cmdArgs] = wrapped(command, args, usageFile);
    let wall;
    if (hyperfine && [cmd, ...cmdArgs, ...(prepare ?? [])].every((part) => !/\s/.test(part))) {
      const json = join(dir, `hyperfine-${serial}.json`);
      const hf = spawnSync('hyperfine', ['-N', '--style', 'none', '--runs', String(runs), ...(prepare ? ['--prepare', prepare.join(' ')] : []), '--export-json', json, [cmd, ...cmdArgs].join(' ')], { env: runEnv, cwd, encoding: 'utf8' });
      if (hf.status !== 0) throw new Error(`hyperfine failed (exit ${hf.status}): ${(hf.stderr || hf.stdout).trim().slice(-1500)}`);
      wall = JSON.parse(readFileSync(json, 'utf8')).results[0].times;
    } else {
      wall = [];
      for (let i = 0; i < runs; i++) {
        if (prepare) {
          const p = spawnSync(prepare[0], prepare.slice(1), { env, cwd, encoding: 'utf8' });
          if (p.status !== 0) throw new Error(`${prepare.join(' ')} failed: ${p.stderr}`);
        }
        const result = await runTimed(cmd, cmdArgs, { env: runEnv, cwd });
        if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.code ?? result.signal}: ${(result.stderr || result.stdout).trim().slice(-1500)}`);
        wall.push(result.seconds);
      }
    }
    const usages = readUsages(usageFile);
    return {
      tool: hyperfine ? 'hyperfine' : 'child process',
      wall,
      rssKib: usages.length ? Math.max(...usages.map((u) => u.rssKib)) : null,
      cpuSeconds: usages.length ? usages.map((u) => u.cpuSeconds) : null,
    };
  }

  /**
   * Several commands timed in turn, `runs` rounds of one run each (A B A B ...), so that the load of
   * a shared machine weighs on all alike; `prepare` runs before every run, untimed. Per command:
   * { wall, rssKib, cpuSeconds } as `measure` gives them, from child processes (hyperfine cannot
   * interleave).
   */
  async function interleave({ commands, runs, prepare }) {
    const measured = commands.map(() => ({ wall: [], usages: [] }));
    for (let round = 0; round < runs; round++) {
      for (const [i, { command, args, env = process.env, cwd }] of commands.entries()) {
        if (prepare) {
          const p = spawnSync(prepare[0], prepare.slice(1), { env, cwd, encoding: 'utf8' });
          if (p.status !== 0) throw new Error(`${prepare.join(' ')} failed: ${p.stderr}`);
        }
        const result = await once({ command, args, env, cwd });
        if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.code ?? result.signal}: ${(result.stderr || result.stdout).trim().slice(-1500)}`);
        measured[i].wall.push(result.seconds);
        measured[i].usages.push({ rssKib: result.rssKib, cpuSeconds: result.cpuSeconds });
      }
    }
    return measured.map(({ wall, usages }) => {
      const known = usages.filter((u) => u.rssKib !== null);
      return { tool: 'child process', wall, rssKib: known.length ? Math.max(...known.map((u) => u.rssKib)) : null, cpuSeconds: known.length ? known.map((u) => u.cpuSeconds) : null };
    });
  }

  /** One run, untimed by hyperfine: its output is what a benchmark checks. */
  async function once({ command, args, env = process.env, cwd }) {
    serial += 1;
    const usageFile = join(dir, `usage-${serial}.txt`);
    const [cmd, cmdArgs] = wrapped(command, args, usageFile);
    const result = await runTimed(cmd, cmdArgs, { env: { ...env, BENCH_USAGE_FILE: usageFile }, cwd });
    const [usage] = readUsages(usageFile);
    return { ...result, rssKib: usage?.rssKib ?? null, cpuSeconds: usage?.cpuSeconds ?? null };
  }

  return { hyperfine, haveTime, notes, measure, interleave, once };
}
