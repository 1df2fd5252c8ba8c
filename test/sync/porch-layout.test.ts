/** Porch's names and commit annotations (porch-lifecycle.md §7), as sync writes and reads them. */
import { withoutCredentials } from '../../src/git/remote-url';
import { madeBySync, withSyncRecord } from '../../src/sync/ownership';
import { annotatedMessage, draftMessage, readAnnotations, MESSAGES } from '../../src/sync/porch-commits';
import { MAX_REVISION, nextVariantWorkspace, packageRevisionName, readPorchRef, revisionOfRef, tagRevision } from '../../src/sync/porch-refs';

describe('Porch names', () => {
  it('numbers a new variant workspace one past the largest packagevariant-N, other suffixes counting as 0', () => {
    expect(nextVariantWorkspace([])).toBe('packagevariant-1');
    expect(nextVariantWorkspace(['v1', 'main', 'packagevariant-1', 'packagevariant-7', 'packagevariant-3'])).toBe('packagevariant-8');
    expect(nextVariantWorkspace(['packagevariant-x', 'packagevariant-'])).toBe('packagevariant-1');
    expect(nextVariantWorkspace(['packagevariant-02'])).toBe('packagevariant-3');
  });

  it('reads a revision number from a ref as Revision2Int does', () => {
    expect(revisionOfRef('app/v3')).toBe(3);
    expect(revisionOfRef('a/b/12')).toBe(12);
    expect(revisionOfRef('app/v2.0.0')).toBe(-1);
    expect(revisionOfRef('main')).toBe(-1);
    expect(revisionOfRef('drafts/app/packagevariant-1')).toBe(-1);
    // strconv.Atoi after one `v` is dropped: a sign and leading zeros are read, a second `v` is not.
    expect(['app/3', 'app/v03', 'app/+3', 'app/v+3', 'app/vv3', 'app/v3a'].map(revisionOfRef)).toEqual([3, 3, 3, 3, -1, -1]);
    expect(revisionOfRef('app/v-4')).toBe(-4);
  });

  it('reads revisions up to the largest Porch holds (int32), and none past it', () => {
    expect(tagRevision('v1000000000')).toBe(1000000000);
    expect(tagRevision(`v${MAX_REVISION}`)).toBe(2147483647);
    expect(tagRevision('v0002147483647')).toBe(2147483647);
    for (const version of ['v2147483648', '99999999999', 'v99999999999999999999999', 'v-2147483649']) expect(tagRevision(version)).toBeUndefined();
    expect(tagRevision('v-2147483648')).toBe(-2147483648);
    expect(revisionOfRef('app/v2147483648')).toBe(-1);
  });

  it('names a PackageRevision as porchctl shows it', () => {
    expect(packageRevisionName('edge1', 'app', 'packagevariant-1')).toBe('edge1.app.packagevariant-1');
    expect(packageRevisionName('catalog', 'apps/web/app', 'v3')).toBe('catalog.apps.web.app.v3');
  });

  it('reads refs as Porch lists package revisions, within the Repository directory', () => {
    expect(readPorchRef('refs/heads/drafts/app/packagevariant-2', '')).toEqual({ kind: 'draft', pkgpath: 'app', workspace: 'packagevariant-2' });
    expect(readPorchRef('refs/heads/proposed/a/b/ws', '')).toEqual({ kind: 'proposed', pkgpath: 'a/b', workspace: 'ws' });
    expect(readPorchRef('refs/heads/deletionProposed/app/v4', '')).toEqual({ kind: 'deletion-proposed', pkgpath: 'app', revision: 4 });
    expect(readPorchRef('refs/tags/app/v1', '')).toEqual({ kind: 'tag', pkgpath: 'app', version: 'v1' });
    expect(readPorchRef('refs/tags/v1.0', '')).toBeUndefined();
    expect(readPorchRef('refs/heads/main', '')).toBeUndefined();
    expect(readPorchRef('refs/tags/other/app/v1', 'pkgs')).toBeUndefined();
    expect(readPorchRef('refs/tags/pkgs/app/v1', 'pkgs')).toEqual({ kind: 'tag', pkgpath: 'pkgs/app', version: 'v1' });
    expect(readPorchRef('refs/heads/drafts/app', '')).toBeUndefined();
    // Names from a repository that no package path can be, as the one path check says.
    for (const ref of ['refs/heads/drafts/../../x/ws', 'refs/tags/.git/v1', 'refs/heads/deletionProposed/a/../../b/v1', 'refs/heads/proposed/app/ws\u001b[2J']) expect(readPorchRef(ref, '')).toBeUndefined();
  });
});

describe('the kpt: annotation', () => {
  it('ends a message as Porch writes it, keys in Go struct order, Go escapes', () => {
    const message = draftMessage(MESSAGES.clone, {
      package: 'app',
      workspaceName: 'packagevariant-1',
      revision: '0',
      task: { type: 'clone', clone: { upstreamRef: { upstreamRef: { name: 'catalog.app.v1' } } } },
    });
    expect(message).toBe(
      'Creating new revision by cloning\n\n\nkpt:{"package":"app","workspaceName":"packagevariant-1","revision":"0","task":{"type":"clone","clone":{"upstreamRef":{"upstreamRef":{"name":"catalog.app.v1"}}}}}\n',
    );
    expect(annotatedMessage('m', { package: 'a<&>', workspaceName: 'w\u2028', revision: '2' })).toBe('m\n\nkpt:{"package":"a\\u003c\\u0026\\u003e","workspaceName":"w\\u2028","revision":"2"}\n');
  });

  it('reads back what it writes, and passes over lines that are no annotation', () => {
    const task = { type: 'upgrade', upgrade: { oldUpstreamRef: { name: 'c.app.v1' }, newUpstreamRef: { name: 'c.app.v2' }, localPackageRevisionRef: { name: 'e.app.packagevariant-1' }, strategy: 'resource-merge' } } as const;
    const message = annotatedMessage(MESSAGES.upgrade, { package: 'app', workspaceName: 'packagevariant-2', revision: '0', task });
    expect(readAnnotations(message)).toEqual([{ package: 'app', workspaceName: 'packagevariant-2', revision: '0', task }]);
    expect(readAnnotations('x\n  kpt:{"package":"p","revision":"3"}\nkpt: not json\nkpt:[1]\n')).toEqual([{ package: 'p', workspaceName: '', revision: '3' }]);
  });
});

describe("sync's record of the drafts it made", () => {
  const start = (workspace: string, record: boolean) => {
    const message = annotatedMessage(MESSAGES.edit, { package: 'app', workspaceName: workspace, revision: '0', task: { type: 'edit', edit: { sourceRef: { name: 'e.app.packagevariant-1' } } } });
    return record ? withSyncRecord(message) : message;
  };
  const render = (workspace: string) => annotatedMessage(MESSAGES.render, { package: 'app', workspaceName: workspace, revision: '0', task: { type: 'render' } });
  const chain = (...messages: string[]) => new Map(messages.map((message, i) => [`c${i}`, { parents: i + 1 < messages.length ? [`c${i + 1}`] : ['main'], message }]));

  it('is a line after the annotation that Porch reads past', () => {
    const message = start('packagevariant-2', true);
    expect(message).toMatch(/\nkpt:\{.*\}\nMade-by: package-variant sync\n$/);
    expect(readAnnotations(message)).toHaveLength(1);
  });

  it("is looked for on the draft's first task, past commits a person added, among the branch's own commits", () => {
    expect(madeBySync('app', 'packagevariant-2', 'c0', chain('a person\'s commit', render('packagevariant-2'), start('packagevariant-2', true)))).toBe(true);
    // A copy starts with a commit of its own: the record of the revision it came from is not its own.
    expect(madeBySync('app', 'packagevariant-2', 'c0', chain(start('packagevariant-2', false), start('packagevariant-1', true)))).toBe(false);
    expect(madeBySync('app', 'human-1', 'c0', chain(start('human-1', true)))).toBe(false);
    expect(madeBySync('app', 'packagevariant-2', 'c0', chain(render('packagevariant-2')))).toBe(false);
    expect(madeBySync('app', 'packagevariant-2', 'c0', new Map())).toBe(false);
  });
});

describe('credentials in repository URLs', () => {
  it('are hidden wherever a URL stands in a message', () => {
    expect(withoutCredentials("fatal: unable to access 'https://me:s3cret@git.example.com/edge.git/': 403")).toBe("fatal: unable to access 'https://***@git.example.com/edge.git/': 403");
    expect(withoutCredentials('Repository a (ssh://git@host/x.git) and https://host/y')).toBe('Repository a (ssh://***@host/x.git) and https://host/y');
  });
});
