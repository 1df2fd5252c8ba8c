/** A variant's labels and annotations on the root Kptfile: merged over the package's, the variant's winning, none removed. */
import { parse } from 'yaml';
import type { ConfigObject } from '../../src/config/function-config';
import { FunctionError } from '../../src/krm/results';
import { mutatePackage } from '../../src/sync/mutate';
import { tree } from '../pkg/trees';

const variant = (spec: Record<string, unknown>): ConfigObject => ({ apiVersion: 'config.porch.kpt.dev/v1alpha1', kind: 'PackageVariant', metadata: { name: 'pv' }, spec: { upstream: { repo: 'c', package: 'app' }, downstream: { repo: 'e', package: 'app' }, ...spec } });
const kptfileWith = (metadata: string) => tree({ Kptfile: `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\n${metadata}`, 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n' });
const kptfileOf = (mutated: ReturnType<typeof mutatePackage>) => parse(mutated.tree.text('Kptfile')!);

describe("the variant's labels and annotations on the Kptfile", () => {
  it("are merged over the package's, the variant's values winning and none removed; an empty field is filled", () => {
    const mutated = mutatePackage(kptfileWith('  labels:\n  annotations:\n    team: b\n    tier: edge\n'), variant({ labels: { team: 'a' }, annotations: { team: 'a', 'approval.nephio.org/policy': 'initial' } }), []);
    expect(kptfileOf(mutated).metadata).toEqual({ name: 'app', labels: { team: 'a' }, annotations: { team: 'a', tier: 'edge', 'approval.nephio.org/policy': 'initial' } });
    expect(mutated.tree.text('cm.yaml')).toBe('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n');
  });

  it('leave a package alone when the variant has none', () => {
    const before = kptfileWith('  labels:\n    team: b\n');
    expect(mutatePackage(before, variant({}), []).tree.text('Kptfile')).toBe(before.text('Kptfile'));
  });

  it("are refused, naming the field, where the Kptfile's metadata holds something else than a map there", () => {
    const refused = () => mutatePackage(kptfileWith('  labels: [a, b]\n'), variant({ labels: { team: 'a' } }), []);
    expect(refused).toThrow(FunctionError);
    expect(() => refused()).toThrow("the Kptfile's metadata.labels is not a map: the variant's labels cannot be recorded there");
  });
});
