/**
 * `kpt fn render` on a package held in memory: the package is written to a fresh private directory,
 * kpt renders it there (running the pipeline's functions as kpt runs them: containers, and `exec`
 * functions only with the user's `--allow-exec`), and every regular file is read back. Porch
 * renders each draft it saves; sync does the same for the drafts it writes.
 */
import { spawn } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { PackageTree, type TreeFile } from '../package/tree';
import { readSimpleBlockMap } from '../yaml/data-reader';

export interface RenderSettings {
  /** kpt's `--allow-exec`: the user's choice, passed on. */
  readonly allowExec: boolean;
  /** kpt's `--image-pull-policy`, when the user chose one. */
  readonly imagePullPolicy?: string;
  /** The environment kpt runs in (KPT_FN_RUNTIME and the like come from it). */
  readonly env: NodeJS.ProcessEnv;
  /** The longest a render may take, in milliseconds. */
  readonly timeoutMs: number;
}

export class RenderError extends Error {
  constructor(
    message: string,
    /** kpt is not there at all: no render can run, whatever the package. */
    readonly kptMissing = false,
  ) {
    super(message);
  }
}

function writeTree(root: string, tree: PackageTree): void {
  for (const dir of [...tree.dirs].sort()) mkdirSync(join(root, dir), { recursive: true });
  for (const [path, file] of tree.files) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), file.bytes, { mode: file.mode, flag: 'wx' });
    chmodSync(join(root, path), file.mode);
  }
}

/** Every regular file below `root`; links and other kinds are left out, as the package reader does. */
function readTree(root: string): PackageTree {
  const files = new Map<string, TreeFile>();
  const dirs = new Set<string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(root, dir)).sort()) {
      const path = dir ? `${dir}/${name}` : name;
      const stat = lstatSync(join(root, path));
      if (stat.isDirectory()) {
        dirs.add(path);
        walk(path);
      } else if (stat.isFile()) files.set(path, { bytes: readFileSync(join(root, path)), mode: stat.mode & 0o7777 });
    }
  };
  walk('');
  return new PackageTree(files, dirs);
}

/** kpt's last lines on failure: what went wrong, without the progress it prints before. */
const lastLines = (text: string): string => text.trim().split('\n').slice(-8).join('\n');

/**
 * kpt runs functions with docker unless KPT_FN_RUNTIME says otherwise; a machine with podman and no
 * docker meets kpt's "docker must be running" on its first render, which names neither.
 */
function runtimeHint(output: string, env: NodeJS.ProcessEnv): string {
  if (!/docker must be running/.test(output) || env.KPT_FN_RUNTIME) return '';
  return '\n(kpt runs functions with docker; with podman, set KPT_FN_RUNTIME=podman; or pass --no-render to write drafts unrendered)';
}

function runKpt(args: readonly string[], settings: RenderSettings, about: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('kpt', args, { env: settings.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-16_384);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
      reject(new RenderError(`kpt fn render of ${about} took longer than ${settings.timeoutMs / 1000} s and was stopped`));
    }, settings.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      reject(new RenderError(missing ? `rendering ${about} needs kpt, which is not on PATH; install kpt, or pass --no-render to write drafts unrendered` : `kpt could not run: ${error.message}`, missing));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new RenderError(`kpt fn render of ${about} failed:\n${lastLines(output)}${runtimeHint(output, settings.env)}`));
    });
  });
}

/** The package rendered by kpt; `about` names it in messages. */
export async function renderWithKpt(tree: PackageTree, settings: RenderSettings, about: string): Promise<PackageTree> {
  const work = mkdtempSync(join(tmpdir(), 'package-variant-render-'));
  try {
    const root = join(work, 'package');
    mkdirSync(root, { mode: 0o700 });
    writeTree(root, tree);
    const args = ['fn', 'render', root, '--truncate-output=false', ...(settings.allowExec ? ['--allow-exec'] : []), ...(settings.imagePullPolicy ? ['--image-pull-policy', settings.imagePullPolicy] : [])];
    await runKpt(args, settings, about);
    return readTree(root);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Whether kpt would run anything: some Kptfile of the package has a pipeline with a function. */
export function hasPipeline(tree: PackageTree): boolean {
  for (const path of tree.files.keys()) {
    if (path !== 'Kptfile' && !path.endsWith('/Kptfile')) continue;
    const text = tree.text(path) ?? '';
    let kptfile: unknown;
    try {
      kptfile = readSimpleBlockMap(text) ?? parse(text);
    } catch {
      continue;
    }
    const pipeline = (kptfile as { pipeline?: { mutators?: unknown; validators?: unknown } } | null)?.pipeline;
    if ([pipeline?.mutators, pipeline?.validators].some((functions) => Array.isArray(functions) && functions.length > 0)) return true;
  }
  return false;
}
