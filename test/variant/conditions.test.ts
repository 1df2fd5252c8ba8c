import { parse } from 'yaml';
import { KPTFILE, messages, run, runAgain, variant, variantList } from './variant-helpers';

const cmPoint = (name: string, value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  annotations:\n    kpt.dev/config-injection: ${value}\ndata:\n  k: v\n`;
const candidate = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: name } });

describe('conditions and readiness gates', () => {
  it("writes Porch's shapes: a condition per point (keys type, status, message, reason; status quoted), a gate per required point, sorted", () => {
    const config = variantList(variant({ injectors: [{ name: 'c1' }] }), [candidate('c1')]);
    const out = run({ Kptfile: KPTFILE, 'b.yaml': cmPoint('b', 'required'), 'a.yaml': cmPoint('a', 'optional'), 'c.yaml': cmPoint('c', 'required') }, config);
    expect(out.files.Kptfile).toBe(`${KPTFILE.replace('info:\n  description: Example\n', '')}info:
  description: Example
  readinessGates:
  - conditionType: config.injection.ConfigMap.b
  - conditionType: config.injection.ConfigMap.c
status:
  conditions:
  - type: config.injection.ConfigMap.a
    status: "True"
    message: injected resource "c1" from cluster
    reason: ConfigInjected
  - type: config.injection.ConfigMap.b
    status: "True"
    message: injected resource "c1" from cluster
    reason: ConfigInjected
  - type: config.injection.ConfigMap.c
    status: "True"
    message: injected resource "c1" from cluster
    reason: ConfigInjected
`);
    expect(messages(out).at(-1)).toBe(
      'Kptfile: conditions config.injection.ConfigMap.b True, config.injection.ConfigMap.a True, config.injection.ConfigMap.c True; readiness gates config.injection.ConfigMap.b, config.injection.ConfigMap.c',
    );
  });

  it('updates existing conditions in place, keeps other conditions, gates and keys under info and status (Porch drops the keys)', () => {
    const kptfile = `${KPTFILE}  site: https://example.com # kept
  readinessGates:
  - conditionType: z.manual
  - conditionType: config.injection.ConfigMap.a
  - conditionType: z.manual
status:
  renderStatus: {exitCode: 0}
  conditions:
  - type: z.other # someone else's
    status: "True"
  - reason: Old
    type: config.injection.ConfigMap.a # from an earlier run
    status: 'True'
    message: old
`;
    const out = run({ Kptfile: kptfile, 'a.yaml': cmPoint('a', 'required') }, variant());
    expect(out.exitCode).toBe(0);
    expect(out.files.Kptfile).toBe(`${KPTFILE}  site: https://example.com # kept
  readinessGates:
  - conditionType: config.injection.ConfigMap.a
  - conditionType: z.manual
status:
  renderStatus: {exitCode: 0}
  conditions:
  - reason: NoResourceSelected
    type: config.injection.ConfigMap.a # from an earlier run
    status: 'False'
    message: no injectors defined
  - type: z.other # someone else's
    status: "True"
`);
  });

  it('writes a condition status as a string where the Kptfile had an unquoted True', () => {
    const kptfile = `${KPTFILE}status:\n  conditions:\n  - type: config.injection.ConfigMap.a\n    status: True # was injected\n`;
    const out = run({ Kptfile: kptfile, 'a.yaml': cmPoint('a', 'optional') }, variant());
    expect(out.files.Kptfile).toContain('    status: "False" # was injected\n');
    expect(parse(out.files.Kptfile!).status.conditions[0].status).toBe('False');
  });

  it('an optional point adds no gate; an existing gate for it stays', () => {
    const kptfile = `${KPTFILE}  readinessGates:\n  - conditionType: config.injection.ConfigMap.a\n`;
    const out = run({ Kptfile: kptfile, 'a.yaml': cmPoint('a', 'optional'), 'b.yaml': cmPoint('b', 'optional') }, variant());
    expect(parse(out.files.Kptfile!).info.readinessGates).toEqual([{ conditionType: 'config.injection.ConfigMap.a' }]);
    expect(parse(run({ Kptfile: KPTFILE, 'b.yaml': cmPoint('b', 'optional') }, variant()).files.Kptfile!).info).toEqual({ description: 'Example' });
  });

  it('leaves conditions and gates alone when the package has no injection points (Porch re-sorts them)', () => {
    const kptfile = `${KPTFILE}  readinessGates:\n  - conditionType: z\n  - conditionType: a\nstatus:\n  conditions:\n  - type: z\n    status: "True"\n  - type: a\n    status: "True"\n`;
    const out = run({ Kptfile: kptfile }, variant());
    expect(out.files.Kptfile).toBe(kptfile);
    expect(out.results).toEqual([]);
  });

  it('creates info and status at the end of a Kptfile that has neither', () => {
    const bare = 'apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p # the package\n';
    const out = run({ Kptfile: bare, 'a.yaml': cmPoint('a', 'required') }, variant());
    expect(out.files.Kptfile).toBe(
      `${bare}info:\n  readinessGates:\n  - conditionType: config.injection.ConfigMap.a\nstatus:\n  conditions:\n  - type: config.injection.ConfigMap.a\n    status: "False"\n    message: no injectors defined\n    reason: NoResourceSelected\n`,
    );
    expect(runAgain(out, variant()).files).toEqual(out.files);
  });

  it('a Kptfile info or status that is not a map, or lists that are not lists of maps, are errors', () => {
    const point = { 'a.yaml': cmPoint('a', 'required') };
    expect(messages(run({ Kptfile: `${KPTFILE.replace('info:\n  description: Example\n', 'info: text\n')}`, ...point }, variant()))).toEqual(['Kptfile info must be a map']);
    expect(messages(run({ Kptfile: `${KPTFILE}status:\n  conditions: {}\n`, ...point }, variant()))).toEqual(['Kptfile status.conditions must be a list of maps']);
    expect(messages(run({ Kptfile: `${KPTFILE}  readinessGates: [a]\n`, ...point }, variant()))).toEqual(['Kptfile info.readinessGates must be a list of maps']);
  });
});
