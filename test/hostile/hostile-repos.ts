/**
 * Hostile input for the update, built the way an attacker would: git objects written by hand (tree
 * entries git itself would refuse: `..`, `.git`, names with a newline or an escape, bytes that are
 * not UTF-8), Kptfiles that name options or a stranger's repository, and a sandbox whose every file
 * outside the package is compared before and after.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { REPO_ROOT } from '../helpers';
import { git, GIT_ENV } from '../pkg/git-repos';
import { configMap, kptfile } from '../pkg/trees';

export const MAIN = join(REPO_ROOT, 'dist/main.js');

/** A tree entry: its name (any bytes but NUL), and a file's content, a link's target or a directory's entries. */
export type Entry =
  | { readonly name: string | Buffer; readonly file: string | Buffer; readonly mode?: '100644' | '100755' }
  | { readonly name: string | Buffer; readonly link: string }
  | { readonly name: string | Buffer; readonly dir: readonly Entry[] };

/** Writes a loose object into a bare repository, as git would; its name. */
export function writeObject(gitDir: string, type: 'blob' | 'tree' | 'commit', content: Buffer): string {
  const whole = Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]);
  const sha = createHash('sha1').update(whole).digest('hex');
  const file = join(gitDir, 'objects', sha.slice(0, 2), sha.slice(2));
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, deflateSync(whole));
  }
  return sha;
}

const bytes = (name: string | Buffer) => (Buffer.isBuffer(name) ? name : Buffer.from(name, 'utf8'));

/** A tree object holding `entries`, written whatever their names (git's own tools refuse some). */
export function writeTree(gitDir: string, entries: readonly Entry[]): string {
  const records = entries.map((entry) => {
    const [mode, sha] =
      'dir' in entry
        ? ['40000', writeTree(gitDir, entry.dir)]
        : 'link' in entry
          ? ['120000', writeObject(gitDir, 'blob', Buffer.from(entry.link))]
          : [entry.mode ?? '100644', writeObject(gitDir, 'blob', bytes(entry.file))];
    const name = bytes(entry.name);
    // git sorts a directory as if its name ended in `/`.
    return { key: 'dir' in entry ? Buffer.concat([name, Buffer.from('/')]) : name, record: Buffer.concat([Buffer.from(`${mode} `), name, Buffer.from([0]), Buffer.from(sha, 'hex')]) };
  });
  records.sort((a, b) => Buffer.compare(a.key, b.key));
  return writeObject(gitDir, 'tree', Buffer.concat(records.map((r) => r.record)));
}

export function writeCommit(gitDir: string, tree: string, parent: string | undefined, message: string): string {
  const who = 'test <test@example.invalid> 978307200 +0000';
  return writeObject(gitDir, 'commit', Buffer.from(`tree ${tree}\n${parent ? `parent ${parent}\n` : ''}author ${who}\ncommitter ${who}\n\n${message}\n`));
}

/** `path -> content` as entries (a path's `/` makes directories). */
export function entries(files: Record<string, string>): Entry[] {
  const top: Entry[] = [];
  for (const [path, content] of Object.entries(files)) {
    const names = path.split('/');
    let level = top;
    for (const name of names.slice(0, -1)) {
      let dir = level.find((e): e is Extract<Entry, { dir: readonly Entry[] }> => 'dir' in e && e.name === name);
      if (!dir) {
        dir = { name, dir: [] };
        level.push(dir);
      }
      level = dir.dir as Entry[];
    }
    level.push({ name: names[names.length - 1]!, file: content });
  }
  return top;
}

/** The package both versions start from: a Kptfile and a ConfigMap whose value v2 changes. */
export const V1: Record<string, string> = { Kptfile: kptfile('pkg'), 'cm.yaml': configMap('cm', { v: '1' }) };
export const V2: Record<string, string> = { ...V1, 'cm.yaml': configMap('cm', { v: '2' }) };

/** A bare repository at `path` whose `main` holds `pkg/` at v1 then v2 (tags v1, v2); the two commits. */
export function upstreamRepository(path: string, v1: readonly Entry[], v2: readonly Entry[]): [string, string] {
  git(['init', '-q', '--bare', path]);
  const one = writeCommit(path, writeTree(path, [{ name: 'pkg', dir: v1 }]), undefined, 'v1');
  const two = writeCommit(path, writeTree(path, [{ name: 'pkg', dir: v2 }]), one, 'v2');
  git(['--git-dir', path, 'update-ref', 'refs/heads/main', two]);
  git(['--git-dir', path, 'update-ref', 'refs/tags/v1', one]);
  git(['--git-dir', path, 'update-ref', 'refs/tags/v2', two]);
  return [one, two];
}

/** The Kptfile `kpt pkg get REPO/pkg@v1` writes, for any repository string (a hostile one too). */
export function fetchedKptfile(repo: string, commit: string, lockRepo = repo, name = 'pkg'): string {
  const q = JSON.stringify;
  return (
    `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\nupstream:\n  type: git\n  git:\n    repo: ${q(repo)}\n    directory: /pkg\n    ref: v1\n  updateStrategy: resource-merge\n` +
    `upstreamLock:\n  type: git\n  git:\n    repo: ${q(lockRepo)}\n    directory: /pkg\n    ref: v1\n    commit: ${commit}\n`
  );
}

/**
 * A journal as it may come with a package (kpt pkg get copies it), in the form earlier versions
 * wrote: it claims the Kptfile and a user's file as files the update made, and reaches the home
 * directory through `link` (a link to `../..` from the package).
 */
export const PLANTED_JOURNAL = JSON.stringify({
  version: 1,
  run: 'x',
  pid: 1,
  host: 'h',
  started: 's',
  createDirs: ['link/work'],
  removeDirs: ['link'],
  entries: [
    { path: 'Kptfile', op: 'write' },
    { path: 'notes.txt', op: 'write' },
    { path: 'link/notes.txt', op: 'write', staged: 'link/.ssh/authorized_keys' },
    { path: 'cm.yaml', op: 'write', kept: 'link/.ssh/authorized_keys' },
  ],
});

export interface Sandbox {
  readonly root: string;
  /** home/work/pkg: two levels below home, so that `../../.ssh` from it is home/.ssh. */
  readonly pkg: string;
  readonly home: string;
  readonly repos: string;
  readonly cache: string;
  readonly env: NodeJS.ProcessEnv;
}

export function sandbox(prefix = 'pv-hostile-'): Sandbox {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const home = join(root, 'home');
  const pkg = join(home, 'work', 'pkg');
  const repos = join(root, 'repos');
  const cache = join(root, 'cache');
  for (const dir of [pkg, repos, join(home, '.ssh')]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(home, '.ssh', 'authorized_keys'), 'ssh-ed25519 AAAA the-owner\n');
  writeFileSync(join(home, 'notes.txt'), 'the owner keeps this\n');
  const env = { ...GIT_ENV, HOME: home, PACKAGE_VARIANT_CACHE_DIR: cache, PACKAGE_VARIANT_STATE_DIR: join(root, 'state') };
  return { root, pkg, home, repos, cache, env };
}

/** A sandbox for each test of the file, removed after it: the function gives the running test's. */
export function sandboxPerTest(): () => Sandbox {
  let box: Sandbox | undefined;
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => rmSync(box!.root, { recursive: true, force: true }));
  return () => box!;
}

/** Writes `files` below `dir`. */
export function writeTextFiles(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

/** Every name below `dir` (links not followed) with what it is: a file's content, a link's target. */
export function snapshot(dir: string, skip: (path: string) => boolean = () => false): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (path: string) => {
    for (const name of readdirSync(join(dir, path))) {
      const rel = path ? `${path}/${name}` : name;
      if (skip(rel)) continue;
      const full = join(dir, rel);
      const stat = lstatSync(full);
      if (stat.isSymbolicLink()) out.set(rel, `link ${readlinkSync(full)}`);
      else if (stat.isDirectory()) {
        out.set(rel, `dir ${(stat.mode & 0o777).toString(8)}`);
        visit(rel);
      } else out.set(rel, `file ${(stat.mode & 0o777).toString(8)} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`);
    }
  };
  visit('');
  return out;
}

/** The sandbox outside the package and the tool's own directories (cache, state). */
export function outside(box: Sandbox): Map<string, string> {
  return snapshot(box.root, (path) => path === 'home/work/pkg' || path === 'cache' || path === 'state');
}

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Whether it had to be stopped: it did not end within the time given. */
  readonly hung: boolean;
}

/** Runs the command line; past `limitMs` its process group is killed and `hung` is set. */
export function cli(args: readonly string[], options: { env: NodeJS.ProcessEnv; cwd?: string; limitMs?: number; stdout?: number }): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: options.env, cwd: options.cwd, detached: true, stdio: ['ignore', options.stdout ?? 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let hung = false;
    child.stdout?.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      hung = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }, options.limitMs ?? 30_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, hung });
    });
  });
}
