// The real `kpt pkg update` for the update benchmarks: a `kpt` shim first on PATH that times the
// `kpt pkg update` call itself (wall ms, and peak RSS and CPU time under /usr/bin/time) and passes
// everything else to the real kpt; scripts/kpt-oracle.sh run through it. Node builtins only.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runTimed } from './process-timing.mjs';

const TIME_BIN = '/usr/bin/time';

/** Last number in a file (/usr/bin/time -o prepends "Command exited with non-zero status" lines). */
function readKib(file) {
  if (!existsSync(file)) return null;
  const numbers = readFileSync(file, 'utf8').trim().split('\n').map(Number).filter(Number.isFinite);
  return numbers.length ? numbers[numbers.length - 1] : null;
}

/** The last line of a `%M %U %S` /usr/bin/time file: { rssKib, cpuSeconds }. */
function readUsage(file) {
  if (!existsSync(file)) return { rssKib: null, cpuSeconds: null };
  const last = readFileSync(file, 'utf8').trim().split('\n').pop().trim().split(/\s+/).map(Number);
  if (last.length !== 3 || !last.every(Number.isFinite)) return { rssKib: null, cpuSeconds: null };
  return { rssKib: last[0], cpuSeconds: last[1] + last[2] };
}

/** A `kpt` first on PATH that times `kpt pkg update` (ms, and peak RSS) and execs the real kpt. */
export function writeKptShim(dir, realKpt, haveTime) {
  mkdirSync(dir, { recursive: true });
  const shim = join(dir, 'kpt');
  const measured = haveTime
    ? `${TIME_BIN} -f '%M %U %S' -o "$BENCH_KPT_TIMING_FILE.rss" "$BENCH_REAL_KPT" "$@" || rc=$?`
    : '"$BENCH_REAL_KPT" "$@" || rc=$?';
  writeFileSync(
    shim,
    `#!/usr/bin/env bash
# written by bench/merge.bench.mjs: times \`kpt pkg update\`, passes everything else through
if [[ "\${1:-}" == pkg && "\${2:-}" == update && -n "\${BENCH_KPT_TIMING_FILE:-}" ]]; then
  start=$(date +%s%N)
  rc=0
  ${measured}
  end=$(date +%s%N)
  echo $(( (end - start) / 1000000 )) > "$BENCH_KPT_TIMING_FILE"
  exit $rc
fi
exec "$BENCH_REAL_KPT" "$@"
`,
  );
  chmodSync(shim, 0o755);
  return shim;
}

export async function runKpt({ root, dirs, work, shimDir, realKpt }) {
  const out = join(work, 'kpt-out');
  rmSync(out, { recursive: true, force: true });
  const timingFile = join(work, 'kpt-update.ms');
  rmSync(timingFile, { force: true });
  const env = {
    ...process.env,
    PATH: `${shimDir}:${process.env.PATH}`,
    BENCH_REAL_KPT: realKpt,
    BENCH_KPT_TIMING_FILE: timingFile,
  };
  const result = await runTimed('bash', [join(root, 'scripts', 'kpt-oracle.sh'), dirs.origin, dirs.upstream, dirs.local, out], { env });
  if (result.code !== 0) throw new Error(`kpt-oracle.sh exited ${result.code ?? result.signal}: ${result.stderr.trim().slice(-1500)}`);
  const updateMs = readKib(timingFile);
  if (updateMs === null) throw new Error('the kpt shim recorded no `kpt pkg update` time (was the shim first on PATH?)');
  return { dir: out, oracleSeconds: result.seconds, updateSeconds: updateMs / 1000, ...readUsage(`${timingFile}.rss`) };
}
