/**
 * A PackageVariant written as the design writes it (README, "API forms"): `revision: v1` and one
 * injector written alone run as Porch's forms do.
 */
import { parse } from 'yaml';
import { errors, KPTFILE, run, variant, variantList } from './variant-helpers';

const endpointsPoint = `apiVersion: v1
kind: ConfigMap
metadata:
  name: endpoints
  annotations:
    kpt.dev/config-injection: required
data:
  db: example
`;

const candidate = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'useast1-endpoints' }, data: { db: 'db.useast1' } };

describe('a PackageVariant in the design form', () => {
  it('revision v1 and a single injector inject as the Porch form does', () => {
    const files = { Kptfile: KPTFILE, 'endpoints.yaml': endpointsPoint };
    const design = run(files, variantList(variant({ upstream: { repo: 'catalog', package: 'app', revision: 'v1' }, injectors: { name: 'useast1-endpoints' } }), [candidate]));
    const porch = run(files, variantList(variant({ upstream: { repo: 'catalog', package: 'app', revision: 1 }, injectors: [{ name: 'useast1-endpoints' }] }), [candidate]));
    expect(errors(design)).toEqual([]);
    expect(design.files).toEqual(porch.files);
    expect(parse(design.files['endpoints.yaml']!).data).toEqual({ db: 'db.useast1' });
  });

  it('an empty name in a single injector is reported at spec.injectors.name', () => {
    const out = run({ Kptfile: KPTFILE }, variant({ injectors: { name: '' } }));
    expect(out.exitCode).toBe(1);
    expect(errors(out).map((e) => [e.message, e.field])).toEqual([['PackageVariant my-pv: spec.injectors.name must not be empty', { path: 'spec.injectors.name' }]]);
  });
});
