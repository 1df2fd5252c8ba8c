/** The decision table for one desired downstream (porch-lifecycle.md §11.5, as issue 21 decides it). */
import { decide, type ResolvedUpstream } from '../../src/sync/decide';
import type { PackageState, RevisionState } from '../../src/sync/state';

const OWNER = 'PackageVariantSet/default/fleet';
const V1: ResolvedUpstream = { ref: 'app/v1', commit: '1'.repeat(40) };
const V2: ResolvedUpstream = { ref: 'app/v2', commit: '2'.repeat(40) };

const revision = (over: Partial<RevisionState> & Pick<RevisionState, 'lifecycle' | 'workspace'>, upstream = V1, owner: string | undefined = OWNER): RevisionState => ({
  revision: 0,
  ref: '',
  commit: 'c'.repeat(40),
  deletionProposed: false,
  kptfile: { ...(owner ? { owner } : {}), lock: { repo: 'catalog.git', directory: 'app', ...upstream } },
  ...over,
});
const state = (revisions: RevisionState[], onBranch = revisions.some((r) => r.lifecycle === 'published')): PackageState => ({ pkgpath: 'app', revisions, onBranch });
const published = (n: number, upstream = V1, owner?: string) => revision({ lifecycle: 'published', workspace: `packagevariant-${n}`, revision: n }, upstream, owner ?? OWNER);

describe('decide', () => {
  it('creates where the repository holds no package', () => {
    expect(decide(OWNER, V1, undefined)).toEqual({ kind: 'create' });
    expect(decide(OWNER, V1, state([], false))).toEqual({ kind: 'create' });
  });

  it('is a conflict where a package is there that its variant does not own', () => {
    expect(decide(OWNER, V1, state([], true))).toMatchObject({ kind: 'conflict', reason: expect.stringMatching(/no variant owns it/) });
    expect(decide(OWNER, V1, state([published(1, V1, 'PackageVariant/default/other')]))).toMatchObject({ kind: 'conflict', reason: expect.stringMatching(/owned by PackageVariant\/default\/other/) });
  });

  it('upgrades from the latest published revision when it records another upstream revision', () => {
    const latest = published(2, V1);
    expect(decide(OWNER, V2, state([published(1, V1), latest]))).toEqual({ kind: 'upgrade', from: latest });
  });

  it('checks the published revision for edits when it records the upstream asked for', () => {
    const latest = published(3, V2);
    expect(decide(OWNER, V2, state([published(1, V1), latest]))).toEqual({ kind: 'check-published', from: latest });
  });

  it('checks the newest owned draft or proposal when current, and is blocked when the upstream moved past it', () => {
    const draft = revision({ lifecycle: 'draft', workspace: 'packagevariant-10' });
    const older = revision({ lifecycle: 'draft', workspace: 'packagevariant-9' });
    expect(decide(OWNER, V1, state([published(1), older, draft]))).toEqual({ kind: 'check-draft', draft });
    const proposal = revision({ lifecycle: 'proposed', workspace: 'packagevariant-2' });
    expect(decide(OWNER, V1, state([published(1), proposal]))).toEqual({ kind: 'check-proposal', proposal });
    expect(decide(OWNER, V2, state([published(1), draft]))).toMatchObject({ kind: 'blocked', reason: 'draft packagevariant-10 records app/v1, not app/v2: publish or discard it (delete its branch), then sync again to upgrade' });
  });

  it('takes a moved tag (same name, other commit) for a new upstream revision', () => {
    const latest = published(1, V1);
    expect(decide(OWNER, { ...V1, commit: '9'.repeat(40) }, state([latest]))).toEqual({ kind: 'upgrade', from: latest });
  });
});
