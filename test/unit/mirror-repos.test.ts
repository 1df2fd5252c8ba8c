/**
 * scripts/mirror-repos.mjs, the one command that makes the mirrors the real-package suites read:
 * a bare mirror of every repository of scripts/lib/git-trees.cjs's list at
 * $PV_MIRROR_DIR/<owner>+<name>/repo, brought up to date when it is there. Tested with --from
 * (mirrors in the same layout elsewhere), since tests never reach the network.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mirrorGitDir, mirrorRoot, REPOSITORIES } from '../../scripts/lib/git-trees.cjs';
import { REPO_ROOT } from '../helpers';
import { bareRepository, git, GIT_ENV } from '../pkg/git-repos';

const SCRIPT = join(REPO_ROOT, 'scripts', 'mirror-repos.mjs');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-mirrors-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const mirror = (args: string[], mirrors: string) => spawnSync(process.execPath, [SCRIPT, ...args], { env: { ...GIT_ENV, PV_MIRROR_DIR: mirrors }, encoding: 'utf8' });
const tags = (gitDir: string) => git(['--git-dir', gitDir, 'tag', '--list']).split('\n').filter(Boolean);

describe('the mirror command', () => {
  it('makes a bare mirror of every repository, then brings each up to date', () => {
    const from = join(dir, 'from');
    const mirrors = join(dir, 'mirrors');
    for (const repo of REPOSITORIES) bareRepository(mirrorGitDir(from, repo), [{ files: { 'README.md': repo.url }, tags: ['v1'] }]);
    const made = mirror(['--from', from], mirrors);
    expect(made.status).toBe(0);
    for (const repo of REPOSITORIES) {
      expect(git(['--git-dir', mirrorGitDir(mirrors, repo), 'rev-parse', '--is-bare-repository'])).toBe('true');
      expect(tags(mirrorGitDir(mirrors, repo))).toEqual(['v1']);
    }
    const [first] = REPOSITORIES;
    git(['--git-dir', mirrorGitDir(from, first!), 'tag', 'v2', 'v1']);
    const again = mirror(['--from', from], mirrors);
    expect(again.status).toBe(0);
    expect(again.stdout).toContain(`updated ${mirrorGitDir(mirrors, first!)}`);
    expect(tags(mirrorGitDir(mirrors, first!))).toEqual(['v1', 'v2']);
  });

  it('leaves no mirror behind where a clone fails, says which, and exits 1', () => {
    const run = mirror(['--from', join(dir, 'nowhere')], join(dir, 'mirrors'));
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`${REPOSITORIES.length} of ${REPOSITORIES.length} mirrors could not be made`));
    for (const repo of REPOSITORIES) expect(existsSync(mirrorGitDir(join(dir, 'mirrors'), repo))).toBe(false);
  });

  it('reads them, without $PV_MIRROR_DIR, from the user\'s cache directory: no path of one machine', () => {
    expect(mirrorRoot({ HOME: '/home/dev' })).toBe('/home/dev/.cache/package-variant/mirrors');
    expect(mirrorRoot({ HOME: '/home/dev', XDG_CACHE_HOME: '/var/cache/dev' })).toBe('/var/cache/dev/package-variant/mirrors');
    expect(mirrorRoot({ PV_MIRROR_DIR: '/srv/mirrors' })).toBe('/srv/mirrors');
  });
});
