/**
 * Issue 18, items 2, 6 and 8: what a Kptfile's repository can make git do. An option-like
 * repository (`--upload-pack=CMD`) never reaches git as an option, in the root Kptfile or in a
 * subpackage a new upstream version adds, dry run or not; a transport that runs a program (`ext::`,
 * `fd::`) is refused; a repository on this machine that an upstream version brought in is not
 * fetched unless the user allows it; a server that accepts and never answers ends the update with
 * an error naming it, and no git process is left behind.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { git } from '../pkg/git-repos';
import { cli, entries, fetchedKptfile, outside, sandboxPerTest, snapshot, upstreamRepository, V1, V2, writeTextFiles } from './hostile-repos';

jest.setTimeout(60_000);

const box = sandboxPerTest();

/** The package committed in a work tree (home/work) whose `origin` is a local repository, as a user's checkout is. */
function commitWorkTree(): string {
  const work = join(box().home, 'work');
  git(['init', '-q', '--bare', join(box().repos, 'origin.git')]);
  git(['init', '-q', work]);
  git(['remote', 'add', 'origin', join(box().repos, 'origin.git')], work);
  git(['add', '-A'], work);
  git(['commit', '-q', '-m', 'fetched'], work);
  return work;
}

describe('issue 18 item 2: a repository that reads as an option never runs a command', () => {
  const marker = () => join(box().root, 'command-ran');
  const option = () => `--upload-pack=touch ${marker()}; false`;

  it.each([
    ['upstream.git.repo and upstreamLock.git.repo', (_repo: string, commit: string) => fetchedKptfile(option(), commit)],
    ['upstreamLock.git.repo alone', (repo: string, commit: string) => fetchedKptfile(`file://${repo}`, commit, option())],
  ])('in the root Kptfile (%s), dry run or not', async (_where, kptfile) => {
    const repo = join(box().repos, 'up.git');
    const [one] = upstreamRepository(repo, entries(V1), entries(V2));
    writeTextFiles(box().pkg, { ...V1, Kptfile: kptfile(repo, one) });
    const work = commitWorkTree();
    for (const args of [['--dry-run'], []]) {
      const run = await cli(['update', 'pkg@v2', ...args], { env: box().env, cwd: work });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/pkg\/Kptfile: upstream(Lock)?\.git\.repo: "--upload-pack=touch .*" is not a repository package-variant fetches from: it begins with "-", which git would take for an option/);
    }
    expect(existsSync(marker())).toBe(false);
  });

  it('in a subpackage that a new upstream version adds', async () => {
    const repo = join(box().repos, 'up.git');
    const sub = { 'sub/Kptfile': fetchedKptfile(option(), 'f'.repeat(40), option(), 'sub'), 'sub/cm.yaml': V1['cm.yaml']! };
    const [one] = upstreamRepository(repo, entries(V1), entries({ ...V2, ...sub }));
    writeTextFiles(box().pkg, { ...V1, Kptfile: fetchedKptfile(`file://${repo}`, one) });
    const work = commitWorkTree();
    const before = snapshot(box().pkg);
    const run = await cli(['update', 'pkg@v2'], { env: box().env, cwd: work });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/pkg\/sub\/Kptfile: upstream\.git\.repo: "--upload-pack=.*" is not a repository package-variant fetches from/);
    expect(existsSync(marker())).toBe(false);
    expect(snapshot(box().pkg)).toEqual(before);
  });

  it.each([
    ['ext::sh -c touch% /tmp/x', /"ext::" makes git run a program \(a remote helper\)/],
    ['fd::0', /"fd::" makes git run a program/],
    ['s3://bucket/repo', /"s3:\/\/" needs the remote helper git-remote-s3, a program git would run/],
    ['ssh://-oProxyCommand=touch%20x/repo', /its host begins with "-"/],
  ])('a transport that runs a program is refused: %s', async (repo, why) => {
    writeTextFiles(box().pkg, { ...V1, Kptfile: fetchedKptfile(repo, 'a'.repeat(40)) });
    const run = await cli(['update', `${box().pkg}@v2`], { env: box().env });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(why);
  });
});

describe('issue 18 item 6: a repository on this machine that an upstream version brings in is not fetched unless allowed', () => {
  it('names the subpackage and where it points; --allow-local-upstreams fetches it', async () => {
    const privateRepo = join(box().repos, 'private.git');
    const [p1] = upstreamRepository(privateRepo, entries({ Kptfile: V1.Kptfile! }), entries({ Kptfile: V1.Kptfile!, 'token.txt': 'the owner\'s token\n' }));
    // upstreamRepository keeps the package under pkg/: the subpackage points there.
    const sneaky = fetchedKptfile(`file://${privateRepo}`, p1, `file://${privateRepo}`, 'secrets').replace(/ref: v1/g, 'ref: v2');
    const repo = join(box().repos, 'up.git');
    const [one] = upstreamRepository(repo, entries(V1), entries({ ...V2, 'secrets/Kptfile': sneaky }));
    writeTextFiles(box().pkg, { ...V1, Kptfile: fetchedKptfile(`file://${repo}`, one) });
    const before = snapshot(box().pkg);
    const refused = await cli(['update', `${box().pkg}@v2`], { env: box().env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${box().pkg}/secrets: its upstream (upstream.git.repo) is "file://${privateRepo}", a repository on this machine (${privateRepo}) that the package did not record before this update`);
    expect(refused.stderr).toMatch(/--allow-local-upstreams\npackage-variant update: nothing was written\n$/);
    expect(snapshot(box().pkg)).toEqual(before);
    const allowed = await cli(['update', `${box().pkg}@v2`, '--allow-local-upstreams'], { env: box().env });
    expect(allowed.code).toBe(0);
    expect(readFileSync(join(box().pkg, 'secrets', 'token.txt'), 'utf8')).toBe("the owner's token\n");
  });

  it('a local repository the package already records is fetched as before', async () => {
    const repo = join(box().repos, 'up.git');
    const [one] = upstreamRepository(repo, entries(V1), entries(V2));
    writeTextFiles(box().pkg, { ...V1, Kptfile: fetchedKptfile(repo, one) });
    const run = await cli(['update', `${box().pkg}@v2`], { env: box().env });
    expect(run.code).toBe(0);
    expect(readFileSync(join(box().pkg, 'cm.yaml'), 'utf8')).toBe(V2['cm.yaml']);
  });
});

describe('issue 18 item 8: a server that accepts and never answers does not hang the update', () => {
  let server: Server;
  let sockets: Socket[];
  let ended: Set<Socket>;
  let port: number;
  beforeEach(async () => {
    sockets = [];
    ended = new Set();
    server = createServer((socket) => {
      sockets.push(socket);
      // Reads what git sends, answers nothing, and notes when git's side goes away.
      socket.resume();
      socket.on('end', () => ended.add(socket));
      socket.on('close', () => ended.add(socket));
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each(['git', 'http'])('%s:// on a loopback listener: stopped after the stall bound, naming the repository; no git process left', async (scheme) => {
    const url = `${scheme}://127.0.0.1:${port}/blueprints.git`;
    writeTextFiles(box().pkg, { ...V1, Kptfile: fetchedKptfile(url, 'a'.repeat(40)) });
    const before = { pkg: snapshot(box().pkg), outside: outside(box()) };
    const started = Date.now();
    const run = await cli(['update', `${box().pkg}@v2`], { env: { ...box().env, PACKAGE_VARIANT_GIT_STALL_TIMEOUT: '1' }, limitMs: 20_000 });
    expect(run.hung).toBe(false);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`git ls-remote of ${url} (cached in `);
    expect(run.stderr).toMatch(/got nothing from the repository for 1 s \(the stall bound: --git-stall-timeout, PACKAGE_VARIANT_GIT_STALL_TIMEOUT\); it was stopped/);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(sockets.length).toBeGreaterThan(0);
    // Every connection git opened is closed: its process group is gone.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sockets.filter((socket) => !ended.has(socket))).toEqual([]);
    expect(snapshot(box().pkg)).toEqual(before.pkg);
    expect(outside(box())).toEqual(before.outside);
  });

  it('the overall bound stops a process however it goes; --git-timeout overrides the environment', async () => {
    const url = `git://127.0.0.1:${port}/blueprints.git`;
    writeTextFiles(box().pkg, { ...V1, Kptfile: fetchedKptfile(url, 'a'.repeat(40)) });
    const run = await cli(['update', `${box().pkg}@v2`, '--git-timeout', '1'], { env: { ...box().env, PACKAGE_VARIANT_GIT_TIMEOUT: '100' }, limitMs: 20_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/git ls-remote of git:.* ran longer than 1 s \(the time bound: --git-timeout, PACKAGE_VARIANT_GIT_TIMEOUT\); it was stopped/);
  });

  it('a bound that is not a number of seconds is a usage error', async () => {
    writeTextFiles(box().pkg, { ...V1, Kptfile: fetchedKptfile('https://example.invalid/x.git', 'a'.repeat(40)) });
    const run = await cli(['update', `${box().pkg}@v2`], { env: { ...box().env, PACKAGE_VARIANT_GIT_STALL_TIMEOUT: 'soon' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/PACKAGE_VARIANT_GIT_STALL_TIMEOUT must be a number of seconds \(more than 0, at most a day\), not "soon"/);
    expect(readdirSync(box().pkg).sort()).toEqual(['Kptfile', 'cm.yaml']);
  });
});
