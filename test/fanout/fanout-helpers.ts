/** Fan-out runs through the whole function, for the tests in this directory. */
import { parse } from 'yaml';
import { runFunction } from '../helpers';

export const repo = (name: string, labels = '{}', namespace = '') =>
  `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: ${name}\n${namespace ? `  namespace: ${namespace}\n` : ''}  labels: ${labels}`;
export const FLEET = [repo('cluster-01', '{env: prod, region: eu}'), repo('cluster-02', '{env: prod, region: us}')];

/** A PackageVariantSet whose targets (YAML under `targets:`, indented 2) are given. */
export const pvs = (targets: string, upstream = 'repo: catalog\n    package: base\n    revision: 1') => `apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata:
  name: fleet
spec:
  upstream:
    ${upstream}
  targets:
${targets.replace(/^/gm, '  ')}
`;

export const REF = { apiVersion: 'config.porch.kpt.dev/v1alpha2', kind: 'PackageVariantSet', name: 'fleet' };

export function items(output: string): unknown[] {
  return (parse(output) as { items: unknown[] }).items;
}

/** Runs a failing case: exit 1, the items as they came in, the error results. */
export function failing(input: string) {
  const outcome = runFunction(input);
  expect(outcome.exitCode).toBe(1);
  expect(items(outcome.output)).toEqual(items(input));
  return outcome.results;
}

export function succeeding(input: string) {
  const outcome = runFunction(input);
  expect(outcome.results.filter((r) => r.severity === 'error')).toEqual([]);
  expect(outcome.exitCode).toBe(0);
  return { ...outcome, variants: (items(outcome.output) as { kind: string; metadata: { name: string } }[]).filter((i) => i.kind === 'PackageVariant') };
}

