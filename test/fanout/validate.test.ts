/**
 * PackageVariantSet validation (src/fanout/validate.ts) against Porch's TestValidatePackageVariantSet
 * vectors (pvs-validate-*): the same messages in the same order.
 */
import { porchValidationErrors } from '../../src/fanout/validate';
import { readVariantSet } from '../../src/fanout/types';
import type { ConfigObject } from '../../src/config/function-config';
import { resourceList, runFunction } from '../helpers';
import { stringify } from 'yaml';
import { vectors } from './porch-vectors';

type Inputs = { packageVariantSet: ConfigObject };
const cases = vectors<Inputs, { errors: string[] }>('pvs-validate-');

/** Messages the ajv schema reports (in its own words) before Porch's checks run. */
const SCHEMA_CHECKED = /can only be "adoptNone" or "adoptExisting"|can only be "orphan" or "delete"/;

function porchMessages(set: ConfigObject): string[] {
  return porchValidationErrors(readVariantSet(set)).map((r) => r.message.replace(/^PackageVariantSet [^:]+: /, ''));
}

describe("Porch's validation vectors", () => {
  it('has them all', () => {
    expect(cases).toHaveLength(11);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, { inputs, expected }) => {
    expect(porchMessages(inputs.packageVariantSet)).toEqual(expected.errors.filter((e) => !SCHEMA_CHECKED.test(e)));
  });

  // Deviation, pinned: policies are enums in the schema, which reports them with its own message.
  it('invalid policies are reported by the schema', () => {
    const vector = cases.find((c) => c.name.endsWith('invalid-adoption-and-deletion-policies'))!;
    const set = { ...vector.inputs.packageVariantSet, apiVersion: 'config.porch.kpt.dev/v1alpha2' };
    const { exitCode, results } = runFunction(resourceList([], stringify(set)));
    expect(exitCode).toBe(1);
    expect(results.map((r) => (r.field as { path: string }).path)).toEqual(['spec.targets[0].template.adoptionPolicy', 'spec.targets[0].template.deletionPolicy']);
    expect(String(results[0]!.message)).toContain('must be one of "adoptExisting", "adoptNone"');
  });

  // Deviation, pinned: Porch drops unknown fields when decoding; the schema rejects them.
  it('spec-level policies (not v1alpha2 fields) are unknown fields', () => {
    const vector = cases.find((c) => c.name.endsWith('/valid-adoption-and-deletion-policies'))!;
    const set = { ...vector.inputs.packageVariantSet, apiVersion: 'config.porch.kpt.dev/v1alpha2' };
    const { results } = runFunction(resourceList([], stringify(set)));
    expect(results.map((r) => String(r.message))).toEqual([
      expect.stringContaining('spec.adoptionPolicy: unknown field "adoptionPolicy"'),
      expect.stringContaining('spec.deletionPolicy: unknown field "deletionPolicy"'),
    ]);
  });
});

describe('results', () => {
  it('name the set, the field and the resource', () => {
    const set = readVariantSet({
      apiVersion: 'config.porch.kpt.dev/v1alpha2',
      kind: 'PackageVariantSet',
      metadata: { name: 'fleet', namespace: 'ops' },
      spec: { upstream: { repo: 'r', package: 'p', revision: 1 }, targets: [{ repositories: [{ name: 'a' }], template: { downstream: { repo: 'x', repoExpr: "'y'" } } }] },
    });
    expect(porchValidationErrors(set)).toEqual([
      {
        message: 'PackageVariantSet fleet: spec.targets[0].template may specify only one of `downstream.repo` and `downstream.repoExpr`',
        severity: 'error',
        resourceRef: { apiVersion: 'config.porch.kpt.dev/v1alpha2', kind: 'PackageVariantSet', name: 'fleet', namespace: 'ops' },
        field: { path: 'spec.targets[0].template.downstream.repoExpr' },
      },
    ]);
  });

  it('a workspaceName is enough for the upstream; revision 0 is unset', () => {
    const messages = (upstream: Record<string, unknown>) =>
      porchMessages({ apiVersion: 'x', kind: 'PackageVariantSet', metadata: { name: 's' }, spec: { upstream, targets: [{ repositories: [{ name: 'a' }] }] } });
    expect(messages({ repo: 'r', package: 'p', workspaceName: 'v1' })).toEqual([]);
    expect(messages({ repo: 'r', package: 'p', revision: 0 })).toEqual(['either spec.upstream.revision or spec.upstream.workspaceName must be specified']);
  });

  it('an empty repositories list is an error and still counts as the target type', () => {
    expect(porchMessages({ apiVersion: 'x', kind: 'PackageVariantSet', metadata: { name: 's' }, spec: { upstream: { repo: 'r', package: 'p', revision: 1 }, targets: [{ repositories: [] }] } })).toEqual([
      'spec.targets[0].repositories must not be an empty list if specified',
    ]);
  });

  it('an objectSelector needs apiVersion and kind (Porch spells it "objectselector")', () => {
    expect(
      porchMessages({ apiVersion: 'x', kind: 'PackageVariantSet', metadata: { name: 's' }, spec: { upstream: { repo: 'r', package: 'p', revision: 1 }, targets: [{ objectSelector: {} }] } }),
    ).toEqual(['spec.targets[0].objectselector.apiVersion cannot be empty', 'spec.targets[0].objectselector.kind cannot be empty']);
  });
});
