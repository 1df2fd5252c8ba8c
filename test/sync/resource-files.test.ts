/** A package's resources read for a step and written back: only what changed, in its own layout. */
import { PackageResources } from '../../src/package/resource-files';
import { PackageTree } from '../../src/package/tree';

const tree = (files: Record<string, string>): PackageTree => new PackageTree(new Map(Object.entries(files).map(([path, text]) => [path, { bytes: Buffer.from(text), mode: 0o644 }])));
const text = (t: PackageTree, path: string): string | undefined => t.text(path);

const CM = `# a licence header
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm   # the name
data:
  x: "1"
  list:
  - a
---
apiVersion: v1
kind: ConfigMap
metadata: {name: other}
`;

describe('PackageResources', () => {
  it('reads every KRM document with kpt position annotations, and writes an unchanged package back as it was', () => {
    const before = tree({ 'Kptfile': 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n', 'cm.yaml': CM, 'README.md': '# app\n', 'plain.yaml': 'just: data\n' });
    const resources = PackageResources.read(before);
    expect(resources.items.map((r) => `${r.kind}/${r.name}@${r.path}#${r.fileIndex}`)).toEqual(['Kptfile/app@Kptfile#0', 'ConfigMap/cm@cm.yaml#0', 'ConfigMap/other@cm.yaml#1']);
    const after = resources.written(resources.items);
    expect([...after.files.keys()].sort()).toEqual([...before.files.keys()].sort());
    for (const path of before.files.keys()) expect(text(after, path)).toBe(text(before, path));
  });

  it('rewrites only the changed document, keeping its comments and the text around it', () => {
    const resources = PackageResources.read(tree({ 'cm.yaml': CM }));
    resources.items[0]!.setIn(['data', 'x'], '2');
    const after = resources.written(resources.items);
    expect(text(after, 'cm.yaml')).toBe(CM.replace('x: "1"', 'x: "2"'));
  });

  it('removes a dropped resource and appends a new one to the file its path annotation names', () => {
    const resources = PackageResources.read(tree({ 'cm.yaml': CM }));
    const [first] = resources.items;
    const added = PackageResources.read(tree({ 'ctx.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ctx\ndata:\n  a: b\n' })).items[0]!;
    const after = resources.written([first!, added]);
    expect(text(after, 'cm.yaml')).toBe(CM.slice(0, CM.indexOf('---')));
    expect(text(after, 'ctx.yaml')).toBe('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ctx\ndata:\n  a: b\n');
  });
});

describe('documents with the same text in many packages (a fleet)', () => {
  const DEPLOYMENT = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: app\n        image: app:1\n';

  it('share one reading of the text, frozen, each with its own position and edits', () => {
    const first = PackageResources.read(tree({ 'app.yaml': DEPLOYMENT })).items[0]!;
    const second = PackageResources.read(tree({ 'deploy/app.yaml': DEPLOYMENT })).items[0]!;
    const data = (resource: typeof first) => ('data' in resource.content ? resource.content.data : undefined) as { spec: unknown } | undefined;
    expect(data(first)!.spec).toBe(data(second)!.spec);
    expect(Object.isFrozen(data(first)!.spec)).toBe(true);
    expect([first.path, second.path]).toEqual(['app.yaml', 'deploy/app.yaml']);
    second.setIn(['spec', 'replicas'], 3);
    expect(second.getData(['spec', 'replicas'])).toBe(3);
    expect(first.getData(['spec', 'replicas'])).toBe(1);
    expect(PackageResources.read(tree({ 'app.yaml': DEPLOYMENT })).items[0]!.getData(['spec', 'replicas'])).toBe(1);
  });
});
