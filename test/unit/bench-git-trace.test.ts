/**
 * The sync benchmark's count of git processes (bench/lib/git-trace.mjs) from a trace real git wrote:
 * the processes the command started, by stage, and not the helpers git starts itself.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-git-trace-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** gitProcesses of `trace`, read by a child process (bench/lib is ECMAScript modules). */
function gitProcesses(trace: string): { processes: number; byArea: Record<string, { processes: number; seconds: number }> } {
  const script = `import(${JSON.stringify(join(REPO_ROOT, 'bench/lib/git-trace.mjs'))}).then((m) => process.stdout.write(JSON.stringify(m.gitProcesses(${JSON.stringify(trace)}))))`;
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
}

it('counts the git processes a command started, by stage; a local push counts once, without the receive-pack it runs', () => {
  const trace = join(dir, 'trace.json');
  const env = { ...process.env, GIT_TRACE2_EVENT: trace, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.invalid', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.invalid' };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' });
  git('init', '-q', '--bare', 'remote.git');
  git('init', '-q', 'work');
  writeFileSync(join(dir, 'work', 'file'), 'text\n');
  git('-C', 'work', 'add', 'file');
  git('-C', 'work', 'commit', '-q', '-m', 'one');
  git('-C', 'work', 'push', '-q', '../remote.git', 'HEAD:refs/heads/main');
  git('--git-dir', 'remote.git', 'for-each-ref');
  git('-c', 'core.quotePath=false', '--git-dir', 'remote.git', 'cat-file', '-t', 'refs/heads/main');

  const { processes, byArea } = gitProcesses(trace);
  expect(processes).toBe(7);
  expect(byArea['push']?.processes).toBe(1);
  expect(byArea['read objects and refs']?.processes).toBe(2);
  expect(byArea['cache set-up']?.processes).toBe(2);
  expect(byArea['other (add)']?.processes).toBe(1);
  expect(byArea['other (commit)']?.processes).toBe(1);
  expect(byArea['push']!.seconds).toBeGreaterThan(0);
});

it('reads a missing trace as no processes', () => {
  expect(gitProcesses(join(dir, 'none.json'))).toEqual({ processes: 0, byArea: {} });
});
