/**
 * sync reads each repository through one long-lived `git cat-file` (issue 29): a read that stalls
 * is bounded as a transfer is. Here every `cat-file` never answers (a `git` on PATH that runs the
 * real one for everything else): the run ends within the stall bound, each repository named with
 * the bound that stopped its reader, nothing pushed, and no reader left running.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers';
import { configMap, kptfile } from '../pkg/trees';
import { emptyRepository, GIT_ENV, publish, refsOf, writeFleet } from '../sync/porch-repos';

jest.setTimeout(120_000);

const MAIN = join(REPO_ROOT, 'dist/main.js');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-stalled-read-'));
  emptyRepository(join(dir, 'catalog.git'));
  publish(join(dir, 'catalog.git'), 'app', 1, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '1' }) });
  for (const edge of ['edge1', 'edge2']) emptyRepository(join(dir, `${edge}.git`));
  writeFleet(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A `git` that records and stalls every `cat-file`, and is the real git otherwise. */
function stallingGit(): { path: string; pids: string } {
  const real = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  const bin = join(dir, 'bin');
  const pids = join(dir, 'stalled-pids');
  mkdirSync(bin);
  writeFileSync(join(bin, 'git'), `#!/bin/sh\nfor arg in "$@"; do\n  if [ "$arg" = cat-file ]; then echo $$ >> '${pids}'; exec sleep 600; fi\ndone\nexec '${real}' "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  return { path: `${bin}:${process.env.PATH}`, pids };
}

const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('a repository whose reader stalls', () => {
  it('is stopped after the stall bound, naming the repository; nothing pushed, no reader left', () => {
    const { path, pids } = stallingGit();
    const before = ['edge1', 'edge2'].map((edge) => refsOf(join(dir, `${edge}.git`)));
    const started = Date.now();
    const run = spawnSync(process.execPath, [MAIN, 'sync', 'fleet.yaml', '--no-render'], {
      cwd: dir,
      env: { ...GIT_ENV, PATH: path, PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache'), PACKAGE_VARIANT_STATE_DIR: join(dir, 'state'), PACKAGE_VARIANT_GIT_STALL_TIMEOUT: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.signal).toBeNull();
    expect(Date.now() - started).toBeLessThan(30_000);
    for (const edge of ['edge1', 'edge2']) {
      expect(run.stdout).toMatch(new RegExp(`Repository ${edge} \\(fleet\\.yaml \\(document \\d\\)\\): git cat-file of \\./${edge}\\.git \\(cached in [^)]*\\) got nothing from the repository for 1 s \\(the stall bound: --git-stall-timeout, PACKAGE_VARIANT_GIT_STALL_TIMEOUT\\); it was stopped`));
    }
    expect(run.stderr).not.toMatch(/pushed [1-9]/);
    expect(['edge1', 'edge2'].map((edge) => refsOf(join(dir, `${edge}.git`)))).toEqual(before);
    expect(existsSync(pids)).toBe(true);
    const stalled = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    expect(stalled.filter(running)).toEqual([]);
  });
});
