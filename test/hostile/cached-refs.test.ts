/**
 * sync lists a repository's refs from its cache entry's files, without a git process (issue 29):
 * the listing must be git's own (`git for-each-ref`, tags peeled to what they tag, as the listing
 * was read before): loose refs and packed ones, a loose one over a packed one, refs pruned, tags
 * of tags and of trees; and what git passes over in the entry (a name git would not take for a
 * ref, a lock file, a symbolic link) is passed over too.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheEntryPath } from '../../src/git/cache-entry';
import { CachedRemote } from '../../src/git/cached-remote';
import { DEFAULT_TIMEOUTS } from '../../src/git/run-git';
import { git, GIT_ENV } from '../pkg/git-repos';
import { emptyRepository } from '../sync/porch-repos';

jest.setTimeout(120_000);

const MIRROR = 'refs/package-variant/sync/';
let dir: string;
let remote: string;
const env = () => ({ ...GIT_ENV, PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache') });
const options = () => ({ env: env(), timeouts: DEFAULT_TIMEOUTS, notify: () => undefined });

/** The refs as git lists them in the entry, peeled, as sync read them with `for-each-ref`. */
function gitListing(): [string, string][] {
  const entry = cacheEntryPath(env(), remote);
  const out = git(['--git-dir', entry, 'for-each-ref', '--format=%(objectname) %(*objectname) %(refname)', MIRROR]);
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [object, peeled, name] = line.split(' ');
      return [`refs/${name!.slice(MIRROR.length)}`, peeled || object!];
    });
}

async function opened(): Promise<[string, string][]> {
  const cached = await CachedRemote.open(remote, { kind: 'local', url: remote, path: remote }, options());
  const refs = await cached.refs();
  await cached.close();
  return [...refs];
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-cached-refs-'));
  remote = join(dir, 'remote.git');
  emptyRepository(remote);
  const main = git(['--git-dir', remote, 'rev-parse', 'main']);
  const tree = git(['--git-dir', remote, 'rev-parse', 'main^{tree}']);
  for (const branch of ['a', 'b', 'drafts/app/v1']) git(['--git-dir', remote, 'branch', branch, main]);
  git(['--git-dir', remote, 'tag', 'light', main]);
  git(['--git-dir', remote, 'tag', '-a', '-m', 'annotated', 'app/v1', main]);
  git(['--git-dir', remote, 'tag', '-a', '-m', 'of a tag', 'app/v2', 'app/v1']);
  git(['--git-dir', remote, 'tag', 'tree', tree]);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("a repository's refs read from its cache entry", () => {
  it('are what git lists, fetched loose', async () => {
    const refs = await opened();
    expect(refs).toEqual(gitListing());
    expect(refs.map(([name]) => name)).toEqual(['refs/heads/a', 'refs/heads/b', 'refs/heads/drafts/app/v1', 'refs/heads/main', 'refs/tags/app/v1', 'refs/tags/app/v2', 'refs/tags/light', 'refs/tags/tree']);
  });

  it('are what git lists once packed, moved, pruned and planted upon', async () => {
    await opened();
    const entry = cacheEntryPath(env(), remote);
    git(['--git-dir', entry, 'pack-refs', '--all']);
    git(['--git-dir', remote, 'commit-tree', '-m', 'moved', 'main^{tree}']);
    const moved = git(['--git-dir', remote, 'commit-tree', '-p', 'main', '-m', 'moved', 'main^{tree}']);
    git(['--git-dir', remote, 'update-ref', 'refs/heads/a', moved]);
    git(['--git-dir', remote, 'branch', 'c', moved]);
    git(['--git-dir', remote, 'branch', '-D', 'b']);
    const heads = join(entry, MIRROR, 'heads');
    mkdirSync(join(heads, 'planted'), { recursive: true });
    writeFileSync(join(heads, 'planted', 'bad..name'), `${moved}\n`);
    writeFileSync(join(heads, 'planted', 'zz.lock'), `${moved}\n`);
    writeFileSync(join(heads, 'planted', 'not-an-object'), 'ref: refs/heads/main\n');
    symlinkSync(join(entry, 'HEAD'), join(heads, 'planted', 'link'));
    const refs = await opened();
    expect(refs).toEqual(gitListing());
    expect(new Map(refs).get('refs/heads/a')).toBe(moved);
    expect(refs.map(([name]) => name)).toEqual(['refs/heads/a', 'refs/heads/c', 'refs/heads/drafts/app/v1', 'refs/heads/main', 'refs/tags/app/v1', 'refs/tags/app/v2', 'refs/tags/light', 'refs/tags/tree']);
  });
});
