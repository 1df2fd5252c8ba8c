import { parse } from 'yaml';
import { crdYaml, resourceList, runFunction } from '../helpers';
import { CONTEXT, errors, KPTFILE, messages, run, runAgain, variant, variantList, type Files } from './variant-helpers';

const point = (kind: string, name: string, value: string, body: string, apiVersion = kind === 'ConfigMap' ? 'v1' : 'hr.example.com/v1alpha1', namespace?: string) =>
  `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: ${name}\n${namespace ? `  namespace: ${namespace}\n` : ''}  annotations:\n    kpt.dev/config-injection: ${value}\n${body}`;

const endpoints = point('ConfigMap', 'endpoints', 'required', 'data:\n  db: example # replaced by injection\n  cache: example\n');
const team = point('Team', 'team', 'optional', 'spec:\n  chargeCode: example\n');

const cm = (name: string, data: Record<string, string>, namespace?: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(namespace ? { namespace } : {}) }, data });
const teamCandidate = (name: string, spec: Record<string, unknown>, namespace?: string, apiVersion = 'hr.example.com/v1alpha1') => ({
  apiVersion,
  kind: 'Team',
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec,
});

const injectors = (...list: Record<string, string>[]) => ({ injectors: list });
const pkg = (...files: [string, string][]): Files => ({ Kptfile: KPTFILE, ...Object.fromEntries(files) });
const conditions = (files: Files) => (parse(files.Kptfile!) as { status?: { conditions: Record<string, string>[] } }).status?.conditions ?? [];
const condition = (files: Files, type: string) => conditions(files).find((c) => c.type === type);

describe('config injection', () => {
  it("a ConfigMap gets the candidate's data, whole, and the injected-resource-name annotation; comments of surviving keys stay", () => {
    const config = variantList(variant(injectors({ name: 'us-east1' })), [cm('us-east1', { db: 'db.us-east1', region: 'us-east1' })]);
    const out = run(pkg(['endpoints.yaml', endpoints]), config);
    expect(out.exitCode).toBe(0);
    expect(out.files['endpoints.yaml']).toBe(
      point('ConfigMap', 'endpoints', 'required', 'data:\n  db: db.us-east1 # replaced by injection\n  region: us-east1\n').replace(
        '    kpt.dev/config-injection: required\n',
        '    kpt.dev/config-injection: required\n    kpt.dev/injected-resource-name: us-east1\n',
      ),
    );
    expect(out.files['endpoints.yaml']).not.toContain('kpt.dev/injected-resource:');
    expect(condition(out.files, 'config.injection.ConfigMap.endpoints')).toEqual({
      type: 'config.injection.ConfigMap.endpoints',
      status: 'True',
      message: 'injected resource "us-east1" from cluster',
      reason: 'ConfigInjected',
    });
  });

  it('any other kind gets the spec', () => {
    const config = variantList(variant(injectors({ name: 'payments', kind: 'Team' })), [teamCandidate('payments', { chargeCode: 'pay-1', members: ['ann'] })]);
    const out = run(pkg(['team.yaml', team]), config);
    expect(parse(out.files['team.yaml']!).spec).toEqual({ chargeCode: 'pay-1', members: ['ann'] });
    expect(messages(out)).toContain('optional injection point Team team (team.yaml): injected the spec of Team payments');
  });

  it('tries injectors in order; an injector applies when the GVK fields it sets match the point', () => {
    const candidates = [cm('us-east1', { db: 'cm' }), teamCandidate('us-east1', { chargeCode: 'wrong' }), teamCandidate('payments', { chargeCode: 'team' })];
    const config = variantList(
      variant(injectors({ name: 'us-east1', kind: 'ConfigMap' }, { name: 'nope' }, { name: 'payments', group: 'hr.example.com', version: 'v1alpha1' }, { name: 'us-east1' })),
      candidates,
    );
    const out = run(pkg(['endpoints.yaml', endpoints], ['team.yaml', team]), config);
    expect(parse(out.files['endpoints.yaml']!).data).toEqual({ db: 'cm' });
    expect(parse(out.files['team.yaml']!).spec).toEqual({ chargeCode: 'team' });
  });

  it('an empty group in an injector matches the core group only', () => {
    const config = variantList(variant(injectors({ name: 'x', group: '' })), [cm('x', { db: 'core' }), teamCandidate('x', { chargeCode: 'hr' })]);
    const out = run(pkg(['endpoints.yaml', endpoints], ['team.yaml', team]), config);
    expect(parse(out.files['endpoints.yaml']!).data).toEqual({ db: 'core' });
    expect(condition(out.files, 'config.injection.Team.team')).toMatchObject({ status: 'False', message: 'no resource matched any injection selector for this injection point' });
  });

  it("a candidate must have the point's apiVersion, not only its kind", () => {
    const config = variantList(variant(injectors({ name: 'payments' })), [teamCandidate('payments', { chargeCode: 'x' }, undefined, 'hr.example.com/v1beta1')]);
    const out = run(pkg(['team.yaml', team]), config);
    expect(out.files['team.yaml']).toBe(team);
    expect(condition(out.files, 'config.injection.Team.team')!.message).toBe('no in-cluster resources of type hr.example.com/v1alpha1.Team without a namespace');
  });

  it("never injects a candidate from another namespace than the PackageVariant's, and says so", () => {
    const config = variantList(variant(injectors({ name: 'us-east1' }), { name: 'my-pv', namespace: 'team-a' }), [
      cm('us-east1', { db: 'secret-of-team-b' }, 'team-b'),
      cm('us-east1', { db: 'no-namespace' }),
      cm('other', { db: 'x' }, 'team-a'),
    ]);
    const out = run(pkg(['endpoints.yaml', endpoints]), config);
    expect(out.exitCode).toBe(0);
    expect(out.files['endpoints.yaml']).toBe(endpoints);
    expect(parse(out.output).items.some((item: any) => item.data?.db === 'secret-of-team-b')).toBe(false);
    expect(condition(out.files, 'config.injection.ConfigMap.endpoints')).toEqual({
      type: 'config.injection.ConfigMap.endpoints',
      status: 'False',
      message:
        'no resource matched any injection selector for this injection point; ' +
        'ignored ConfigMap us-east1 in namespace "team-b": candidates must be in namespace "team-a", like the PackageVariant; ' +
        'ignored ConfigMap us-east1 without a namespace: candidates must be in namespace "team-a", like the PackageVariant',
      reason: 'NoResourceSelected',
    });
    expect(out.results).toContainEqual(expect.objectContaining({ severity: 'warning', message: expect.stringMatching(/^required injection point ConfigMap endpoints \(endpoints\.yaml\) not injected: /) }));
  });

  it('injects a candidate from its own namespace when another namespace has one of the same name', () => {
    const config = variantList(variant(injectors({ name: 'us-east1' }), { name: 'my-pv', namespace: 'team-a' }), [
      cm('us-east1', { db: 'team-b' }, 'team-b'),
      cm('us-east1', { db: 'team-a' }, 'team-a'),
    ]);
    expect(parse(run(pkg(['endpoints.yaml', endpoints]), config).files['endpoints.yaml']!).data).toEqual({ db: 'team-a' });
  });

  it('explains why nothing was injected: no injectors, no candidates of the type, no data in the chosen candidate', () => {
    const noInjectors = run(pkg(['endpoints.yaml', endpoints]), variantList(variant(), [cm('x', {})]));
    expect(condition(noInjectors.files, 'config.injection.ConfigMap.endpoints')!.message).toBe('no injectors defined');
    const noCandidates = run(pkg(['endpoints.yaml', endpoints]), variant(injectors({ name: 'x' }), { name: 'my-pv', namespace: 'ns' }));
    expect(condition(noCandidates.files, 'config.injection.ConfigMap.endpoints')!.message).toBe('no in-cluster resources of type v1.ConfigMap in namespace "ns"');
    const noData = run(pkg(['endpoints.yaml', endpoints]), variantList(variant(injectors({ name: 'x' })), [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }]));
    expect(condition(noData.files, 'config.injection.ConfigMap.endpoints')!.message).toBe('field "data" not found in resource "x"');
    expect(noData.files['endpoints.yaml']).toBe(endpoints);
  });

  it('one name-only injector feeds every point it matches, of any kind', () => {
    const config = variantList(variant(injectors({ name: 'shared' })), [cm('shared', { db: 'a' }), teamCandidate('shared', { chargeCode: 'b' })]);
    const out = run(pkg(['endpoints.yaml', endpoints], ['team.yaml', team]), config);
    expect(conditions(out.files).map((c) => c.status)).toEqual(['True', 'True']);
  });

  it('undoes nothing when a later run finds no candidate: the content stays, the condition turns False', () => {
    const first = run(pkg(['endpoints.yaml', endpoints]), variantList(variant(injectors({ name: 'us-east1' })), [cm('us-east1', { db: 'x' })]));
    const second = runAgain(first, variantList(variant(injectors({ name: 'us-east1' })), []));
    expect(second.files['endpoints.yaml']).toBe(first.files['endpoints.yaml']);
    expect(condition(second.files, 'config.injection.ConfigMap.endpoints')).toMatchObject({ status: 'False', reason: 'NoResourceSelected' });
  });

  it('gives the same package when run again', () => {
    const config = variantList(variant(injectors({ name: 'us-east1' }, { name: 'payments' })), [cm('us-east1', { db: 'x' }), teamCandidate('payments', { chargeCode: 'p' })]);
    const first = run(pkg(['endpoints.yaml', endpoints], ['team.yaml', team]), config);
    expect(runAgain(first, config).files).toEqual(first.files);
  });
});

describe('config injection: a CRD among the items checks the content first', () => {
  const crd = crdYaml('hr.example.com', 'Team', 'v1alpha1', {
    id: 'team-spec',
    type: 'object',
    required: ['chargeCode'],
    'x-kubernetes-preserve-unknown-fields': true,
    properties: {
      chargeCode: { type: 'string', pattern: '^[a-z]+-[0-9]+$', example: 'ab-1', externalDocs: { url: 'https://example.com' } },
      size: { type: 'integer', minimum: 1, exclusiveMinimum: true, format: 'int32' },
      lead: { type: 'string', nullable: true },
      port: { 'x-kubernetes-int-or-string': true },
      members: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
    },
  });

  it('injects a candidate that matches the schema (OpenAPI and x-kubernetes keywords understood)', () => {
    const config = variantList(variant(injectors({ name: 'payments' })), [teamCandidate('payments', { chargeCode: 'pay-1', size: 2, lead: null, port: 'http', members: ['ann'], extra: true })]);
    const out = run(pkg(['crd.yaml', crd], ['team.yaml', team]), config);
    expect(out.exitCode).toBe(0);
    expect(condition(out.files, 'config.injection.Team.team')).toMatchObject({ status: 'True' });
  });

  it('does not inject a candidate that fails it; the condition and a result say why', () => {
    const config = variantList(variant(injectors({ name: 'payments' }, { name: 'fallback' })), [
      teamCandidate('payments', { chargeCode: 'PAY', size: 1, members: 'ann' }),
      teamCandidate('fallback', { chargeCode: 'fb-1' }),
    ]);
    const out = run(pkg(['crd.yaml', crd], ['team.yaml', team]), config);
    expect(out.exitCode).toBe(0);
    expect(out.files['team.yaml']).toBe(team);
    const expected =
      'resource "payments" does not match the schema of CustomResourceDefinition teams.hr.example.com (version v1alpha1): ' +
      'spec.chargeCode: must match pattern "^[a-z]+-[0-9]+$"; spec.size: must be > 1; spec.members: must be array';
    expect(condition(out.files, 'config.injection.Team.team')).toMatchObject({ status: 'False', reason: 'NoResourceSelected', message: expected });
    expect(messages(out)).toContain(`optional injection point Team team (team.yaml) not injected: ${expected}`);
  });

  it('a missing required field', () => {
    const out = run(pkg(['crd.yaml', crd], ['team.yaml', team]), variantList(variant(injectors({ name: 'p' })), [teamCandidate('p', { size: 3 })]));
    expect(condition(out.files, 'config.injection.Team.team')!.message).toMatch(/: spec: must have required property 'chargeCode'$/);
  });

  it('a CRD of another group, or without the point\'s version, does not apply', () => {
    const config = variantList(variant(injectors({ name: 'p' })), [teamCandidate('p', { size: 'x' })]);
    for (const other of [crd.replace('group: hr.example.com', 'group: other.example.com'), crd.replace('- name: v1alpha1', '- name: v1beta1')]) {
      const out = run(pkg(['crd.yaml', other], ['team.yaml', team]), config);
      expect(condition(out.files, 'config.injection.Team.team')).toMatchObject({ status: 'True' });
    }
  });
});

describe('config injection: bad input', () => {
  it('an annotation value other than required or optional is an error naming the resource; nothing changes', () => {
    const bad = point('ConfigMap', 'endpoints', 'Required', 'data:\n  db: x\n');
    const empty = point('ConfigMap', 'other', '""', 'data:\n  db: x\n');
    const out = run(pkg(['bad.yaml', bad], ['empty.yaml', empty]), variantList(variant(injectors({ name: 'x' })), [cm('x', { db: 'y' })]));
    expect(out.exitCode).toBe(1);
    expect(errors(out)).toEqual([
      {
        message: 'ConfigMap endpoints (bad.yaml) has invalid "kpt.dev/config-injection" annotation value "Required": use required or optional',
        severity: 'error',
        resourceRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'endpoints' },
        field: { path: 'metadata.annotations["kpt.dev/config-injection"]' },
        file: { path: 'bad.yaml' },
      },
      expect.objectContaining({ message: 'ConfigMap other (empty.yaml) has invalid "kpt.dev/config-injection" annotation value "": use required or optional' }),
    ]);
    expect(out.files).toEqual(pkg(['bad.yaml', bad], ['empty.yaml', empty]));
  });

  it('two points with one condition type (same kind and name) are an error', () => {
    const a = point('ConfigMap', 'endpoints', 'required', 'data: {}\n', 'v1', 'ns-a');
    const b = point('ConfigMap', 'endpoints', 'optional', 'data: {}\n', 'v1', 'ns-b');
    const out = run(pkg(['a.yaml', a], ['b.yaml', b]), variant());
    expect(out.exitCode).toBe(1);
    expect(messages(out)).toEqual([
      'ambiguous injection condition type "config.injection.ConfigMap.endpoints": ConfigMap endpoints (a.yaml, namespace ns-a) and ConfigMap endpoints (b.yaml, namespace ns-b) are both injection points, and the type holds only kind and name; rename one in the upstream package',
    ]);
  });

  it('a List with two PackageVariants, or none, is an error', () => {
    const two = `apiVersion: v1\nkind: List\nitems:\n${[variant(), variant({}, { name: 'pv-2' })].map((v) => `- ${v.trimEnd().replace(/\n/g, '\n  ')}`).join('\n')}\n`;
    const twoOut = runFunction(resourceList([KPTFILE], two));
    expect(twoOut.exitCode).toBe(1);
    expect(twoOut.results).toEqual([expect.objectContaining({ severity: 'error', message: expect.stringContaining('must hold exactly one PackageVariant or PackageVariantSet, found 2: items[0] PackageVariant my-pv, items[1] PackageVariant pv-2') })]);
    const noneOut = runFunction(resourceList([KPTFILE], variantList(variant(), []).replace(/items:\n[\s\S]*/, 'items:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: x}}\n')));
    expect(noneOut.exitCode).toBe(1);
    expect(noneOut.results[0]!.message).toMatch(/found 0$/);
  });

  describe("kpt's own objects are never injection points: an error names the resource, nothing changes", () => {
    const annotate = (text: string, value = 'required') => text.replace('  annotations:\n', `  annotations:\n    kpt.dev/config-injection: ${value}\n`);
    const own = (message: string, resourceRef: Record<string, string>, path: string) => ({
      message,
      severity: 'error',
      resourceRef,
      field: { path: 'metadata.annotations["kpt.dev/config-injection"]' },
      file: { path },
    });

    it('the Kptfile, which an injector selecting it would give a `spec` that kpt refuses', () => {
      const files = { Kptfile: annotate(KPTFILE) };
      const config = variantList(variant(injectors({ name: 'evil' })), [{ apiVersion: 'kpt.dev/v1', kind: 'Kptfile', metadata: { name: 'evil' }, spec: { replicas: 3 } }]);
      const out = run(files, config);
      expect(out.exitCode).toBe(1);
      expect(errors(out)).toEqual([
        own(
          'Kptfile prr (Kptfile) is annotated "kpt.dev/config-injection", but kpt\'s own objects are never injection points: injecting its spec would rewrite the package\'s own definition, and kpt refuses a Kptfile with fields it does not know; remove the annotation',
          { apiVersion: 'kpt.dev/v1', kind: 'Kptfile', name: 'prr' },
          'Kptfile',
        ),
      ]);
      expect(out.files).toEqual(files);
    });

    it('the package context, whose reserved name and package-path an injection would overwrite', () => {
      const files = pkg(['package-context.yaml', annotate(CONTEXT, 'optional')]);
      const config = variantList(variant(injectors({ name: 'evil' })), [cm('evil', { name: 'other-package', 'package-path': '../elsewhere' })]);
      const out = run(files, config);
      expect(out.exitCode).toBe(1);
      expect(messages(out)).toEqual([
        'ConfigMap kptfile.kpt.dev (package-context.yaml) is annotated "kpt.dev/config-injection", but kpt\'s own objects are never injection points: kpt and Porch generate the package context (its name and package-path are reserved); set its keys with spec.packageContext; remove the annotation',
      ]);
      expect(out.files).toEqual(files);
    });

    it("kpt live's inventory, and a Kptfile of a subpackage", () => {
      const inventory = 'apiVersion: kpt.dev/v1alpha1\nkind: ResourceGroup\nmetadata:\n  name: inventory-1\n  namespace: shop\n  annotations:\n    kpt.dev/config-injection: required\n';
      const files = pkg(['resourcegroup.yaml', inventory], ['sub/Kptfile', annotate(KPTFILE.replace('name: prr', 'name: sub'))]);
      const out = run(files, variantList(variant(injectors({ name: 'x' })), []));
      expect(out.exitCode).toBe(1);
      expect(messages(out)).toEqual([
        expect.stringMatching(/^ResourceGroup inventory-1 \(resourcegroup\.yaml, namespace shop\) is annotated "kpt\.dev\/config-injection", but kpt's own objects are never injection points: it is the inventory `kpt live` keeps/),
        expect.stringMatching(/^Kptfile sub \(sub\/Kptfile\) is annotated "kpt\.dev\/config-injection", but kpt's own objects are never injection points/),
      ]);
      expect(out.files).toEqual(files);
    });

    it('a local-config function config stays an injection point, as the design intends', () => {
      const setLabels = point('SetLabels', 'labels', 'required', 'spec:\n  labels: {}\n', 'fn.kpt.dev/v1alpha1').replace('  annotations:\n', '  annotations:\n    config.kubernetes.io/local-config: "true"\n');
      const config = variantList(variant(injectors({ name: 'eu' })), [{ apiVersion: 'fn.kpt.dev/v1alpha1', kind: 'SetLabels', metadata: { name: 'eu' }, spec: { labels: { region: 'eu' } } }]);
      const out = run(pkg(['labels.yaml', setLabels]), config);
      expect(out.exitCode).toBe(0);
      expect(parse(out.files['labels.yaml']!).spec).toEqual({ labels: { region: 'eu' } });
    });
  });

  it('an injection point but no root Kptfile to hold its condition', () => {
    const out = run({ 'endpoints.yaml': endpoints }, variant());
    expect(out.exitCode).toBe(1);
    expect(messages(out)).toEqual(['the package has injection points (ConfigMap endpoints (endpoints.yaml)) but no Kptfile at its root to hold their conditions']);
  });
});
