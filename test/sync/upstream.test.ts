/** Upstream resolution (issue 21): revision numbers, tag names, workspaces from approval annotations. */
import { annotatedMessage, readAnnotations } from '../../src/sync/porch-commits';
import type { SyncRepository } from '../../src/sync/repositories';
import { lockRepository, resolveUpstream, type TagListing } from '../../src/sync/upstream';

const CATALOG: SyncRepository = { name: 'catalog', namespace: 'default', labels: {}, url: '/git/catalog.git', branch: 'main', directory: 'pkgs', deployment: false, createBranch: false, where: 'repos.yaml', base: '/' };
const sha = (c: string) => c.repeat(40);
const approval = (ws: string, n: number) => annotatedMessage(`Approving package revision pkgs/app/${n}`, { package: 'pkgs/app', workspaceName: ws, revision: String(n) });

const listing: TagListing = {
  tags: new Map([
    ['pkgs/app/v1', sha('1')],
    ['pkgs/app/v2', sha('2')],
    ['pkgs/app/stable', sha('2')],
    ['pkgs/app/v3', sha('3')],
    ['pkgs/app/4', sha('5')],
    ['pkgs/other/v1', sha('4')],
  ]),
  annotations: (commit) => readAnnotations({ [sha('1')]: approval('first', 1), [sha('2')]: approval('second', 2), [sha('3')]: 'plain message\n' }[commit] ?? ''),
};

describe('resolveUpstream', () => {
  it('takes a revision number to its tag, with the workspace its approval names', () => {
    expect(resolveUpstream({ repo: 'catalog', package: 'app', revision: 2 }, CATALOG, listing, 'PackageVariant a')).toMatchObject({
      ref: 'pkgs/app/v2',
      commit: sha('2'),
      workspace: 'second',
      revision: 2,
      pkgpath: 'pkgs/app',
      name: 'catalog.app.second',
    });
  });

  it('takes a revision name to the tag of that name (a floating tag), and a workspace to the revision approved under it', () => {
    // The tag names the revision, as Porch names it, though its commit's annotation names another workspace.
    expect(resolveUpstream({ package: 'app', revision: 'stable' }, CATALOG, listing, 'v')).toMatchObject({ ref: 'pkgs/app/stable', commit: sha('2'), revision: -1, workspace: 'stable', name: 'catalog.app.stable' });
    expect(resolveUpstream({ package: 'app', workspaceName: 'stable' }, CATALOG, listing, 'v')).toMatchObject({ ref: 'pkgs/app/stable', workspace: 'stable' });
    expect(resolveUpstream({ package: 'app', workspaceName: 'first' }, CATALOG, listing, 'v')).toMatchObject({ ref: 'pkgs/app/v1', revision: 1, workspace: 'first' });
  });

  it('falls back to the tag named after the workspace, where no approval names it', () => {
    expect(resolveUpstream({ package: 'app', workspaceName: 'v3' }, CATALOG, listing, 'v')).toMatchObject({ ref: 'pkgs/app/v3', workspace: 'v3', revision: 3 });
    // A numbered tag without an annotation is workspace v<N>, as Porch names it.
    expect(resolveUpstream({ package: 'app', revision: '4' }, CATALOG, listing, 'v')).toMatchObject({ ref: 'pkgs/app/4', workspace: 'v4', revision: 4, name: 'catalog.app.v4' });
  });

  it('names the variant when no revision is asked for, or none is published', () => {
    expect(() => resolveUpstream({ repo: 'catalog', package: 'app' }, CATALOG, listing, 'PackageVariant default/a')).toThrow(
      'PackageVariant default/a: spec.upstream names no published revision: give spec.upstream.revision (a number or a tag name) or spec.upstream.workspaceName',
    );
    expect(() => resolveUpstream({ package: 'app', revision: 9 }, CATALOG, listing, 'PackageVariant default/a')).toThrow(
      'PackageVariant default/a: Repository catalog has no published revision 9 of package app (no tag pkgs/app/v9 in /git/catalog.git)',
    );
  });
});

describe('the upstream a downstream Kptfile records', () => {
  it('adds .git to a remote URL as Porch does, keeps a local path, and leaves an http URL credentials out', () => {
    expect(lockRepository('https://github.com/org/catalog', '/fleet')).toBe('https://github.com/org/catalog.git');
    expect(lockRepository('https://me:s3cret@git.example.com/catalog.git', '/fleet')).toBe('https://git.example.com/catalog.git');
    expect(lockRepository('git@github.com:org/catalog', '/fleet')).toBe('git@github.com:org/catalog.git');
    expect(lockRepository('/srv/git/catalog', '/fleet')).toBe('/srv/git/catalog');
    expect(lockRepository('file:///srv/git/catalog', '/fleet')).toBe('file:///srv/git/catalog');
    // Relative to the fleet file, recorded from the root: a clone of the downstream can fetch it (issue 30).
    expect(lockRepository('../git/catalog.git', '/srv/fleet')).toBe('/srv/git/catalog.git');
    expect(lockRepository('./catalog.git', '/srv/fleet')).toBe('/srv/fleet/catalog.git');
  });
});
