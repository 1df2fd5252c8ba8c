/** A downstream cloned as Porch's clone task makes it (porch-lifecycle.md §1). */
import { clonePackage, type CloneFacts } from '../../src/sync/clone';
import { PackageTree } from '../../src/package/tree';

const tree = (files: Record<string, string>): PackageTree => new PackageTree(new Map(Object.entries(files).map(([path, text]) => [path, { bytes: Buffer.from(text), mode: 0o644 }])));

const UPSTREAM = tree({
  Kptfile: 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n  annotations:\n    config.kubernetes.io/local-config: "true"\ninfo:\n  description: sample\n',
  'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  x: "1"\n',
  'ns/svc.yaml': 'apiVersion: v1\nkind: Service\nmetadata: # kpt-merge: prod/old\n  name: svc\n  namespace: prod\n',
  'old-context.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\ndata:\n  name: stale\n',
  'README.md': '# app\n',
  'unnamed.yaml': 'apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: "1"\nitems: []\n',
  'odd.yaml': 'apiVersion: example.com/v1\nkind: Thing\nmetadata: # kpt-merge: broken\n  name: odd\n  namespace: _non_namespaceable_\n',
});

const FACTS: CloneFacts = {
  packagePath: 'apps/app',
  lock: { repo: 'https://example.com/catalog.git', directory: 'app', ref: 'app/v1', commit: 'c0ffee0000000000000000000000000000000000' },
  ownership: { owner: 'PackageVariantSet/default/fleet', deletionPolicy: 'delete' },
  deployment: true,
};

describe('clonePackage', () => {
  const cloned = clonePackage(UPSTREAM, FACTS);

  it('names the package, records its upstream after metadata as Porch does, and its owner', () => {
    expect(cloned.text('Kptfile')).toBe(
      [
        'apiVersion: kpt.dev/v1',
        'kind: Kptfile',
        'metadata: # kpt-merge: /app',
        '  name: app',
        '  annotations:',
        '    config.kubernetes.io/local-config: "true"',
        '    package-variant.github.io/owner: PackageVariantSet/default/fleet',
        '    package-variant.github.io/deletion-policy: delete',
        "    internal.kpt.dev/upstream-identifier: 'kpt.dev|Kptfile|default|app'",
        'upstream:',
        '  type: git',
        '  git:',
        '    repo: https://example.com/catalog.git',
        '    directory: app',
        '    ref: app/v1',
        'upstreamLock:',
        '  type: git',
        '  git:',
        '    repo: https://example.com/catalog.git',
        '    directory: app',
        '    ref: app/v1',
        '    commit: c0ffee0000000000000000000000000000000000',
        'info:',
        '  description: sample',
        '',
      ].join('\n'),
    );
  });

  // Porch's mergekey.go (kpt's AddMergeComment), Porch judging it in test/porch-judge/controllers.test.ts.
  it('puts the merge key on every resource that names anything: a kpt-merge comment unless one is there, the identifier from the comment', () => {
    expect(cloned.text('cm.yaml')).toBe("apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /cm\n  name: cm\n  annotations:\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|cm'\ndata:\n  x: \"1\"\n");
    expect(cloned.text('ns/svc.yaml')).toBe("apiVersion: v1\nkind: Service\nmetadata: # kpt-merge: prod/old\n  name: svc\n  namespace: prod\n  annotations:\n    internal.kpt.dev/upstream-identifier: '|Service|prod|old'\n");
    expect(cloned.text('unnamed.yaml')).toBe(UPSTREAM.text('unnamed.yaml'));
  });

  it("names by its metadata a resource whose comment holds no namespace and name, and spells kpt's non-namespace ~C", () => {
    expect(cloned.text('odd.yaml')).toBe("apiVersion: example.com/v1\nkind: Thing\nmetadata: # kpt-merge: broken\n  name: odd\n  namespace: _non_namespaceable_\n  annotations:\n    internal.kpt.dev/upstream-identifier: 'example.com|Thing|~C|odd'\n");
  });

  it('generates the package context of a deployment Repository in place of any other', () => {
    expect(cloned.files.has('old-context.yaml')).toBe(false);
    expect(cloned.text('package-context.yaml')).toBe(
      "apiVersion: v1\nkind: ConfigMap\nmetadata: # kpt-merge: /kptfile.kpt.dev\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|kptfile.kpt.dev'\ndata:\n  name: app\n  package-path: apps/app\n",
    );
    expect(cloned.text('README.md')).toBe('# app\n');
  });

  it('generates no package context outside a deployment Repository', () => {
    const plain = clonePackage(UPSTREAM, { ...FACTS, deployment: false });
    expect(plain.files.has('package-context.yaml')).toBe(false);
    expect(plain.text('old-context.yaml')).toBe(
      UPSTREAM.text('old-context.yaml')!.replace('metadata:\n  name: kptfile.kpt.dev\n', "metadata: # kpt-merge: /kptfile.kpt.dev\n  name: kptfile.kpt.dev\n  annotations:\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|kptfile.kpt.dev'\n"),
    );
  });
});
