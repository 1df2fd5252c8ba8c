/**
 * Porch's own test vectors (../shared/conformance/porch) for the mutations a PackageVariant makes,
 * run through the function. Files are compared after rendering both sides with the same renderer,
 * so content, key order, comments and quoting count, indentation does not. Where the issue decides
 * differently from Porch the vector is adapted here and the difference asserted in the rule tests
 * (README deviations table).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { ConfigObject } from '../../src/config/function-config';
import { parseResourceList } from '../../src/krm/resource-list';
import { planConditions } from '../../src/variant/conditions';
import { planInjection, type InjectionPoint } from '../../src/variant/injection';
import { generatedName, isAddedBy } from '../../src/variant/pipeline';
import { resourceList, SHARED } from '../helpers';
import { CONTEXT, errors, itemsOf, KPTFILE, messages, normaliseFiles, run, runAgain, variantList, type Files } from './variant-helpers';

interface Vector {
  name: string;
  inputs: any;
  expected: any;
}

const DIR = join(SHARED, 'conformance', 'porch');

function vectors(prefix: string): [string, Vector][] {
  return readdirSync(DIR)
    .filter((file) => file.startsWith(prefix) && file.endsWith('.yaml'))
    .sort()
    .map((file) => [file.replace(/\.yaml$/, ''), parse(readFileSync(join(DIR, file), 'utf8')) as Vector]);
}

/** The vectors' PackageVariant with a real apiVersion (they write `config.porch.kpt.dev`) and without nulls our schema refuses. */
function porchVariant(pv: any): string {
  const spec = Object.fromEntries(Object.entries(pv.spec ?? {}).filter(([, value]) => value !== null));
  return stringify({ ...pv, apiVersion: 'config.porch.kpt.dev/v1alpha1', spec });
}

function variantObject(pv: any): ConfigObject {
  return parse(porchVariant(pv)) as ConfigObject;
}

function packageItems(files: Files) {
  return parseResourceList(resourceList(itemsOf(files))).items;
}

/** Porch writes `kpt.dev/injected-resource`; the issue (and the design) say `kpt.dev/injected-resource-name`. */
const withOurAnnotation = (files: Files): Files =>
  Object.fromEntries(Object.entries(files).map(([path, text]) => [path, text.replace(/kpt\.dev\/injected-resource:/g, 'kpt.dev/injected-resource-name:')]));

describe.each([
  ['package context', 'pv-pkgctx-'],
  ['pipeline editing', 'pv-pipeline-'],
])('Porch vectors: %s', (_group, prefix) => {
  it.each(vectors(prefix))('%s', (_name, vector) => {
    expect(vector.expected.error).toBeNull();
    const config = porchVariant(vector.inputs.packageVariant);
    const first = run(vector.inputs.resources, config);
    expect(errors(first)).toEqual([]);
    expect(first.exitCode).toBe(0);
    expect(first.files).toEqual(normaliseFiles(vector.expected.resources));
    // Porch checks that a second run gives the same text; so do we.
    expect(runAgain(first, config).files).toEqual(first.files);
  });
});

describe('Porch vectors: pipeline function names', () => {
  it.each(vectors('pv-fn-name-'))('%s', (_name, { inputs, expected }) => {
    expect(generatedName(inputs.pvName, { name: inputs.funcName }, inputs.position)).toBe(expected.name);
  });

  it.each(vectors('pv-is-pv-func-'))('%s', (_name, { inputs, expected }) => {
    const name = typeof inputs.function.name === 'string' ? inputs.function.name : undefined;
    expect(isAddedBy(inputs.pvName, name)).toBe(expected.isPackageVariantFunc);
  });
});

describe('Porch vectors: finding injection points', () => {
  // kpt parses the package before a function runs, so a file that is not YAML never reaches us.
  const applicable = vectors('inj-find-').filter(([name]) => name !== 'inj-find-parse-error');

  it.each(applicable)('%s', (_name, { inputs, expected }) => {
    const step = planInjection(variantObject({ metadata: { name: 'my-pv' }, spec: {} }), packageItems(inputs.resources), []);
    const expectedErrors = expected.injectionPoints.flatMap((p: any) => p.errors ?? []);
    if (expectedErrors.length > 0) {
      // Porch: `file.yaml: ConfigMap/foo has invalid ... annotation value of "invalid"`.
      expect(step.errors.map((e) => e.message)).toEqual([expect.stringMatching(/^ConfigMap foo \(file\.yaml\) has invalid "kpt\.dev\/config-injection" annotation value "invalid"/)]);
      return;
    }
    expect(step.errors).toEqual([]);
    const points = step.points
      .map((p) => ({ file: p.resource.path, required: p.required, conditionType: p.conditionType, errors: null }))
      .sort((a, b) => (a.conditionType < b.conditionType ? -1 : 1));
    expect(points).toEqual(expected.injectionPoints);
  });
});

describe('Porch vectors: validating injection points', () => {
  it.each(vectors('inj-validate-'))('%s', (_name, { inputs, expected }) => {
    const files: Files = {};
    inputs.injectionPoints.forEach((p: any, i: number) => {
      const [, , kind, name] = /^(config\.injection)\.([^.]+)\.(.+)$/.exec(p.conditionType)!.slice(0, 4);
      const value = p.errors ? 'invalid' : p.required ? 'required' : 'optional';
      files[`${i}-${p.file}`] = `apiVersion: example.com/v1\nkind: ${kind}\nmetadata:\n  name: ${name}\n  annotations:\n    kpt.dev/config-injection: ${value}\n`;
    });
    const step = planInjection(variantObject({ metadata: { name: 'my-pv' }, spec: {} }), packageItems(files), []);
    if (expected.error === null) {
      expect(step.errors).toEqual([]);
      return;
    }
    const invalid = inputs.injectionPoints.filter((p: any) => p.errors).length;
    const duplicates = inputs.injectionPoints.length - new Set(inputs.injectionPoints.map((p: any) => p.conditionType)).size;
    expect(step.errors).toHaveLength(invalid + duplicates);
    for (const e of step.errors.slice(invalid)) expect(e.message).toMatch(/^ambiguous injection condition type "config\.injection\.ConfigMap\.foo": ConfigMap foo \(0-file\.yaml\) and ConfigMap foo \([12]-file[23]\.yaml\)/);
  });
});

describe('Porch vectors: conditions and readiness gates', () => {
  it.each(vectors('inj-conditions-'))('%s', (_name, { inputs, expected }) => {
    const kptfile = { apiVersion: 'kpt.dev/v1', kind: 'Kptfile', metadata: { name: 'prr' }, ...inputs.kptfile };
    const [item] = packageItems({ Kptfile: stringify(kptfile) });
    const points: InjectionPoint[] = inputs.injectionPoints.map((p: any) => ({
      resource: item!,
      required: p.required,
      conditionType: p.conditionType,
      outcome: p.injected
        ? { injected: true, candidate: p.injectedName, field: 'data', value: {} }
        : { injected: false, reason: 'no resource matched any injection selector for this injection point' },
    }));
    const step = planConditions(item, points);
    expect(step.errors).toEqual([]);
    step.apply();
    const { info, status } = item!.toData() as Record<string, unknown>;
    expect({ ...(info ? { info } : {}), ...(status ? { status } : {}) }).toEqual(expected.kptfile);
  });
});

describe('Porch vectors: config injection end to end', () => {
  it.each(vectors('inj-ensure-'))('%s', (_name, { inputs, expected }) => {
    const config = variantList(porchVariant(inputs.packageVariant), inputs.clusterObjects);
    const first = run(inputs.resources, config);
    expect(errors(first)).toEqual([]);
    expect(first.files).toEqual(normaliseFiles(withOurAnnotation(expected.resources)));
    expect(runAgain(first, config).files).toEqual(first.files);
  });
});

describe('Porch vectors: PackageVariant validation', () => {
  it.each(vectors('pv-validate-'))('%s', (_name, { inputs, expected }) => {
    const outcome = run({ Kptfile: KPTFILE, 'package-context.yaml': CONTEXT }, porchVariant(inputs.packageVariant));
    expect(outcome.exitCode).toBe(expected.valid ? 0 : 1);
    if (expected.valid) return;
    const text = messages(outcome).join('; ');
    for (const porchMessage of String(expected.error).split('; ')) {
      const reserved = /must not contain the key "([^"]+)"$/.exec(porchMessage);
      const policy = /^spec\.(adoptionPolicy|deletionPolicy)/.exec(porchMessage);
      // Ours: `spec.packageContext.data must not contain the key "name": kpt and Porch set it to ...`.
      if (reserved) expect(text).toContain(`must not contain the key "${reserved[1]}"`);
      // The schema checks the policies, with its own wording (must be one of ...).
      else if (policy) expect(text).toContain(`spec.${policy[1]}: must be one of`);
      else expect(text).toContain(`PackageVariant my-pv: ${porchMessage}`);
    }
  });
});
