import { parse } from 'yaml';
import type { ConfigObject } from '../../src/config/function-config';
import { parseResourceList } from '../../src/krm/resource-list';
import { FunctionError } from '../../src/krm/results';
import { applyPackageVariant } from '../../src/variant';
import { resourceList } from '../helpers';
import { CONTEXT, itemsOf, KPTFILE, messages, run, variant } from './variant-helpers';

const point = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: p\n  annotations:\n    kpt.dev/config-injection: required\ndata:\n  k: v\n';

function apply(files: Record<string, string>, spec: Record<string, unknown>) {
  const list = parseResourceList(resourceList(itemsOf(files)));
  let thrown: unknown;
  try {
    applyPackageVariant(list, parse(variant(spec)) as ConfigObject, []);
  } catch (error) {
    thrown = error;
  }
  return { list, thrown };
}

describe('the PackageVariant run', () => {
  it('checks every step before changing anything: a late error leaves every item untouched', () => {
    const { list, thrown } = apply(
      { Kptfile: KPTFILE, 'package-context.yaml': CONTEXT, 'p.yaml': point, 'bad.yaml': point.replace('name: p', 'name: q').replace('required', 'sometimes') },
      { packageContext: { data: { region: 'x' } }, pipeline: { mutators: [{ image: 'a:v1' }] } },
    );
    expect(thrown).toBeInstanceOf(FunctionError);
    expect((thrown as FunctionError).results.map((r) => r.message)).toEqual([expect.stringContaining('annotation value "sometimes"')]);
    expect(list.items.filter((item) => item.isChanged)).toEqual([]);
    expect(list.results).toEqual([]);
  });

  it('reports the errors of every step together', () => {
    const { thrown } = apply({ Kptfile: KPTFILE, 'bad.yaml': point.replace('required', 'maybe') }, { packageContext: { data: { name: 'x' } }, pipeline: { mutators: [{ name: 'a.b' }] } });
    expect((thrown as FunctionError).results.map((r) => r.field?.path)).toEqual([
      'spec.packageContext.data.name',
      'spec.packageContext',
      'spec.pipeline.mutators[0].name',
      'metadata.annotations["kpt.dev/config-injection"]',
    ]);
  });

  it('applies the steps in order and reports each', () => {
    const out = run(
      { Kptfile: KPTFILE, 'package-context.yaml': CONTEXT, 'p.yaml': point },
      variant({ packageContext: { data: { region: 'x' } }, pipeline: { mutators: [{ image: 'a:v1', name: 'a' }] } }),
    );
    expect(out.exitCode).toBe(0);
    expect(messages(out)).toEqual([
      'package context: set region="x"',
      'Kptfile pipeline: prepended mutators PackageVariant.my-pv.a.0',
      'required injection point ConfigMap p (p.yaml) not injected: no injectors defined',
      'Kptfile: conditions config.injection.ConfigMap.p False; readiness gates config.injection.ConfigMap.p',
    ]);
  });

  it("Porch's required fields: upstream and downstream with repo and package, injector names", () => {
    const config = `apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: my-pv
spec:
  upstream: {repo: blueprints}
  injectors:
  - name: ok
  - name: ""
`;
    const out = run({ Kptfile: KPTFILE }, config);
    expect(out.exitCode).toBe(1);
    expect(out.results.map((r) => [r.field.path, r.message])).toEqual([
      ['spec.upstream.package', 'PackageVariant my-pv: missing required field spec.upstream.package'],
      ['spec.downstream', 'PackageVariant my-pv: missing required field spec.downstream'],
      ['spec.injectors[1].name', 'PackageVariant my-pv: spec.injectors[1].name must not be empty'],
    ]);
  });

  it('two root Kptfiles are an error', () => {
    const out = run({ Kptfile: `${KPTFILE}---\n${KPTFILE.replace('name: prr', 'name: other')}` }, variant());
    expect(out.exitCode).toBe(1);
    expect(messages(out)).toEqual(['the package has 2 root Kptfiles: Kptfile prr (Kptfile), Kptfile other (Kptfile)']);
  });

  it('does nothing to a package without context edits, pipeline or injection points', () => {
    const files = { Kptfile: KPTFILE, 'package-context.yaml': CONTEXT, 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a # keep\n' };
    const input = resourceList(itemsOf(files));
    const out = run(files, variant({ adoptionPolicy: 'adoptExisting', deletionPolicy: 'orphan', labels: { a: 'b' }, annotations: { c: 'd' } }));
    expect(out.exitCode).toBe(0);
    expect(out.results).toEqual([]);
    expect(out.output.startsWith(input.slice(0, input.indexOf('functionConfig:')))).toBe(true);
  });
});
