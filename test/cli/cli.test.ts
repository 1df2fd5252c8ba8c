import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers';
import { bareRepository, fetchedKptfile, GIT_ENV } from '../pkg/git-repos';

const MAIN = join(REPO_ROOT, 'dist/main.js');

function cli(args: string[], input = '', extraEnv: NodeJS.ProcessEnv = {}) {
  if (!existsSync(MAIN)) throw new Error('dist/main.js is missing: run `npm run build` (npm test builds first)');
  const env = { ...process.env, ...extraEnv };
  delete env.NODE_EXTRA_CA_CERTS;
  const run = spawnSync(process.execPath, [MAIN, ...args], { input, env, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('the command line', () => {
  it('--help prints usage with examples', () => {
    const { code, stdout } = cli(['--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/Usage:/);
    expect(stdout).toMatch(/package-variant update \[PKG\]\[@REF\] \.\.\.\n.*\n +\(package-variant update --help\)/);
    expect(stdout).toMatch(/kpt fn eval my-pkg --exec package-variant/);
    expect(cli(['-h']).stdout).toBe(stdout);
  });

  it('--version prints the package version', () => {
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(cli(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('an unknown argument is a usage error, exit 2', () => {
    const { code, stderr } = cli(['--frobnicate']);
    expect(code).toBe(2);
    expect(stderr).toBe("package-variant: unknown flag --frobnicate\nRun 'package-variant --help' for usage.\n");
    expect(cli(['upgrade'])).toMatchObject({ code: 2, stderr: "package-variant: unknown command \"upgrade\"\nRun 'package-variant --help' for usage.\n" });
  });

  it('as a function, bad input still gives a ResourceList and exit 1', () => {
    const { code, stdout, stderr } = cli([], 'not: [valid');
    expect(code).toBe(1);
    expect(stdout).toMatch(/^apiVersion: config\.kubernetes\.io\/v1\nkind: ResourceList\nitems: \[\]\nresults:/);
    expect(stderr).toBe('');
  });
});

describe('package-variant update', () => {
  let dir: string;
  const write = (path: string, text: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  const read = (path: string) => readFileSync(join(dir, path), 'utf8');
  const cm = (name: string, data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n${data}`;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pv-update-'));
    for (const side of ['origin', 'upstream', 'local']) {
      write(`${side}/a.yaml`, cm('a', '  k: "1"\n'));
      write(`${side}/gone.yaml`, cm('gone', '  k: "1"\n'));
    }
    write('upstream/a.yaml', cm('a', '  k: "2"\n'));
    write('upstream/new/b.yaml', cm('b', '  k: "1"\n'));
    rmSync(join(dir, 'upstream/gone.yaml'));
    write('local/mine.yaml', `# kept byte for byte\n${cm('mine', "  q: 'single'\n")}---\nplain: not a KRM object\n`);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('merges, writes only what changed, and reports', () => {
    const before = read('local/mine.yaml');
    const { code, stdout } = cli(['update', join(dir, 'local'), '--origin', join(dir, 'origin'), '--upstream', join(dir, 'upstream')]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/\[info\]: merged upstream changes \(resource-merge\): 1 merged, 1 added, 1 deleted/);
    expect(stdout).toMatch(/changed a\.yaml\nadded new\/b\.yaml\nremoved gone\.yaml/);
    expect(read('local/a.yaml')).toBe(cm('a', '  k: "2"\n'));
    expect(read('local/new/b.yaml')).toBe(cm('b', '  k: "1"\n'));
    expect(existsSync(join(dir, 'local/gone.yaml'))).toBe(false);
    expect(read('local/mine.yaml')).toBe(before);
  });

  it('with --conflicts error, a conflict writes nothing and exits 1', () => {
    write('local/a.yaml', cm('a', '  k: mine\n'));
    const { code, stdout, stderr } = cli(['update', join(dir, 'local'), '--origin', join(dir, 'origin'), '--upstream', join(dir, 'upstream'), '--conflicts=error']);
    expect(code).toBe(1);
    expect(stdout).toMatch(/\[error\] v1\/ConfigMap\/a: merge conflict in ConfigMap a: data\.k was changed/);
    expect(stderr).toMatch(/nothing was written/);
    expect(read('local/a.yaml')).toBe(cm('a', '  k: mine\n'));
    expect(existsSync(join(dir, 'local/gone.yaml'))).toBe(true);
  });

  it('needs the three directories; LOCAL_DIR alone is git mode', () => {
    expect(cli(['update', join(dir, 'local'), '--upstream', join(dir, 'upstream')]).code).toBe(2);
    const alone = cli(['update', join(dir, 'local')]);
    expect(alone.code).toBe(1);
    expect(alone.stderr).toMatch(/local has no Kptfile: it is not a kpt package/);
    const missing = cli(['update', join(dir, 'local'), '--origin', join(dir, 'nope'), '--upstream', join(dir, 'upstream')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope is not a directory/);
  });
});

describe('package-variant update PKG[@REF] (git mode)', () => {
  let dir: string;
  let commits: string[];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pv-cli-git-'));
    const cm = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  v: "${v}"\n`;
    commits = bareRepository(join(dir, 'repo.git'), [
      { files: { 'pkg/Kptfile': 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n', 'pkg/cm.yaml': cm('1') }, tags: ['v1'] },
      { files: { 'pkg/Kptfile': 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n', 'pkg/cm.yaml': cm('2') }, tags: ['v2'] },
    ]);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const fetched = (name: string, lock = true) => {
    const pkg = join(dir, name);
    mkdirSync(pkg, { recursive: true });
    const kptfile = fetchedKptfile('pkg', `file://${join(dir, 'repo.git')}`, '/pkg', 'v1', commits[0]!);
    writeFileSync(join(pkg, 'Kptfile'), lock ? kptfile : kptfile.replace(/upstreamLock:[\s\S]*$/, ''));
    writeFileSync(join(pkg, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  v: "1"\n');
    return pkg;
  };
  const env = () => ({ ...GIT_ENV, PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache') });

  it('updates to REF and prints what it wrote', () => {
    const pkg = fetched('ok');
    const { code, stdout } = cli(['update', `${pkg}@v2`], '', env());
    expect(code).toBe(0);
    expect(stdout).toMatch(/recorded the new upstream ref v2, commit [0-9a-f]{40} in the Kptfile/);
    expect(stdout).toMatch(/changed Kptfile\nchanged cm\.yaml\n/);
    expect(readFileSync(join(pkg, 'cm.yaml'), 'utf8')).toMatch(/v: "2"/);
  });

  it('refuses with exit 1, the cause, and nothing written', () => {
    const pkg = fetched('no-lock', false);
    const before = readFileSync(join(pkg, 'Kptfile'), 'utf8');
    const { code, stderr } = cli(['update', `${pkg}@v2`], '', env());
    expect(code).toBe(1);
    expect(stderr).toMatch(/records no upstreamLock\.git\.commit[\s\S]*nothing was written/);
    expect(readFileSync(join(pkg, 'Kptfile'), 'utf8')).toBe(before);
  });

  it.each([
    [['update', 'pkg@v2', '--upstream-ref', 'v3'], /--upstream-ref and --upstream-commit go with --origin and --upstream/],
    [['update', 'pkg@v2@v3'], /holds more than one @/],
    [['update', 'pkg', '--origin', 'o'], /update needs LOCAL_DIR, --origin DIR and --upstream DIR/],
    [['update', 'pkg@v2', '--strategy', 'merge-all'], /--strategy must be one of resource-merge, fast-forward, force-delete-replace/],
    [['update', 'pkg', '--origin', 'o', '--upstream', 'u', '--allow-dirty'], /--allow-dirty goes with git mode/],
  ])('usage errors exit 2: %j', (args, message) => {
    const { code, stderr } = cli(args as string[]);
    expect(code).toBe(2);
    expect(stderr).toMatch(message as RegExp);
  });
});
