/**
 * Git mode (`package-variant update PKG[@REF]`) against local bare repositories: the versions it
 * fetches and records, the cache, subpackages with upstreams of their own, and every refusal,
 * after which the package must be exactly as it was.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { readDiskTree } from '../../src/disk/disk-tree';
import { UpdateError, updateFromGit, type GitUpdate } from '../../src/update/git-update';
import { bareRepository, fetchedKptfile, git, GIT_ENV } from './git-repos';
import { configMap, kptfile, writeFiles, type Files } from './trees';

/** The repository, built once; each test gets its own directory and cache. */
let repos: string;
let repo: string;
let commits: string[];
let dir: string;
let env: NodeJS.ProcessEnv;

const V1: Files = {
  'pkg/Kptfile': kptfile('pkg'),
  'pkg/cm.yaml': configMap('config', { mode: 'v1', keep: 'x' }),
  'pkg/README.md': 'v1\n',
  'pkg/a/Kptfile': kptfile('a'),
  'pkg/a/cm.yaml': configMap('config', { where: 'a' }),
};
const V2: Files = { ...V1, 'pkg/cm.yaml': configMap('config', { mode: 'v2', keep: 'x' }), 'pkg/README.md': 'v2\n', 'pkg/docs/new.md': 'new\n' };
const V3: Files = { ...V2, 'pkg/README.md': 'v3\n' };

/** The package as `kpt pkg get REPO/pkg@v1` leaves it, with a local edit. */
function fetchedPackage(pkg: string, url = `file://${repo}`): void {
  const files: Files = {};
  for (const [path, content] of Object.entries(V1)) files[path.slice('pkg/'.length)] = content;
  files.Kptfile = fetchedKptfile('pkg', url, '/pkg', 'v1', commits[0]!);
  files['cm.yaml'] = configMap('config', { mode: 'v1', keep: 'local' });
  writeFiles(pkg, files);
}

function snapshot(pkg: string): [string, string][] {
  return [...readDiskTree(pkg).files].map(([path, file]) => [path, file.bytes.toString('base64')] as [string, string]).sort();
}

function update(options: Partial<GitUpdate> & { pkg: string }) {
  return updateFromGit({ env, ...options });
}

const kptfileData = (pkg: string) => parse(readFileSync(join(pkg, 'Kptfile'), 'utf8')) as Record<string, any>;

beforeAll(() => {
  repos = mkdtempSync(join(tmpdir(), 'pv-git-repos-'));
  repo = join(repos, 'blueprints.git');
  commits = bareRepository(repo, [
    { files: V1, tags: ['v1'] },
    { files: V2, tags: ['v2'] },
    { files: V3, annotated: ['v3'] },
  ]);
});
afterAll(() => rmSync(repos, { recursive: true, force: true }));
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-git-update-'));
  env = { ...GIT_ENV, PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache') };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('git mode', () => {
  it('warns of upstream\'s change to what every version\'s .krmignore names, and leaves it (issue 19)', async () => {
    const version = (result: string): Files => ({ 'pkg/Kptfile': kptfile('pkg'), 'pkg/.krmignore': '.expected/\n', 'pkg/.expected/results.yaml': result });
    const ignoring = join(dir, 'ignoring.git');
    const [v1] = bareRepository(ignoring, [{ files: version('old: 1\n'), tags: ['v1'] }, { files: version('new: 1\n'), tags: ['v2'] }]);
    const pkg = join(dir, 'pkg');
    writeFiles(pkg, { Kptfile: fetchedKptfile('pkg', `file://${ignoring}`, '/pkg', 'v1', v1!), '.krmignore': '.expected/\n', '.expected/results.yaml': 'old: 1\n' });
    const outcome = await update({ pkg, ref: 'v2' });
    expect(outcome.results.filter((r) => r.severity === 'warning').map((r) => r.message)).toEqual([
      ".expected is ignored by .krmignore in every version; the update leaves .expected as it is, and upstream's change there is not applied",
    ]);
    expect(readFileSync(join(pkg, '.expected/results.yaml'), 'utf8')).toBe('old: 1\n');
  });

  it('updates to REF from the recorded upstream and records the new ref and lock, leaving nothing else', async () => {
    const pkg = join(dir, 'pkg');
    fetchedPackage(pkg);
    const outcome = await update({ pkg, ref: 'v2' });
    expect(outcome.results.filter((r) => r.severity === 'error')).toEqual([]);
    expect(readFileSync(join(pkg, 'cm.yaml'), 'utf8')).toBe(configMap('config', { mode: 'v2', keep: 'local' }));
    expect(readFileSync(join(pkg, 'README.md'), 'utf8')).toBe('v2\n');
    expect(readFileSync(join(pkg, 'docs/new.md'), 'utf8')).toBe('new\n');
    const kf = kptfileData(pkg);
    expect(kf.upstream.git).toEqual({ repo: `file://${repo}`, directory: '/pkg', ref: 'v2' });
    expect(kf.upstreamLock).toEqual({ type: 'git', git: { repo: `file://${repo}`, directory: '/pkg', ref: 'v2', commit: commits[1] } });
    expect(snapshot(pkg).map(([p]) => p)).toEqual(['Kptfile', 'README.md', 'a/Kptfile', 'a/cm.yaml', 'cm.yaml', 'docs/new.md']);
  });

  it('defaults to the recorded ref: a branch is followed to its tip', async () => {
    const pkg = join(dir, 'pkg');
    fetchedPackage(pkg);
    writeFileSync(join(pkg, 'Kptfile'), fetchedKptfile('pkg', `file://${repo}`, '/pkg', 'main', commits[0]!));
    await update({ pkg });
    expect(readFileSync(join(pkg, 'README.md'), 'utf8')).toBe('v3\n');
    expect(kptfileData(pkg).upstreamLock.git).toMatchObject({ ref: 'main', commit: commits[2] });
  });

  it('reads the recorded ref and commit as text, as kpt does: `ref: 1.10` is the tag 1.10, not the number 1.1', async () => {
    const version = (value: string): Files => ({ 'pkg/Kptfile': kptfile('pkg'), 'pkg/cm.yaml': configMap('config', { value }) });
    const numbered = join(dir, 'numbered.git');
    const [, tenth] = bareRepository(numbered, [{ files: version('1.1'), tags: ['1.1'] }, { files: version('1.10'), tags: ['1.10'] }]);
    const pkg = join(dir, 'pkg');
    // Unquoted, as a hand-written Kptfile may have it.
    writeFiles(pkg, { Kptfile: fetchedKptfile('pkg', `file://${numbered}`, '/pkg', '1.10', tenth!), 'cm.yaml': configMap('config', { value: '1.10' }) });
    const outcome = await update({ pkg });
    expect(outcome.results.filter((r) => r.severity === 'error')).toEqual([]);
    expect(readFileSync(join(pkg, 'cm.yaml'), 'utf8')).toBe(configMap('config', { value: '1.10' }));
    // The lock is recorded again, quoted as kpt writes it: a string, whatever YAML reads it with.
    expect(kptfileData(pkg).upstreamLock.git).toMatchObject({ ref: '1.10', commit: tenth });
  });

  it('reuses its cache: a second update of the same versions fetches nothing', async () => {
    const first = join(dir, 'first');
    const second = join(dir, 'second');
    fetchedPackage(first);
    fetchedPackage(second);
    await update({ pkg: first, ref: 'v2' });
    const trace = join(dir, 'trace.log');
    await update({ pkg: second, ref: 'v2', env: { ...env, GIT_TRACE: trace } });
    const commands = readFileSync(trace, 'utf8');
    expect(commands).toMatch(/ls-remote/);
    expect(commands).not.toMatch(/built-in: git fetch/);
    expect(readFileSync(join(second, 'README.md'), 'utf8')).toBe('v2\n');
  });

  it('fetches only the two commits it needs, shallow', async () => {
    const pkg = join(dir, 'pkg');
    fetchedPackage(pkg);
    await update({ pkg, ref: 'v2' });
    const [cache] = readdirSync(join(dir, 'cache'));
    const fetched = git(['for-each-ref', '--format=%(objectname)', 'refs/package-variant'], join(dir, 'cache', cache!)).split('\n').sort();
    expect(fetched).toEqual([commits[0], commits[1]].sort());
    expect(existsSync(join(dir, 'cache', cache!, 'shallow'))).toBe(true);
  });

  it("resolves REF as kpt does: the package's own tag <directory>/<REF> first", async () => {
    const tagged = join(dir, 'tagged.git');
    const [one, two] = bareRepository(tagged, [
      { files: V1, tags: ['v1'] },
      { files: V3, tags: ['pkg/v2'] },
      { files: V2, tags: ['v2'] },
    ]);
    const pkg = join(dir, 'pkg');
    fetchedPackage(pkg);
    writeFileSync(join(pkg, 'Kptfile'), fetchedKptfile('pkg', `file://${tagged}`, '/pkg', 'v1', one!));
    await update({ pkg, ref: 'v2' });
    expect(kptfileData(pkg).upstream.git.ref).toBe('v2');
    expect(kptfileData(pkg).upstreamLock.git).toMatchObject({ ref: 'pkg/v2', commit: two });
    expect(readFileSync(join(pkg, 'README.md'), 'utf8')).toBe('v3\n');
  });

  it.each([
    ['a full commit', () => commits[1]!],
    ['a short commit', () => commits[1]!.slice(0, 10)],
  ])('takes %s as REF', async (_what, ref) => {
    const pkg = join(dir, 'pkg');
    fetchedPackage(pkg);
    await update({ pkg, ref: ref() });
    expect(readFileSync(join(pkg, 'README.md'), 'utf8')).toBe('v2\n');
    expect(kptfileData(pkg).upstreamLock.git.commit).toBe(commits[1]);
  });

  it('records an annotated tag as kpt does (the tag object git ls-remote names)', async () => {
    const pkg = join(dir, 'pkg');
    fetchedPackage(pkg);
    await update({ pkg, ref: 'v3' });
    expect(readFileSync(join(pkg, 'README.md'), 'utf8')).toBe('v3\n');
    expect(kptfileData(pkg).upstreamLock.git.commit).toBe(git(['rev-parse', 'refs/tags/v3'], repo));
  });

  it('serves a recorded https URL from a local mirror through git insteadOf configuration', async () => {
    const pkg = join(dir, 'pkg');
    const url = 'https://github.com/example/blueprints';
    fetchedPackage(pkg, url);
    const mirrored = { ...env, GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: `url.file://${repo}.insteadOf`, GIT_CONFIG_VALUE_0: url };
    await update({ pkg, ref: 'v2', env: mirrored });
    expect(readFileSync(join(pkg, 'README.md'), 'utf8')).toBe('v2\n');
    expect(kptfileData(pkg).upstreamLock.git).toEqual({ repo: url, directory: '/pkg', ref: 'v2', commit: commits[1] });
  });

  it('then updates a subpackage with an upstream of its own, also below a subpackage without one (kpt never reaches it)', async () => {
    const ext = join(dir, 'ext.git');
    const [e1, e2] = bareRepository(ext, [
      { files: { 'ext/Kptfile': kptfile('ext'), 'ext/cm.yaml': configMap('config', { ext: '1' }) } },
      { files: { 'ext/Kptfile': kptfile('ext'), 'ext/cm.yaml': configMap('config', { ext: '2' }), 'ext/NOTES.md': 'n\n' } },
    ]);
    const pkg = join(dir, 'pkg');
    fetchedPackage(pkg);
    writeFiles(pkg, {
      'local/Kptfile': kptfile('local'),
      'local/ext/Kptfile': fetchedKptfile('ext', `file://${ext}`, '/ext', 'main', e1!),
      'local/ext/cm.yaml': configMap('config', { ext: '1' }),
      'direct/Kptfile': fetchedKptfile('direct', `file://${ext}`, '/ext', 'main', e1!),
      'direct/cm.yaml': configMap('config', { ext: '1' }),
    });
    const outcome = await update({ pkg, ref: 'v2' });
    for (const sub of ['local/ext', 'direct']) {
      expect(readFileSync(join(pkg, sub, 'cm.yaml'), 'utf8')).toBe(configMap('config', { ext: '2' }));
      expect(readFileSync(join(pkg, sub, 'NOTES.md'), 'utf8')).toBe('n\n');
      expect(parse(readFileSync(join(pkg, sub, 'Kptfile'), 'utf8')).upstreamLock.git.commit).toBe(e2);
    }
    expect(outcome.results.map((r) => r.message)).toEqual(expect.arrayContaining([expect.stringMatching(/^local\/ext: merged upstream changes/), expect.stringMatching(/^direct: merged upstream changes/)]));
  });

  it("moves a subpackage fetched from the root's repository at the root's ref to the new ref with it", async () => {
    const pkg = join(dir, 'pkg');
    fetchedPackage(pkg);
    writeFiles(pkg, { 'a/Kptfile': fetchedKptfile('a', `file://${repo}`, '/pkg/a', 'v1', commits[0]!) });
    await update({ pkg, ref: 'v2' });
    expect(parse(readFileSync(join(pkg, 'a/Kptfile'), 'utf8')).upstreamLock.git).toMatchObject({ ref: 'v2', commit: commits[1] });
  });

  it('writes updateStrategy only when --strategy is given', async () => {
    const pkg = join(dir, 'pkg');
    fetchedPackage(pkg);
    writeFileSync(join(pkg, 'Kptfile'), fetchedKptfile('pkg', `file://${repo}`, '/pkg', 'v1', commits[0]!).replace('  updateStrategy: resource-merge\n', ''));
    await update({ pkg, ref: 'v2' });
    expect(kptfileData(pkg).upstream.updateStrategy).toBeUndefined();
    await update({ pkg, ref: 'v3', strategy: 'force-delete-replace' });
    expect(kptfileData(pkg).upstream.updateStrategy).toBe('force-delete-replace');
  });
});

describe('git mode refuses, and leaves the package as it was', () => {
  async function refused(prepare: (pkg: string) => void, options: Partial<GitUpdate> = {}): Promise<string> {
    const pkg = join(dir, 'pkg');
    mkdirSync(pkg, { recursive: true });
    prepare(pkg);
    const before = snapshot(pkg);
    let message = '';
    try {
      const outcome = await update({ pkg, ref: 'v2', ...options });
      expect(outcome.plan).toBeUndefined();
      message = outcome.results.map((r) => r.message).join('\n');
    } catch (error) {
      if (!(error instanceof UpdateError)) throw error;
      message = error.message;
    }
    expect(snapshot(pkg)).toEqual(before);
    return message;
  }

  it('without a Kptfile', async () => {
    expect(await refused((pkg) => writeFiles(pkg, { 'cm.yaml': configMap('x', {}) }))).toMatch(/has no Kptfile: it is not a kpt package/);
  });

  it('when PKG is no directory', async () => {
    await expect(update({ pkg: join(dir, 'missing'), ref: 'v2' })).rejects.toThrow(/missing is not a directory/);
  });

  it('without a git upstream', async () => {
    expect(await refused((pkg) => writeFiles(pkg, { Kptfile: kptfile('pkg') }))).toMatch(/records no git upstream \(upstream\.git\.repo\): it was not fetched with kpt pkg get.*--origin DIR --upstream DIR/);
  });

  it('without a lock, saying what to run', async () => {
    const message = await refused((pkg) => {
      fetchedPackage(pkg);
      writeFileSync(join(pkg, 'Kptfile'), fetchedKptfile('pkg', `file://${repo}`, '/pkg', 'v1', commits[0]!).replace(/upstreamLock:[\s\S]*$/, ''));
    });
    expect(message).toMatch(/records no upstreamLock\.git\.commit.*Fetch it with kpt pkg get.*package-variant update .* --origin DIR --upstream DIR/);
  });

  it('on an unknown ref', async () => {
    expect(await refused(fetchedPackage, { ref: 'v9' })).toBe(`unknown ref "v9": file://${repo} has no branch or tag of that name`);
  });

  it('when git is missing', async () => {
    expect(await refused(fetchedPackage, { env: { ...env, PATH: join(dir, 'no-bin') } })).toMatch(/git was not found on PATH/);
  });

  it("when git fails, with git's message", async () => {
    const message = await refused((pkg) => {
      fetchedPackage(pkg);
      writeFileSync(join(pkg, 'Kptfile'), fetchedKptfile('pkg', `file://${dir}/nowhere.git`, '/pkg', 'v1', commits[0]!));
    });
    expect(message).toMatch(/git ls-remote failed for file:.*nowhere.git \(cached in .*\): .*(does not appear to be a git repository|Could not read from remote repository)/s);
  });

  it('when the locked commit is gone from the repository', async () => {
    const message = await refused((pkg) => {
      fetchedPackage(pkg);
      writeFileSync(join(pkg, 'Kptfile'), fetchedKptfile('pkg', `file://${repo}`, '/pkg', 'v1', 'f'.repeat(40)));
    });
    expect(message).toMatch(/has no commit f{40}/);
  });

  /** A fetched package committed in a work tree of its own, then its README edited: a package with an uncommitted change. */
  const editedAfterCommit = (name: string): string => {
    const work = join(dir, name);
    const pkg = join(work, 'pkg');
    git(['init', '-q', work]);
    fetchedPackage(pkg);
    git(['add', '-A'], work);
    git(['commit', '-q', '-m', 'fetched'], work);
    writeFileSync(join(pkg, 'README.md'), 'edited\n');
    return pkg;
  };

  it('with uncommitted changes in a git work tree, unless --allow-dirty', async () => {
    const pkg = editedAfterCommit('work');
    writeFileSync(join(pkg, 'new.md'), 'untracked\n');
    const before = snapshot(pkg);
    await expect(update({ pkg, ref: 'v2' })).rejects.toThrow(/has uncommitted changes \(.*README\.md.*new\.md.*\); commit them first.*--allow-dirty/);
    expect(snapshot(pkg)).toEqual(before);
    await update({ pkg, ref: 'v2', allowDirty: true });
    expect(readFileSync(join(pkg, 'cm.yaml'), 'utf8')).toBe(configMap('config', { mode: 'v2', keep: 'local' }));
  });

  it('with uncommitted changes, said first though the upstream is fetched beside the check and fails', async () => {
    const pkg = editedAfterCommit('work-dirty-unknown');
    const before = snapshot(pkg);
    await expect(update({ pkg, ref: 'no-such-version' })).rejects.toThrow(/has uncommitted changes \(.*README\.md\); commit them first/);
    expect(snapshot(pkg)).toEqual(before);
  });

  it('when a subpackage update fails: nothing of the root update is written either', async () => {
    const message = await refused((pkg) => {
      fetchedPackage(pkg);
      writeFiles(pkg, { 'ext/Kptfile': fetchedKptfile('ext', `file://${repo}`, '/nowhere', 'v1', commits[0]!) });
    });
    expect(message).toMatch(/has no directory "\/nowhere"/);
  });
});
