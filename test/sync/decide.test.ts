/** The decision table for one desired downstream (porch-lifecycle.md §11.5, as issue 21 decides it). */
import { decide, type ResolvedUpstream } from '../../src/sync/decide';
import type { PackageState, RevisionState } from '../../src/sync/state';

const OWNER = 'PackageVariantSet/default/fleet';
const CLAIM = { owner: OWNER, adoption: 'adoptNone', label: 'PackageVariant default/fleet-edge1-app' } as const;
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
const BRANCH: RevisionState = { lifecycle: 'published', workspace: 'main', revision: -1, ref: 'refs/heads/main', commit: 'b'.repeat(40), deletionProposed: false };
const state = (revisions: RevisionState[], onBranch = revisions.some((r) => r.lifecycle === 'published')): PackageState => ({ pkgpath: 'app', revisions, ...(onBranch ? { branch: BRANCH } : {}) });
const published = (n: number, upstream = V1, owner?: string) => revision({ lifecycle: 'published', workspace: `packagevariant-${n}`, revision: n }, upstream, owner ?? OWNER);

describe('decide', () => {
  it('creates where the repository holds no package', () => {
    expect(decide(CLAIM, V1, undefined)).toEqual({ kind: 'create' });
    expect(decide(CLAIM, V1, state([], false))).toEqual({ kind: 'create' });
  });

  it('is a conflict where a package is there that its variant does not own, naming the policy that takes it over', () => {
    expect(decide(CLAIM, V1, state([], true))).toEqual({ kind: 'conflict', reason: 'a package exists at app and no variant owns it; set spec.adoptionPolicy: adoptExisting on PackageVariant default/fleet-edge1-app to take it over' });
    const others = state([published(1, V1, 'PackageVariant/default/other')]);
    expect(decide(CLAIM, V1, others)).toEqual({ kind: 'conflict', reason: 'a package exists at app, owned by PackageVariant/default/other; a package another variant owns is never adopted' });
    expect(decide({ ...CLAIM, adoption: 'adoptExisting' }, V1, others)).toMatchObject({ kind: 'conflict' });
  });

  it('adopts a package no variant owns with adoptExisting: its latest published revision, else the package on the branch', () => {
    const adopt = { ...CLAIM, adoption: 'adoptExisting' } as const;
    const unowned = revision({ lifecycle: 'published', workspace: 'v1', revision: 1 }, V1, '');
    expect(decide(adopt, V2, state([unowned]))).toEqual({ kind: 'upgrade', from: unowned, adopting: true });
    expect(decide(adopt, V1, state([], true))).toEqual({ kind: 'check-published', from: BRANCH, adopting: true });
    const draft = revision({ lifecycle: 'draft', workspace: 'packagevariant-2', madeBySync: true }, V1, '');
    expect(decide(adopt, V1, state([unowned, draft]))).toEqual({ kind: 'check-draft', draft, adopting: true });
    const handMade = revision({ lifecycle: 'draft', workspace: 'hand-made' }, V1, '');
    expect(decide(adopt, V1, state([unowned, handMade]))).toEqual({ kind: 'check-published', from: unowned, adopting: true });
  });

  it('owns only the drafts and proposals sync made: a copy with its owner annotation blocks nothing, a copy without it unowns nothing', () => {
    const copy = revision({ lifecycle: 'draft', workspace: 'human-1' });
    const latest = published(1);
    expect(decide(CLAIM, V2, state([latest, copy, revision({ lifecycle: 'proposed', workspace: 'human-2' })]))).toEqual({ kind: 'upgrade', from: latest });
    expect(decide(CLAIM, V1, state([latest, revision({ lifecycle: 'draft', workspace: 'packagevariant-2' }, V1, '')]))).toEqual({ kind: 'check-published', from: latest });
    expect(decide({ ...CLAIM, adoption: 'adoptExisting' }, V1, state([copy], false))).toEqual({
      kind: 'conflict',
      reason: "a package exists at app with no published revision sync can start from and no draft it made; draft human-1 is not sync's: publish one or remove the package, then sync again",
    });
  });

  it('upgrades from the latest published revision when it records another upstream revision', () => {
    const latest = published(2, V1);
    expect(decide(CLAIM, V2, state([published(1, V1), latest]))).toEqual({ kind: 'upgrade', from: latest });
  });

  it('checks the published revision for edits when it records the upstream asked for', () => {
    const latest = published(3, V2);
    expect(decide(CLAIM, V2, state([published(1, V1), latest]))).toEqual({ kind: 'check-published', from: latest });
  });

  it('checks the newest owned draft or proposal when current, and is blocked when the upstream moved past it', () => {
    const draft = revision({ lifecycle: 'draft', workspace: 'packagevariant-10', madeBySync: true });
    const older = revision({ lifecycle: 'draft', workspace: 'packagevariant-9', madeBySync: true });
    expect(decide(CLAIM, V1, state([published(1), older, draft]))).toEqual({ kind: 'check-draft', draft });
    const proposal = revision({ lifecycle: 'proposed', workspace: 'packagevariant-2', madeBySync: true });
    expect(decide(CLAIM, V1, state([published(1), proposal]))).toEqual({ kind: 'check-proposal', proposal });
    expect(decide(CLAIM, V2, state([published(1), draft]))).toMatchObject({ kind: 'blocked', reason: 'draft packagevariant-10 records app/v1, not app/v2: publish or discard it (delete its branch), then sync again to upgrade' });
  });

  it('takes a moved tag (same name, other commit) for a new upstream revision', () => {
    const latest = published(1, V1);
    expect(decide(CLAIM, { ...V1, commit: '9'.repeat(40) }, state([latest]))).toEqual({ kind: 'upgrade', from: latest });
  });
});
