/**
 * Runs kpt over packages the way kpt's own e2e runner (kptdev/kpt pkg/test/runner) does for the
 * function catalog's `examples/<name>/.expected/` cases, with the function built in dist/main.js or
 * the container image built from the Dockerfile (the runner, below).
 *
 * A case is a kpt package with `.expected/config.yaml`:
 *
 *   testType: eval | render   (default render)
 *   exitCode: kpt's exit code (default 0)
 *   args:     map, passed to `kpt fn eval` as `-- k=v` (eval only)
 *   fnConfig: path relative to the package, passed as `--fn-config` (eval only)
 *   stdErr:   substring of kpt's stderr, temp directory prefix removed
 *   stdOut:   substring of kpt's stdout, temp directory prefix removed
 *   allowExec: pass `--allow-exec` to render (default true: the function runs as an exec)
 *
 * and optionally `.expected/diff.patch` (the package's `git diff` after the run; missing or empty
 * means no change) and `.expected/results.yaml` (kpt's results file).
 *
 * How the function is run, by the exec runner (the default): `kpt fn eval PKG --exec "node
 * <repo>/dist/main.js"`; for render the example's Kptfile says `exec: package-variant` (the package's
 * `bin` name) and the harness puts a `package-variant` wrapper script that runs `node
 * <repo>/dist/main.js` first on PATH, where kpt looks exec functions up (verified with kpt
 * 1.0.0-beta.56). By the image runner: `KPT_FN_RUNTIME=podman kpt fn eval PKG --image IMAGE
 * --image-pull-policy never`, with `image: IMAGE` wherever the example's files say
 * `exec: package-variant` (so render runs the image too). In results.yaml, stdout, stderr and the
 * diff, the eval exec command or the image is written `package-variant`, an `image: IMAGE` entry
 * `exec: package-variant`, and the temp directory prefix is removed, so both runners and eval and
 * render cases read the same and name no local path: one set of expected files serves both.
 *
 * The package is copied without `.expected/` to a temp dir and committed to a fresh git repository
 * (fixed author and dates, no global git config). Every case runs twice, the second run over the
 * result of the first; both runs must match the expected files and leave the same diff, so the
 * function must be idempotent. kpt and its children run without NODE_EXTRA_CA_CERTS (it costs
 * Node 20 ~90 ms per process). `git diff` `index` lines are compared without their hashes.
 *
 * KPT_E2E_UPDATE_EXPECTED=true rewrites diff.patch (when the run changed files or the file exists)
 * and results.yaml (when it exists or the case expects a failure) from the first run. Review every
 * rewritten file before keeping it. KPT_E2E_KEEP_TEMP=true keeps the temp dirs for debugging.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';

export const HARNESS_REPO_ROOT = join(__dirname, '..', '..');
export const DIST_MAIN = join(HARNESS_REPO_ROOT, 'dist', 'main.js');
/** The name Kptfiles use for the function (`exec: package-variant`), as package.json's `bin`. */
export const EXEC_PLACEHOLDER = 'package-variant';
/** What `kpt fn eval --exec` runs. */
export const EVAL_EXEC = `node ${DIST_MAIN}`;
export const UPDATE_EXPECTED = (process.env.KPT_E2E_UPDATE_EXPECTED ?? '').toLowerCase() === 'true';
/** The image scripts/build-test-image.sh builds from the Dockerfile. */
export const TEST_IMAGE = 'localhost/package-variant:test';

/** How kpt runs the function: dist/main.js as an exec, or a container image through podman. */
export type FunctionRunner = { kind: 'exec' } | { kind: 'image'; image: string };
export const EXEC_RUNNER: FunctionRunner = { kind: 'exec' };

const GIT_IDENTITY = {
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'e2e',
  GIT_AUTHOR_EMAIL: 'e2e@example.com',
  GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'e2e',
  GIT_COMMITTER_EMAIL: 'e2e@example.com',
  GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
};

/** The message to fail with when the bundle is missing, or undefined when it is there. */
export function missingDistMessage(): string | undefined {
  return existsSync(DIST_MAIN) ? undefined : `${DIST_MAIN} is missing: run \`npm run build\` first (\`npm test\` builds before running jest)`;
}

/** The environment for kpt, git and the function: no NODE_EXTRA_CA_CERTS, this Node first on PATH. */
export function childEnv(extraPath: readonly string[] = []): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.KPT_E2E_UPDATE_EXPECTED;
  env.PATH = [...extraPath, dirname(process.execPath), process.env.PATH ?? ''].join(':');
  return env;
}

export interface ProcessOutcome {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** Wall time in milliseconds. */
  ms: number;
}

/** Runs a command without a shell; never rejects on a non-zero exit. */
export function runProcess(command: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<ProcessOutcome> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stderr = Buffer.concat(err).toString('utf8');
      resolve({
        exitCode: code ?? 128,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: signal ? `${stderr}\n(killed by ${signal})` : stderr,
        ms: Date.now() - started,
      });
    });
  });
}

/** Runs with limited concurrency, keeping the order of `inputs`. */
export async function mapLimit<T, R>(inputs: readonly T[], limit: number, fn: (input: T) => Promise<R>): Promise<R[]> {
  const outputs: R[] = new Array(inputs.length);
  let next = 0;
  const worker = async () => {
    while (next < inputs.length) {
      const index = next++;
      outputs[index] = await fn(inputs[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, inputs.length) }, worker));
  return outputs;
}

/** Copies a package (writable, whatever the source's modes), optionally leaving out top-level entries. */
export function copyPackage(source: string, to: string, exclude: readonly string[] = []): void {
  const from = resolve(source);
  cpSync(from, to, { recursive: true, filter: (src) => !(dirname(src) === from && exclude.includes(basename(src))) });
  const makeWritable = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    chmodSync(path, stat.mode | 0o200);
    if (stat.isDirectory()) for (const entry of readdirSync(path)) makeWritable(join(path, entry));
  };
  makeWritable(to);
}

/** Every file below `dir`, keyed by relative path (sorted), with its exact bytes. */
export function readTree(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (sub: string) => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const rel = sub ? join(sub, entry.name) : entry.name;
      if (entry.isDirectory()) walk(rel);
      else files.set(rel, readFileSync(join(dir, rel)));
    }
  };
  walk('');
  return files;
}

// --- the catalog runner ---------------------------------------------------------------------

export interface CaseConfig {
  testType: 'eval' | 'render';
  exitCode: number;
  args: Record<string, string>;
  fnConfig?: string;
  stdErr?: string;
  stdOut?: string;
  allowExec: boolean;
}

const CONFIG_FIELDS = ['testType', 'exitCode', 'args', 'fnConfig', 'stdErr', 'stdOut', 'allowExec'];

export function readCaseConfig(exampleDir: string): CaseConfig {
  const file = join(exampleDir, '.expected', 'config.yaml');
  const raw = (parse(readFileSync(file, 'utf8')) ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(raw).filter((key) => !CONFIG_FIELDS.includes(key));
  // kpt's runner knows more fields (image, execPath, skip, env...); this harness runs the local
  // build only, so a field it would silently ignore is an error instead.
  if (unknown.length) throw new Error(`${file}: unsupported field(s) ${unknown.join(', ')}; supported: ${CONFIG_FIELDS.join(', ')}`);
  const testType = raw.testType ?? 'render';
  if (testType !== 'eval' && testType !== 'render') throw new Error(`${file}: testType must be eval or render, got ${JSON.stringify(testType)}`);
  const args = (raw.args ?? {}) as Record<string, unknown>;
  if (typeof args !== 'object' || Array.isArray(args)) throw new Error(`${file}: args must be a map`);
  if (testType === 'render' && (Object.keys(args).length || raw.fnConfig !== undefined)) throw new Error(`${file}: args and fnConfig apply to testType eval only`);
  return {
    testType,
    exitCode: raw.exitCode === undefined ? 0 : Number(raw.exitCode),
    args: Object.fromEntries(Object.entries(args).map(([k, v]) => [k, String(v)])),
    ...(raw.fnConfig !== undefined ? { fnConfig: String(raw.fnConfig) } : {}),
    ...(raw.stdErr !== undefined ? { stdErr: String(raw.stdErr) } : {}),
    ...(raw.stdOut !== undefined ? { stdOut: String(raw.stdOut) } : {}),
    allowExec: raw.allowExec === undefined ? true : raw.allowExec === true,
  };
}

export interface CaseRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** `git diff` of the package against its initial commit, `index` lines and the function name normalised, trimmed. */
  diff: string;
  /** The same diff as git wrote it (trimmed), for rewriting diff.patch. */
  rawDiff: string;
  /** kpt's results.yaml, exec command and temp paths normalised, trimmed; undefined if none. */
  results?: string;
  ms: number;
}

export interface CaseExpected {
  diff: string;
  /** Undefined when the case has no results.yaml: results are then not compared. */
  results?: string;
}

export interface CaseReport {
  name: string;
  config: CaseConfig;
  expected: CaseExpected;
  /** Both runs, in order; the second ran over the first one's output. */
  runs: CaseRun[];
  /** Files rewritten because KPT_E2E_UPDATE_EXPECTED=true. */
  updated: string[];
  /** Every way the case failed, as readable text; empty when it passed. */
  problems: string[];
}

export const RUN_COUNT = 2;

/** `index 1e641f7..bb4be90 100644` depends on git's hash abbreviation; compare without it. */
export function normaliseDiff(diff: string): string {
  return diff.replace(/^index [0-9a-f]+\.\.[0-9a-f]+/gm, 'index 0000000..0000000').trim();
}

function git(cwd: string, args: readonly string[]): string {
  const result = spawnSync('git', ['-c', 'init.defaultBranch=main', '-c', 'core.autocrlf=false', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...childEnv(), ...GIT_IDENTITY },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${result.stderr}`);
  return result.stdout;
}

function writeWrapper(binDir: string): void {
  mkdirSync(binDir, { recursive: true });
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const script = join(binDir, EXEC_PLACEHOLDER);
  writeFileSync(script, `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(DIST_MAIN)} "$@"\n`);
  chmodSync(script, 0o755);
}

/**
 * Drops the temp directory prefix (as kpt's runner does) and writes the function as the exec runner's
 * render Kptfile names it, `package-variant`: kpt's results say `image: IMAGE` where they say
 * `exec: package-variant` for an exec.
 */
function normaliseOutput(text: string, tmp: string, runner: FunctionRunner): string {
  const named =
    runner.kind === 'exec'
      ? text.split(EVAL_EXEC).join(EXEC_PLACEHOLDER)
      : text.split(`image: ${runner.image}`).join(`exec: ${EXEC_PLACEHOLDER}`).split(runner.image).join(EXEC_PLACEHOLDER);
  return named.split(`${tmp}/`).join('').split(tmp).join('');
}

const EXEC_FUNCTION_LINE = new RegExp(`^(\\s*(?:- )?)exec: ${EXEC_PLACEHOLDER}$`, 'gm');

/**
 * Names the function by its image wherever the package names it `exec: package-variant`, as a
 * package of an image user would: the Kptfile pipeline, and a PackageVariant's `spec.pipeline`
 * (the function recognises the steps it added by their exact content). Returns how many Kptfiles
 * changed.
 */
function nameImageInPackage(pkg: string, image: string): number {
  let kptfiles = 0;
  for (const file of readTree(pkg).keys()) {
    const isKptfile = basename(file) === 'Kptfile';
    if (!isKptfile && !/\.ya?ml$/.test(file)) continue;
    const path = join(pkg, file);
    const text = readFileSync(path, 'utf8');
    const named = text.replace(EXEC_FUNCTION_LINE, (_line, lead: string) => `${lead}image: ${image}`);
    if (named === text) continue;
    writeFileSync(path, named);
    if (isKptfile) kptfiles++;
  }
  return kptfiles;
}

function kptArgs(config: CaseConfig, exampleDir: string, pkg: string, resultsDir: string, runner: FunctionRunner): string[] {
  // The image is built locally; kpt must not look for it in a registry.
  const pullNever = runner.kind === 'image' ? ['--image-pull-policy', 'never'] : [];
  if (config.testType === 'render') {
    return ['fn', 'render', pkg, ...(config.allowExec ? ['--allow-exec'] : []), ...pullNever, '--results-dir', resultsDir];
  }
  const fn = runner.kind === 'exec' ? ['--exec', EVAL_EXEC] : ['--image', runner.image, ...pullNever];
  const args = ['fn', 'eval', pkg, ...fn, '--results-dir', resultsDir];
  if (config.fnConfig !== undefined) {
    // Relative to the package; the copy has no .expected/, so a config kept there is read in place.
    const inCopy = join(pkg, config.fnConfig);
    args.push('--fn-config', existsSync(inCopy) ? inCopy : resolve(exampleDir, config.fnConfig));
  }
  const fnArgs = Object.entries(config.args);
  if (fnArgs.length) args.push('--', ...fnArgs.map(([k, v]) => `${k}=${v}`));
  return args;
}

function readExpected(exampleDir: string): CaseExpected {
  const read = (name: string) => {
    const file = join(exampleDir, '.expected', name);
    return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  };
  const results = read('results.yaml');
  return { diff: normaliseDiff(read('diff.patch') ?? ''), ...(results !== undefined ? { results: results.trim() } : {}) };
}

/**
 * Reproduces kpt's e2e runner for one `examples/<name>/` case. A failing case is reported in
 * `problems`; only a malformed `.expected/config.yaml` throws.
 */
export async function runExampleCase(caseDir: string, options: { update?: boolean; keepTemp?: boolean; runner?: FunctionRunner } = {}): Promise<CaseReport> {
  const exampleDir = resolve(caseDir);
  const update = options.update ?? UPDATE_EXPECTED;
  const runner = options.runner ?? EXEC_RUNNER;
  const name = basename(exampleDir);
  const config = readCaseConfig(exampleDir);
  const expected = readExpected(exampleDir);
  const tmp = mkdtempSync(join(tmpdir(), 'pv-e2e-'));
  const pkg = join(tmp, name);
  const binDir = join(tmp, 'bin');
  const problems: string[] = [];
  const runs: CaseRun[] = [];
  const updated: string[] = [];
  try {
    copyPackage(exampleDir, pkg, ['.expected']);
    if (runner.kind === 'exec') writeWrapper(binDir);
    else if (nameImageInPackage(pkg, runner.image) === 0 && config.testType === 'render') {
      throw new Error(`no Kptfile runs \`exec: ${EXEC_PLACEHOLDER}\`, so kpt fn render would not run the image`);
    }
    git(pkg, ['init', '-q']);
    git(pkg, ['add', '-A']);
    git(pkg, ['commit', '-q', '--allow-empty', '-m', 'first']);
    const initial = git(pkg, ['rev-parse', 'HEAD']).trim();
    const env = runner.kind === 'exec' ? childEnv([binDir]) : { ...childEnv(), KPT_FN_RUNTIME: 'podman' };

    for (let i = 0; i < RUN_COUNT; i++) {
      const resultsDir = join(tmp, `results-${i + 1}`);
      mkdirSync(resultsDir);
      const outcome = await runProcess('kpt', kptArgs(config, exampleDir, pkg, resultsDir, runner), { cwd: tmp, env, timeoutMs: 60_000 });
      git(pkg, ['add', '-A']);
      const rawDiff = git(pkg, ['diff', '--cached', '--no-color', '--no-ext-diff', initial]).trim();
      const resultsFile = join(resultsDir, 'results.yaml');
      const normalise = (text: string) => normaliseOutput(text, tmp, runner);
      const results = existsSync(resultsFile) ? normalise(readFileSync(resultsFile, 'utf8')).trim() : undefined;
      runs.push({
        exitCode: outcome.exitCode,
        stdout: normalise(outcome.stdout),
        stderr: normalise(outcome.stderr),
        diff: normaliseDiff(normalise(rawDiff)),
        rawDiff,
        ...(results !== undefined ? { results } : {}),
        ms: outcome.ms,
      });
    }

    const [first] = runs as [CaseRun, ...CaseRun[]];
    if (update) {
      const expectedDir = join(exampleDir, '.expected');
      const diffFile = join(expectedDir, 'diff.patch');
      if (first.diff !== '' || existsSync(diffFile)) {
        // Index lines as git wrote them; comparisons normalise them anyway.
        writeFileSync(diffFile, first.rawDiff === '' ? '' : `${first.rawDiff}\n`);
        updated.push(diffFile);
      }
      const resultsFile = join(expectedDir, 'results.yaml');
      if (first.results !== undefined && (existsSync(resultsFile) || config.exitCode !== 0)) {
        writeFileSync(resultsFile, `${first.results}\n`);
        updated.push(resultsFile);
      }
    }

    runs.forEach((run, i) => {
      const which = i === 0 ? 'run 1' : `run ${i + 1} (over run 1's output)`;
      const context = `\n--- kpt stderr ---\n${run.stderr}`;
      if (run.exitCode !== config.exitCode) problems.push(`${which}: kpt exited ${run.exitCode}, expected ${config.exitCode}${context}`);
      if (config.stdErr !== undefined && !run.stderr.includes(config.stdErr)) problems.push(`${which}: kpt stderr lacks ${JSON.stringify(config.stdErr)}${context}`);
      if (config.stdOut !== undefined && !run.stdout.includes(config.stdOut)) problems.push(`${which}: kpt stdout lacks ${JSON.stringify(config.stdOut)}\n--- kpt stdout ---\n${run.stdout}`);
      if (i > 0 && run.diff !== first.diff) problems.push(`${which}: the package changed again (not idempotent)\n--- after run 1 ---\n${first.diff}\n--- after ${which} ---\n${run.diff}`);
      if (update) return;
      if (run.diff !== expected.diff) problems.push(`${which}: git diff differs from .expected/diff.patch\n--- expected ---\n${expected.diff}\n--- actual ---\n${run.diff}`);
      if (expected.results !== undefined && run.results !== expected.results) {
        problems.push(`${which}: results.yaml differs from .expected/results.yaml\n--- expected ---\n${expected.results}\n--- actual ---\n${run.results ?? '(no results.yaml written)'}`);
      }
    });
  } catch (error) {
    problems.push(`harness error: ${(error as Error).stack ?? String(error)}`);
  } finally {
    if (options.keepTemp || process.env.KPT_E2E_KEEP_TEMP === 'true') process.stderr.write(`${name}: kept ${tmp}\n`);
    else rmSync(tmp, { recursive: true, force: true });
  }
  return { name, config, expected, runs, updated, problems };
}

/** `examples/<name>/` directories that hold a `.expected/config.yaml`, sorted. */
export function exampleCases(examplesDir: string): string[] {
  if (!existsSync(examplesDir)) return [];
  return readdirSync(examplesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(examplesDir, entry.name, '.expected', 'config.yaml')))
    .map((entry) => join(examplesDir, entry.name))
    .sort();
}
