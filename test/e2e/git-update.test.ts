/**
 * End to end, as a kpt user would switch: `kpt pkg get` a composite package from a repository (a
 * local bare repository served as https://github.com/... through git's `url.<local>.insteadOf`, for
 * kpt and for us), an independent subpackage fetched from a second repository, local edits
 * committed; then `kpt pkg update wordpress@v2` in one copy and `package-variant update
 * wordpress@v2` (dist/main.js) in another. The two packages must be equal file by file: resources
 * as data without kpt's bookkeeping, Kptfiles as data (upstream and lock included), every other
 * file byte for byte with its executable bit. Skipped, with one line saying so, without kpt.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDiskTree } from '../../src/disk/disk-tree';
import { compareTrees } from '../differential/package-compare';
import type { Tree } from '../differential/package-fixtures';
import { bareRepository, git, GIT_ENV } from '../pkg/git-repos';
import { configMap, kptfile, writeFiles, type Files } from '../pkg/trees';
import { DIST_MAIN } from './kpt-harness';
import { describeUnless, kptAbsent } from '../skip-notice';

const describeIfKpt = describeUnless(kptAbsent(), 'the git-mode end-to-end test (test/e2e/git-update.test.ts)');

const BLUEPRINTS = 'https://github.com/example/blueprints';
const EXTRAS = 'https://github.com/example/extras';

const deployment = (name: string, image: string, replicas: number) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\nspec:\n  replicas: ${replicas}\n  template:\n    spec:\n      containers:\n        - name: ${name}\n          image: ${image}\n`;

function wordpress(version: 1 | 2): Files {
  const files: Files = {
    'wordpress/Kptfile': kptfile('wordpress', `info:\n  description: wordpress v${version}\n`),
    'wordpress/config.yaml': configMap('config', { site: 'blog', tier: version === 1 ? 'small' : 'medium' }),
    'wordpress/deployment.yaml': deployment('wordpress', version === 1 ? 'wordpress:6.4' : 'wordpress:6.5', 1),
    'wordpress/README.md': `# wordpress v${version}\n`,
    'wordpress/bin/backup.sh': { content: `#!/bin/sh\necho backup v${version}\n`, mode: 0o755 },
    'wordpress/mysql/Kptfile': kptfile('mysql'),
    'wordpress/mysql/config.yaml': configMap('config', { engine: 'mysql', version: version === 1 ? '8.0' : '8.4' }),
    'wordpress/mysql/deployment.yaml': deployment('mysql', 'mysql:8', 1),
    'wordpress/mysql/NOTES.md': 'mysql notes\n',
  };
  if (version === 1) files['wordpress/docs/old.md'] = 'old\n';
  else {
    files['wordpress/docs/new.md'] = 'new\n';
    files['wordpress/cache/Kptfile'] = kptfile('cache');
    files['wordpress/cache/config.yaml'] = configMap('config', { engine: 'memcached' });
  }
  return files;
}

const redis = (version: 1 | 2): Files => ({
  'redis/Kptfile': kptfile('redis'),
  'redis/config.yaml': configMap('config', { engine: 'redis', maxmemory: version === 1 ? '64mb' : '128mb' }),
  ...(version === 2 ? { 'redis/README.md': 'redis\n' } : {}),
});

function treeOf(dir: string): Tree {
  const files: Tree['files'] = {};
  const modes: Tree['modes'] = {};
  for (const [path, file] of readDiskTree(dir).files) {
    files[path] = file.bytes;
    if (file.mode & 0o111) modes[path] = '755';
  }
  return { files, modes };
}

describeIfKpt('git mode against kpt pkg update, end to end', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const run = (cmd: string, args: string[], cwd: string) => {
    const result = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
    return result.stdout;
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pv-e2e-git-'));
    bareRepository(join(dir, 'blueprints.git'), [
      { files: wordpress(1), tags: ['v1'] },
      { files: wordpress(2), tags: ['v2'] },
    ]);
    bareRepository(join(dir, 'extras.git'), [{ files: redis(1) }]);
    env = {
      ...GIT_ENV,
      HOME: join(dir, 'home'),
      KPT_CACHE_DIR: join(dir, 'kpt-cache'),
      PACKAGE_VARIANT_CACHE_DIR: join(dir, 'pv-cache'),
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: `url.file://${join(dir, 'blueprints.git')}.insteadOf`,
      GIT_CONFIG_VALUE_0: BLUEPRINTS,
      GIT_CONFIG_KEY_1: `url.file://${join(dir, 'extras.git')}.insteadOf`,
      GIT_CONFIG_VALUE_1: EXTRAS,
    };
    delete env.NODE_EXTRA_CA_CERTS;
    const down = join(dir, 'down');
    git(['init', '-q', down]);
    run('kpt', ['pkg', 'get', `${BLUEPRINTS}.git/wordpress@v1`, 'wordpress'], down);
    run('kpt', ['pkg', 'get', `${EXTRAS}.git/redis@main`, 'wordpress/redis'], down);
    git(['add', '-A'], down);
    git(['commit', '-q', '-m', 'kpt pkg get'], down);
    // Local edits, committed as kpt's documentation asks.
    const pkg = join(down, 'wordpress');
    writeFileSync(join(pkg, 'deployment.yaml'), readFileSync(join(pkg, 'deployment.yaml'), 'utf8').replace('replicas: 1', 'replicas: 3'));
    writeFileSync(join(pkg, 'mysql/config.yaml'), readFileSync(join(pkg, 'mysql/config.yaml'), 'utf8').replace('engine: "mysql"', 'engine: "mysql-local"'));
    writeFileSync(join(pkg, 'mysql/NOTES.md'), 'our mysql notes\n');
    writeFileSync(join(pkg, 'redis/config.yaml'), readFileSync(join(pkg, 'redis/config.yaml'), 'utf8').replace('engine: "redis"', 'engine: "redis-local"'));
    writeFileSync(join(pkg, 'LOCAL.md'), 'ours\n');
    git(['add', '-A'], down);
    git(['commit', '-q', '-m', 'local edits'], down);
    // The extras repository moves on: its branch main gets version 2.
    const extrasWork = join(dir, 'extras-work');
    git(['clone', '-q', join(dir, 'extras.git'), extrasWork]);
    rmSync(join(extrasWork, 'redis'), { recursive: true });
    writeFiles(extrasWork, redis(2));
    git(['add', '-A'], extrasWork);
    git(['commit', '-q', '-m', 'v2'], extrasWork);
    git(['push', '-q', 'origin', 'main'], extrasWork);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives the package kpt gives, Kptfile upstream and lock included', () => {
    cpSync(join(dir, 'down'), join(dir, 'kpt'), { recursive: true });
    cpSync(join(dir, 'down'), join(dir, 'ours'), { recursive: true });
    run('kpt', ['pkg', 'update', 'wordpress@v2'], join(dir, 'kpt'));
    run(process.execPath, [DIST_MAIN, 'update', 'wordpress@v2'], join(dir, 'ours'));
    const kpt = treeOf(join(dir, 'kpt', 'wordpress'));
    const ours = treeOf(join(dir, 'ours', 'wordpress'));
    expect(compareTrees(kpt, ours)).toEqual([]);
    // The update happened: a changed file from each package, and the independent subpackage moved on.
    expect(readFileSync(join(dir, 'ours', 'wordpress', 'docs', 'new.md'), 'utf8')).toBe('new\n');
    expect(readFileSync(join(dir, 'ours', 'wordpress', 'redis', 'config.yaml'), 'utf8')).toMatch(/engine: "redis-local"[\s\S]*maxmemory: "128mb"|maxmemory: "128mb"[\s\S]*engine: "redis-local"/);
    expect(readFileSync(join(dir, 'ours', 'wordpress', 'Kptfile'), 'utf8')).toMatch(/upstreamLock:\n {2}type: git\n {2}git:\n {4}repo: https:\/\/github\.com\/example\/blueprints\n {4}directory: \/wordpress\n {4}ref: v2\n {4}commit: [0-9a-f]{40}\n/);
    // Nothing but the update: the work tree's only changes are inside the package.
    const changed = [...git(['diff', '--name-only', 'HEAD'], join(dir, 'ours')).split('\n'), ...git(['ls-files', '--others'], join(dir, 'ours')).split('\n')];
    expect(changed.filter((path) => !path.startsWith('wordpress/'))).toEqual([]);
    expect(changed).toEqual(expect.arrayContaining(['wordpress/Kptfile', 'wordpress/docs/new.md', 'wordpress/redis/Kptfile']));
  });
});
