/**
 * The package-level differential fixtures (test/fixtures/differential/packages/pkg-NNN.yaml, written
 * by scripts/gen-package-fixtures.mjs): composite packages with non-KRM files, the package as kpt
 * saw it before `kpt pkg update pkg@v2`, and what kpt made of it.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../helpers';

export const PACKAGE_FIXTURE_DIR = join(REPO_ROOT, 'test', 'fixtures', 'differential', 'packages');

export type Content = string | Uint8Array;

export interface Tree {
  files: Record<string, Content>;
  /** Modes other than 644, as octal strings. */
  modes: Record<string, string>;
  /** Directories with nothing in them (recorded for kpt's results). */
  emptyDirs?: string[];
}

export interface PackageFixture {
  file: string;
  /** A seeded case: its number and seed; a named case (family `named`) has its name instead. */
  case?: number;
  seed?: number;
  name?: string;
  family: string;
  strategy: 'resource-merge' | 'fast-forward' | 'force-delete-replace';
  ops: string[];
  /** YAML files whose text ours must have as kpt's, but for kpt's bookkeeping (package-compare.ts withoutBookkeeping). */
  layout?: string[];
  origin: Tree;
  upstream: Tree;
  /** The package as kpt saw it before the update: what package-variant updates too. */
  local: Tree;
  sub?: { path: string; origin: Tree; upstream: Tree };
  kpt: { exitCode: number; error?: string } & Partial<Tree>;
}

const tree = (t: Partial<Tree> | undefined): Tree => ({ files: t?.files ?? {}, modes: t?.modes ?? {} });

export function loadPackageFixtures(dir = PACKAGE_FIXTURE_DIR): PackageFixture[] {
  return readdirSync(dir)
    .filter((f) => /^pkg-[\w-]+\.yaml$/.test(f))
    .sort()
    .map((file) => {
      const data = parse(readFileSync(join(dir, file), 'utf8'), { maxAliasCount: -1, customTags: ['binary'] }) as Omit<PackageFixture, 'file'>;
      return {
        file,
        ...data,
        origin: tree(data.origin),
        upstream: tree(data.upstream),
        local: tree(data.local),
        ...(data.sub ? { sub: { path: data.sub.path, origin: tree(data.sub.origin), upstream: tree(data.sub.upstream) } } : {}),
      };
    });
}

export function writeFixtureTree(dir: string, t: Tree): void {
  mkdirSync(dir, { recursive: true });
  for (const [rel, content] of Object.entries(t.files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), content);
    chmodSync(join(dir, rel), parseInt(t.modes[rel] ?? '644', 8));
  }
}

export const bytesOf = (content: Content): Buffer => (typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content));

/** What scripts/kpt-oracle-repos.sh commits: fixed identity and date, messages "v1" and "v2". */
const SIGNATURE = 'kpt-oracle <kpt-oracle@example.invalid> 946684800 +0000';

/**
 * A `git fast-import` stream for a repository whose main holds `v1` then `v2` (each in pkg/), with
 * the given tags: the commits scripts/kpt-oracle-repos.sh makes, in one git process instead of a
 * dozen. Equal commit SHAs in the Kptfile locks prove the two agree.
 */
function importStream(v1: Tree, v2: Tree, tags: [string, 1 | 2][]): Buffer {
  const parts: Buffer[] = [];
  const text = (s: string) => parts.push(Buffer.from(s, 'utf8'));
  let mark = 0;
  const blobs = (t: Tree) =>
    Object.entries(t.files).map(([path, content]) => {
      const bytes = bytesOf(content);
      mark += 1;
      text(`blob\nmark :${mark}\ndata ${bytes.length}\n`);
      parts.push(bytes, Buffer.from('\n'));
      return `M ${parseInt(t.modes[path] ?? '644', 8) & 0o111 ? '100755' : '100644'} :${mark} pkg/${path}\n`;
    });
  const commit = (t: Tree, message: string, commitMark: number, parent?: number) => {
    const entries = blobs(t);
    text(`commit refs/heads/main\nmark :${commitMark}\nauthor ${SIGNATURE}\ncommitter ${SIGNATURE}\ndata ${message.length + 1}\n${message}\n`);
    if (parent) text(`from :${parent}\ndeleteall\n`);
    text(entries.join(''));
    text('\n');
  };
  commit(v1, 'v1', 1_000_001);
  commit(v2, 'v2', 1_000_002, 1_000_001);
  for (const [tag, version] of tags) text(`reset refs/tags/${tag}\nfrom :${1_000_000 + version}\n\n`);
  return Buffer.concat(parts);
}

function importRepository(path: string, stream: Buffer): void {
  const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  for (const args of [['init', '-q', '--bare', path], ['-C', path, 'fast-import', '--quiet']]) {
    const run = spawnSync('git', args, { env, input: args.includes('fast-import') ? stream : undefined });
    if (run.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${run.stderr}`);
  }
}

/** The repositories kpt updated from, rebuilt (same commits): `repos/upstream.git`, and `repos/sub-upstream.git` for an independent subpackage. */
export function buildRepositories(f: PackageFixture, dir: string): void {
  importRepository(join(dir, 'repos', 'upstream.git'), importStream(f.origin, f.upstream, [['v1', 1], ['v2', 2]]));
  if (f.sub) importRepository(join(dir, 'repos', 'sub-upstream.git'), importStream(f.sub.origin, f.sub.upstream, [['sub-v1', 1]]));
}

/**
 * The environment to run `git` in against the rebuilt repositories: the URLs the fixtures' Kptfiles
 * record (file:///kpt-oracle/...) served from them through git's `url.<base>.insteadOf`, as a user
 * would serve a mirror; no global or system git configuration.
 */
export function gitEnvironment(dir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache') };
  const rewrites: [string, string][] = [
    [`file://${join(dir, 'repos', 'upstream.git')}`, 'file:///kpt-oracle/upstream'],
    [`file://${join(dir, 'repos', 'sub-upstream.git')}`, 'file:///kpt-oracle/sub-upstream'],
  ];
  env.GIT_CONFIG_COUNT = String(rewrites.length);
  rewrites.forEach(([base, url], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = `url.${base}.insteadOf`;
    env[`GIT_CONFIG_VALUE_${i}`] = url;
  });
  return env;
}
