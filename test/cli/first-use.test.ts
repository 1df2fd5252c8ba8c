/**
 * The command line as a new user meets it (issue 19): help on every command, a short error for a
 * bad flag, one vocabulary for a run and its dry run, a second update that says nothing changed, a
 * lost local edit as a short warning, and new Kptfile blocks in upstream's indentation.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '../helpers';
import { bareRepository, fetchedKptfile, GIT_ENV } from '../pkg/git-repos';

const MAIN = join(REPO_ROOT, 'dist/main.js');

function cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  if (!existsSync(MAIN)) throw new Error('dist/main.js is missing: run `npm run build` (npm test builds first)');
  const env = { ...process.env, ...extraEnv };
  delete env.NODE_EXTRA_CA_CERTS;
  const run = spawnSync(process.execPath, [MAIN, ...args], { env, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-first-use-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function write(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

const kptfile = (name: string, extra = '') => `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n${extra}`;
const cm = (name: string, data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n${data}`;
const directories = () => ['update', join(dir, 'local'), '--origin', join(dir, 'origin'), '--upstream', join(dir, 'upstream')];

describe('help and usage errors, as git and kpt give them', () => {
  it.each([[['update', '--help']], [['update', '-h']], [['help', 'update']], [['update', 'pkg@v2', '--dry-run', '--help']]])('%j prints the update help, exit 0', (args) => {
    const { code, stdout, stderr } = cli(args);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toMatch(/^Usage:\n  package-variant update \[PKG\]\[@REF\]/);
    expect(stdout).toMatch(/\n  --conflicts error +stop, writing nothing, where a local edit would give way/);
    expect(stdout).toMatch(/\n  -h, --help +show this help\n/);
  });

  it.each([
    [['update', 'pkg@v2', '--frobnicate'], 'package-variant update: unknown flag --frobnicate', 'package-variant update --help'],
    [['update', 'a', 'b'], 'package-variant update: one package at a time: "a", then "b"', 'package-variant update --help'],
    [['update', 'pkg@v2', '--strategy'], 'package-variant update: --strategy needs a value', 'package-variant update --help'],
    [['--frobnicate'], 'package-variant: unknown flag --frobnicate', 'package-variant --help'],
  ])('%j: a short error and where help is, exit 2', (args, error, help) => {
    const { code, stdout, stderr } = cli(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`${error}\nRun '${help}' for usage.\n`);
  });
});

describe('what an update did, in its dry run\'s words', () => {
  it('a run says added, changed and removed where its dry run says would add, would change and would remove', () => {
    for (const side of ['origin', 'upstream', 'local']) write({ [`${side}/Kptfile`]: kptfile('pkg'), [`${side}/a.yaml`]: cm('a', '  k: "1"\n'), [`${side}/gone.yaml`]: cm('gone', '  k: "1"\n') });
    write({ 'upstream/a.yaml': cm('a', '  k: "2"\n'), 'upstream/new/b.yaml': cm('b', '  k: "1"\n') });
    rmSync(join(dir, 'upstream/gone.yaml'));
    const lines = (stdout: string) => stdout.split('\n').filter((l) => l && !l.startsWith('['));
    const dry = cli([...directories(), '--dry-run']);
    expect(lines(dry.stdout)).toEqual(['would add directory new/', 'would change a.yaml', 'would add new/b.yaml', 'would remove gone.yaml']);
    const real = cli(directories());
    expect(real.code).toBe(0);
    expect(lines(real.stdout)).toEqual(['added directory new/', 'changed a.yaml', 'added new/b.yaml', 'removed gone.yaml']);
    expect(dry.stderr).toBe('package-variant update: dry run: 1 file would be added, 1 changed, 1 removed; nothing was written\n');
    expect(real.stderr).toBe('package-variant update: 1 file added, 1 changed, 1 removed\n');
  });
});

describe('a second update to the same version', () => {
  it('says that the package is already there and nothing changed, and writes nothing', () => {
    const repo = join(dir, 'repo.git');
    const commits = bareRepository(repo, [
      { files: { 'app/Kptfile': kptfile('app'), 'app/cm.yaml': cm('cm', '  v: "1"\n  stale-key: x\n') }, tags: ['v1'] },
      { files: { 'app/Kptfile': kptfile('app'), 'app/cm.yaml': cm('cm', '  v: "2"\n') }, tags: ['v2'] },
    ]);
    write({ 'app/Kptfile': fetchedKptfile('app', `file://${repo}`, '/app', 'v1', commits[0]!), 'app/cm.yaml': cm('cm', '  v: "1"\n  stale-key: x\n') });
    const env = { ...GIT_ENV, PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache') };
    const pkg = join(dir, 'app');
    const first = cli(['update', `${pkg}@v2`], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/changed cm\.yaml/);
    const kptfileAfter = readFileSync(join(pkg, 'Kptfile'), 'utf8');
    const again = cli(['update', `${pkg}@v2`], env);
    expect(again).toEqual({ code: 0, stdout: '', stderr: `package-variant update: ${pkg} is already at v2 (commit ${commits[1]!.slice(0, 12)}): nothing changed\n` });
    expect(cli(['update', `${pkg}@v2`, '--dry-run'], env).stderr).toMatch(/is already at v2 .*: nothing changed\n$/);
    expect(readFileSync(join(pkg, 'Kptfile'), 'utf8')).toBe(kptfileAfter);
  });
});

describe('a local edit upstream\'s value replaced', () => {
  it('is a warning, one short line per field; --conflicts error still stops', () => {
    const args = (values: string[]) => `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\nspec:\n  template:\n    spec:\n      containers:\n      - name: main\n        image: busybox\n        args: [${values.join(', ')}]\n`;
    const many = (tag: string) => Array.from({ length: 30 }, (_, i) => `--flag-${i}=${tag}`);
    write({ 'origin/Kptfile': kptfile('pkg'), 'upstream/Kptfile': kptfile('pkg'), 'local/Kptfile': kptfile('pkg') });
    write({ 'origin/job.yaml': args(many('a')), 'upstream/job.yaml': args(many('up')), 'local/job.yaml': args(many('mine')) });
    const { code, stdout } = cli([...directories(), '--dry-run']);
    expect(code).toBe(0);
    const conflict = stdout.split('\n').filter((l) => /merge conflict/.test(l));
    // Values too long for one line are told apart by a digest, not cut short (issue 30).
    const digest = (values: string[]) => createHash('sha256').update(`[ ${values.join(', ')} ]`).digest('hex').slice(0, 12);
    expect(conflict).toEqual([
      `[warning] batch/v1/Job/j: merge conflict in Job j: spec.template.spec.containers[name=main].args was changed locally and upstream (local ${`[ ${many('mine').join(', ')} ]`.length} characters sha256:${digest(many('mine'))}, upstream ${`[ ${many('up').join(', ')} ]`.length} characters sha256:${digest(many('up'))}); took upstream`,
    ]);
    expect(conflict[0]!.length).toBeLessThan(240);
    expect(cli([...directories(), '--conflicts', 'error'])).toMatchObject({ code: 1 });
  });
});

describe('a new block in a subpackage Kptfile', () => {
  it('follows upstream\'s sequence indentation where the local file has none', () => {
    const sub = kptfile('sub', 'info:\n  description: sub\n');
    const pipeline = 'pipeline:\n  mutators:\n    - image: gcr.io/kpt-fn/set-labels:v0.2\n      configMap:\n        app: web\n';
    for (const side of ['origin', 'upstream', 'local']) write({ [`${side}/Kptfile`]: kptfile('pkg'), [`${side}/sub/Kptfile`]: sub });
    write({ 'upstream/sub/Kptfile': sub + pipeline });
    expect(cli(directories()).code).toBe(0);
    expect(readFileSync(join(dir, 'local/sub/Kptfile'), 'utf8')).toBe(sub + pipeline);
  });
});
