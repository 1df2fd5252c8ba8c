import Ajv, { type AnySchema, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

import {
  AJV_OPTIONS,
  SCHEMA_IDS,
  functionConfigSchemas,
  listSchema,
  optionsConfigMapSchema,
  packageVariantSchema,
  packageVariantSetSchema,
} from '../../src/config/schemas';

function compile(schema: AnySchema, opts: { useDefaults?: boolean } = {}): ValidateFunction {
  const ajv = new Ajv({ ...AJV_OPTIONS, ...opts });
  addFormats(ajv);
  return ajv.compile(schema);
}

function expectValid(validate: ValidateFunction, data: unknown): void {
  const ok = validate(data);
  expect(validate.errors ?? []).toEqual([]);
  expect(ok).toBe(true);
}

/** The errors, without the `if` errors of one-or-list fields, which src/config/validate.ts does not report either. */
function errorsFor(validate: ValidateFunction, data: unknown): ErrorObject[] {
  expect(validate(data)).toBe(false);
  return (validate.errors ?? []).filter((error) => error.keyword !== 'if');
}

const kptAnnotations = {
  'config.kubernetes.io/local-config': 'true',
  'config.kubernetes.io/index': '0',
  'internal.config.kubernetes.io/index': '0',
  'internal.config.kubernetes.io/path': 'fn-config.yaml',
  'internal.config.kubernetes.io/seqindent': 'compact',
};

const packageVariant = {
  apiVersion: 'config.porch.kpt.dev/v1alpha1',
  kind: 'PackageVariant',
  metadata: {
    name: 'my-pv',
    namespace: 'default',
    labels: { org: 'hr' },
    annotations: kptAnnotations,
    uid: '3f1c2a4e-0000-4000-8000-000000000001',
  },
  spec: {
    upstream: { repo: 'example-repo', package: 'foo', revision: 1, workspaceName: 'v1' },
    downstream: { repo: 'cluster-01', package: 'foo' },
    adoptionPolicy: 'adoptExisting',
    deletionPolicy: 'orphan',
    labels: { 'package-type': 'namespace', org: 'hr' },
    annotations: { 'example.com/owner': 'team-a' },
    packageContext: { data: { region: 'useast1', env: 'prod' }, removeKeys: ['legacy'] },
    pipeline: {
      validators: [{ image: 'gcr.io/kpt-fn/kubeval:v0.3', tag: 'v0.3' }],
      mutators: [
        {
          image: 'gcr.io/kpt-fn/set-namespace:v0.1',
          configMap: { namespace: 'my-ns' },
          name: 'my-func',
          selectors: [{ apiVersion: 'apps/v1', kind: 'Deployment', labels: { app: 'foo' } }],
          exclude: [{ kind: 'Namespace', annotations: { 'config.kubernetes.io/local-config': 'true' } }],
        },
        { image: 'gcr.io/kpt-fn/set-labels:v0.1', configMap: { app: 'foo' } },
        { exec: 'set-annotations', configPath: 'annotations.yaml' },
      ],
    },
    injectors: [
      { group: 'krm-platform.bigco.com', version: 'v1', kind: 'ServiceEndpoints', name: 'useast1-service-endpoints' },
      { name: 'useast1-endpoints' },
    ],
  },
  status: { conditions: [{ type: 'Ready', status: 'True' }], downstreamTargets: [{ name: 'cluster-01.foo.packagevariant-1' }] },
};

const packageVariantSet = {
  apiVersion: 'config.porch.kpt.dev/v1alpha2',
  kind: 'PackageVariantSet',
  metadata: { name: 'example', namespace: 'default', annotations: kptAnnotations },
  spec: {
    upstream: { repo: 'platform-catalog', package: 'base-ns', revision: 1 },
    targets: [
      {
        repositories: [
          { name: 'cluster-01' },
          { name: 'cluster-02' },
          { name: 'cluster-03', packageNames: ['foo-a', 'foo-b', 'foo-c'] },
          { name: 'cluster-04', packageNames: ['foo-a', 'foo-b'] },
        ],
        template: { labels: { 'package-type': 'namespace', org: 'hr' } },
      },
      {
        repositorySelector: {
          matchLabels: { env: 'prod', org: 'hr' },
          matchExpressions: [{ key: 'region', operator: 'In', values: ['useast1', 'useast2'] }],
        },
        template: {
          downstream: { repoExpr: "repository.name + '-deploy'", package: 'foo' },
          adoptionPolicy: 'adoptNone',
          deletionPolicy: 'delete',
          labelExprs: [{ key: 'org', valueExpr: "repository.labels['org']" }],
          annotations: { 'example.com/generated': 'true' },
          annotationExprs: [{ keyExpr: "'example.com/' + target.name", value: 'yes' }],
          packageContext: {
            data: { env: 'prod' },
            dataExprs: [{ key: 'region', valueExpr: "repository.labels['region']" }],
            removeKeys: ['legacy'],
            removeKeyExprs: ["'tmp-' + repoDefault"],
          },
          pipeline: {
            mutators: [
              {
                image: 'gcr.io/kpt-fn/set-namespace:v0.1',
                name: 'set-ns',
                configMap: { namespace: 'default' },
                configMapExprs: [{ key: 'namespace', valueExpr: 'packageDefault' }],
                selectors: [{ kind: 'Deployment' }],
              },
            ],
            validators: [{ image: 'gcr.io/kpt-fn/kubeval:v0.3' }],
          },
          injectors: [
            { nameExpr: "repository.labels['region'] + '-endpoints'" },
            { group: 'krm-platform.bigco.com', version: 'v1', kind: 'Team', name: 'hr-team' },
          ],
        },
      },
      {
        objectSelector: {
          apiVersion: 'krm-platform.bigco.com/v1',
          kind: 'Team',
          name: 'hr-dev',
          matchLabels: { org: 'hr', role: 'dev' },
          matchExpressions: [{ key: 'retired', operator: 'DoesNotExist' }],
        },
        template: { downstream: { repo: 'cluster-01', packageExpr: "target.name + '-ns'" } },
      },
    ],
  },
};

const list = {
  apiVersion: 'v1',
  kind: 'List',
  metadata: {},
  items: [
    packageVariant,
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'useast1-endpoints', namespace: 'default' },
      data: { endpoint: 'https://useast1.example.com' },
    },
  ],
};

const optionsConfigMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'function-input', annotations: kptAnnotations },
  data: { strategy: 'resource-merge', conflicts: 'error', originDir: 'upstream-v1', upstreamDir: 'upstream-v2' },
};

describe('config schemas', () => {
  it('all compile together in one strict Ajv instance under distinct ids', () => {
    const ajv = new Ajv(AJV_OPTIONS);
    addFormats(ajv);
    for (const schema of functionConfigSchemas) ajv.addSchema(schema);
    expect(new Set(Object.values(SCHEMA_IDS)).size).toBe(functionConfigSchemas.length);
    for (const id of Object.values(SCHEMA_IDS)) {
      expect(typeof ajv.getSchema(id)).toBe('function');
    }
    expect(SCHEMA_IDS.packageVariant).toBe('package-variant.schema.json');
  });
});

describe('PackageVariant schema', () => {
  const validate = compile(packageVariantSchema);

  it('accepts a full PackageVariant with kpt annotations and status', () => {
    expectValid(validate, packageVariant);
  });

  it('accepts a PackageVariant without spec, leaving required spec fields to code', () => {
    expectValid(validate, { apiVersion: packageVariant.apiVersion, kind: 'PackageVariant', metadata: { name: 'pv' } });
  });

  it('accepts an injector with an empty name so Porch can report it', () => {
    const pv = structuredClone(packageVariant);
    pv.spec.injectors = [{ name: '' }];
    expectValid(validate, pv);
  });

  it('rejects an unknown field in spec', () => {
    const pv = { ...packageVariant, spec: { ...packageVariant.spec, upstreamm: {} } };
    expect(errorsFor(validate, pv)).toContainEqual(
      expect.objectContaining({
        instancePath: '/spec',
        keyword: 'additionalProperties',
        params: { additionalProperty: 'upstreamm' },
      }),
    );
  });

  it('rejects a packageContext.data value that is not a string', () => {
    const pv = structuredClone(packageVariant) as { spec: { packageContext: { data: Record<string, unknown> } } };
    pv.spec.packageContext.data.replicas = 3;
    expect(errorsFor(validate, pv)).toContainEqual(
      expect.objectContaining({ instancePath: '/spec/packageContext/data/replicas', keyword: 'type', params: { type: 'string' } }),
    );
  });

  it('rejects an injector without name', () => {
    const pv = structuredClone(packageVariant) as { spec: { injectors: object[] } };
    pv.spec.injectors = [{ name: 'ok' }, { kind: 'ConfigMap' }];
    const errors = errorsFor(validate, pv);
    expect(errors).toContainEqual(
      expect.objectContaining({ instancePath: '/spec/injectors/1', keyword: 'required', params: { missingProperty: 'name' } }),
    );
    expect(errors).toHaveLength(1);
  });

  it('rejects an unknown adoptionPolicy', () => {
    const pv = { ...packageVariant, spec: { ...packageVariant.spec, adoptionPolicy: 'adoptAll' } };
    expect(errorsFor(validate, pv)).toContainEqual(
      expect.objectContaining({
        instancePath: '/spec/adoptionPolicy',
        keyword: 'enum',
        params: { allowedValues: ['adoptExisting', 'adoptNone'] },
      }),
    );
  });

  it('rejects an unknown deletionPolicy', () => {
    const pv = { ...packageVariant, spec: { ...packageVariant.spec, deletionPolicy: 'keep' } };
    expect(errorsFor(validate, pv)).toContainEqual(
      expect.objectContaining({ instancePath: '/spec/deletionPolicy', keyword: 'enum' }),
    );
  });

  it('accepts a revision name, as the design writes it, and a revision number, as Porch does', () => {
    for (const revision of ['v1', 'main', 'v1.2.0', 0, 3]) {
      const pv = structuredClone(packageVariant) as { spec: { upstream: Record<string, unknown> } };
      pv.spec.upstream.revision = revision;
      expectValid(validate, pv);
    }
  });

  it.each([
    ['a fraction', 1.5, 'type'],
    ['a boolean', true, 'type'],
    ['a list', ['v1'], 'type'],
    ['null', null, 'type'],
    ['an empty string', '', 'minLength'],
    ['a negative integer', -1, 'minimum'],
  ])('rejects %s as the upstream revision', (_what, revision, keyword) => {
    const pv = structuredClone(packageVariant) as { spec: { upstream: Record<string, unknown> } };
    pv.spec.upstream.revision = revision;
    expect(errorsFor(validate, pv)).toEqual([expect.objectContaining({ instancePath: '/spec/upstream/revision', keyword })]);
  });

  it('accepts one injector written alone, as the design writes it, and checks its fields', () => {
    const pv = structuredClone(packageVariant) as { spec: Record<string, unknown> };
    pv.spec.injectors = { name: 'useast1-endpoints' };
    expectValid(validate, pv);
    pv.spec.injectors = { nmae: 'useast1-endpoints' };
    const errors = errorsFor(validate, pv);
    expect(errors).toEqual([
      expect.objectContaining({ instancePath: '/spec/injectors', keyword: 'required', params: { missingProperty: 'name' } }),
      expect.objectContaining({ instancePath: '/spec/injectors', keyword: 'additionalProperties', params: { additionalProperty: 'nmae' } }),
    ]);
  });

  it('rejects template-only fields and unknown selector fields in the pipeline', () => {
    const pv = structuredClone(packageVariant) as { spec: { pipeline: { mutators: Array<Record<string, unknown>> } } };
    pv.spec.pipeline.mutators[0]!.configMapExprs = [];
    pv.spec.pipeline.mutators[0]!.selectors = [{ kind: 'Deployment', labelSelector: {} }];
    const errors = errorsFor(validate, pv);
    expect(errors).toContainEqual(
      expect.objectContaining({
        instancePath: '/spec/pipeline/mutators/0',
        keyword: 'additionalProperties',
        params: { additionalProperty: 'configMapExprs' },
      }),
    );
    expect(errors).toContainEqual(
      expect.objectContaining({
        instancePath: '/spec/pipeline/mutators/0/selectors/0',
        keyword: 'additionalProperties',
        params: { additionalProperty: 'labelSelector' },
      }),
    );
  });

  it('rejects missing metadata.name, a non-string annotation and a wrong kind', () => {
    const pv = {
      ...packageVariant,
      kind: 'PackageVariantSet',
      metadata: { namespace: 'default', annotations: { 'config.kubernetes.io/index': 0 } },
    };
    const errors = errorsFor(validate, pv);
    expect(errors).toContainEqual(
      expect.objectContaining({ instancePath: '/metadata', keyword: 'required', params: { missingProperty: 'name' } }),
    );
    expect(errors).toContainEqual(
      expect.objectContaining({ instancePath: '/metadata/annotations/config.kubernetes.io~1index', keyword: 'type' }),
    );
    expect(errors).toContainEqual(expect.objectContaining({ instancePath: '/kind', keyword: 'const' }));
  });
});

describe('PackageVariantSet schema', () => {
  const validate = compile(packageVariantSetSchema);

  it('accepts repositories, repositorySelector and objectSelector targets with full templates', () => {
    expectValid(validate, packageVariantSet);
  });

  it('does not encode the one-target-type and value-xor-expression rules', () => {
    const pvs = structuredClone(packageVariantSet) as { spec: { targets: Array<Record<string, unknown>> } };
    pvs.spec.targets[0]!.repositorySelector = { matchLabels: { env: 'prod' } };
    pvs.spec.targets[0]!.template = { downstream: { repo: 'a', repoExpr: "'b'" }, injectors: [{ name: 'x', nameExpr: "'y'" }] };
    expectValid(validate, pvs);
  });

  it('rejects a bad matchExpressions operator', () => {
    const pvs = structuredClone(packageVariantSet) as {
      spec: { targets: Array<{ repositorySelector?: { matchExpressions: Array<Record<string, unknown>> } }> };
    };
    pvs.spec.targets[1]!.repositorySelector!.matchExpressions[0]!.operator = 'Equals';
    expect(errorsFor(validate, pvs)).toContainEqual(
      expect.objectContaining({
        instancePath: '/spec/targets/1/repositorySelector/matchExpressions/0/operator',
        keyword: 'enum',
        params: { allowedValues: ['In', 'NotIn', 'Exists', 'DoesNotExist'] },
      }),
    );
  });

  it('rejects a matchExpression without operator inside an objectSelector', () => {
    const pvs = structuredClone(packageVariantSet) as {
      spec: { targets: Array<{ objectSelector?: { matchExpressions: Array<Record<string, unknown>> } }> };
    };
    pvs.spec.targets[2]!.objectSelector!.matchExpressions = [{ key: 'retired' }];
    expect(errorsFor(validate, pvs)).toContainEqual(
      expect.objectContaining({
        instancePath: '/spec/targets/2/objectSelector/matchExpressions/0',
        keyword: 'required',
        params: { missingProperty: 'operator' },
      }),
    );
  });

  it('rejects a nested selector key, since Porch inlines the label selector in objectSelector', () => {
    const pvs = structuredClone(packageVariantSet) as { spec: { targets: Array<{ objectSelector?: Record<string, unknown> }> } };
    pvs.spec.targets[2]!.objectSelector!.selector = { matchLabels: { org: 'hr' } };
    expect(errorsFor(validate, pvs)).toContainEqual(
      expect.objectContaining({
        instancePath: '/spec/targets/2/objectSelector',
        keyword: 'additionalProperties',
        params: { additionalProperty: 'selector' },
      }),
    );
  });

  it('accepts packageNames under repositorySelector and objectSelector, as the design lists them', () => {
    const pvs = structuredClone(packageVariantSet) as unknown as { spec: { targets: Array<Record<string, Record<string, unknown>>> } };
    pvs.spec.targets[1]!.repositorySelector!.packageNames = ['foo-a', 'foo-b'];
    pvs.spec.targets[2]!.objectSelector!.packageNames = ['foo-a'];
    expectValid(validate, pvs);
  });

  it('rejects a misspelt field beside packageNames and a package name that is not a string', () => {
    const pvs = structuredClone(packageVariantSet) as unknown as { spec: { targets: Array<Record<string, Record<string, unknown>>> } };
    pvs.spec.targets[1]!.repositorySelector = { matchLabels: { region: 'uswest1' }, packageName: ['foo-a'] };
    pvs.spec.targets[2]!.objectSelector!.packageNames = [1];
    const errors = errorsFor(validate, pvs);
    expect(errors).toContainEqual(
      expect.objectContaining({ instancePath: '/spec/targets/1/repositorySelector', keyword: 'additionalProperties', params: { additionalProperty: 'packageName' } }),
    );
    expect(errors).toContainEqual(expect.objectContaining({ instancePath: '/spec/targets/2/objectSelector/packageNames/0', keyword: 'type' }));
  });

  it("accepts the design's template forms: one MapExpr for labelExprs, injectorExprs, one injector", () => {
    const pvs = structuredClone(packageVariantSet) as { spec: { targets: Array<{ template?: Record<string, unknown> }> } };
    pvs.spec.targets[1]!.template = {
      labelExprs: { key: 'org', valueExpr: "repository.labels['org']" },
      annotationExprs: { keyExpr: 'repoDefault', value: 'x' },
      packageContext: { dataExprs: { key: 'region', valueExpr: "target.labels['region']" } },
      pipeline: { mutators: [{ image: 'set-labels', configMapExprs: { key: 'a', valueExpr: 'repoDefault' } }] },
      injectorExprs: [{ nameExpr: "repository.labels['region'] + '-endpoints'" }],
    };
    pvs.spec.targets[2]!.template = { injectors: { name: 'hr-team' } };
    expectValid(validate, pvs);
  });

  it('checks a MapExpr written alone as strictly as one in a list, and a string is neither', () => {
    const pvs = structuredClone(packageVariantSet) as { spec: { targets: Array<{ template?: Record<string, unknown> }> } };
    pvs.spec.targets[1]!.template = { labelExprs: { key: 'org', valueExpresion: 'x' }, annotationExprs: 'org' };
    const errors = errorsFor(validate, pvs);
    expect(errors).toEqual([
      expect.objectContaining({ instancePath: '/spec/targets/1/template/labelExprs', keyword: 'additionalProperties', params: { additionalProperty: 'valueExpresion' } }),
      expect.objectContaining({ instancePath: '/spec/targets/1/template/annotationExprs', keyword: 'type', params: { type: 'array' } }),
    ]);
  });

  it('rejects a repository target without name and an unknown template field', () => {
    const pvs = structuredClone(packageVariantSet) as {
      spec: { targets: Array<{ repositories?: object[]; template?: Record<string, unknown> }> };
    };
    pvs.spec.targets[0]!.repositories = [{ packageNames: ['a'] }];
    pvs.spec.targets[1]!.template!.injectorExpr = [];
    const errors = errorsFor(validate, pvs);
    expect(errors).toContainEqual(
      expect.objectContaining({
        instancePath: '/spec/targets/0/repositories/0',
        keyword: 'required',
        params: { missingProperty: 'name' },
      }),
    );
    expect(errors).toContainEqual(
      expect.objectContaining({
        instancePath: '/spec/targets/1/template',
        keyword: 'additionalProperties',
        params: { additionalProperty: 'injectorExpr' },
      }),
    );
  });

  it('rejects a bad template adoptionPolicy and a non-string MapExpr value', () => {
    const pvs = structuredClone(packageVariantSet) as {
      spec: { targets: Array<{ template?: Record<string, unknown> }> };
    };
    pvs.spec.targets[0]!.template = { adoptionPolicy: 'adopt', labelExprs: [{ key: 'tier', value: 1 }] };
    const errors = errorsFor(validate, pvs);
    expect(errors).toContainEqual(
      expect.objectContaining({ instancePath: '/spec/targets/0/template/adoptionPolicy', keyword: 'enum' }),
    );
    expect(errors).toContainEqual(
      expect.objectContaining({ instancePath: '/spec/targets/0/template/labelExprs/0/value', keyword: 'type' }),
    );
  });

  it('rejects a PackageVariant apiVersion', () => {
    const pvs = { ...packageVariantSet, apiVersion: 'config.porch.kpt.dev/v1alpha1' };
    expect(errorsFor(validate, pvs)).toContainEqual(
      expect.objectContaining({ instancePath: '/apiVersion', keyword: 'const', params: { allowedValue: 'config.porch.kpt.dev/v1alpha2' } }),
    );
  });
});

describe('List schema', () => {
  const validate = compile(listSchema);

  it('accepts a List of arbitrary KRM objects', () => {
    expectValid(validate, list);
    expectValid(validate, { apiVersion: 'v1', kind: 'List', items: [] });
  });

  it('rejects an item without kind', () => {
    const bad = { ...list, items: [list.items[0], { apiVersion: 'v1', metadata: { name: 'x' } }] };
    const errors = errorsFor(validate, bad);
    expect(errors).toContainEqual(
      expect.objectContaining({ instancePath: '/items/1', keyword: 'required', params: { missingProperty: 'kind' } }),
    );
    expect(errors).toHaveLength(1);
  });

  it('rejects an item without metadata.name and a List without items', () => {
    expect(errorsFor(validate, { ...list, items: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }] })).toContainEqual(
      expect.objectContaining({ instancePath: '/items/0/metadata', keyword: 'required', params: { missingProperty: 'name' } }),
    );
    expect(errorsFor(validate, { apiVersion: 'v1', kind: 'List' })).toContainEqual(
      expect.objectContaining({ instancePath: '', keyword: 'required', params: { missingProperty: 'items' } }),
    );
  });
});

describe('options ConfigMap schema', () => {
  const validate = compile(optionsConfigMapSchema);

  it('accepts every option', () => {
    expectValid(validate, optionsConfigMap);
  });

  it('defaults conflicts to upstream-wins when defaults are applied', () => {
    const withDefaults = compile(optionsConfigMapSchema, { useDefaults: true });
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'function-input' }, data: { strategy: 'fast-forward' } };
    expectValid(withDefaults, cm);
    expect(cm.data).toEqual({ strategy: 'fast-forward', conflicts: 'upstream-wins' });
  });

  it('rejects a misspelt option key', () => {
    const cm = { ...optionsConfigMap, data: { stratgy: 'resource-merge' } };
    expect(errorsFor(validate, cm)).toContainEqual(
      expect.objectContaining({ instancePath: '/data', keyword: 'additionalProperties', params: { additionalProperty: 'stratgy' } }),
    );
  });

  it('rejects unknown strategy and conflicts values', () => {
    const cm = { ...optionsConfigMap, data: { strategy: 'merge', conflicts: 'local-wins' } };
    const errors = errorsFor(validate, cm);
    expect(errors).toContainEqual(
      expect.objectContaining({
        instancePath: '/data/strategy',
        keyword: 'enum',
        params: { allowedValues: ['resource-merge', 'fast-forward', 'force-delete-replace'] },
      }),
    );
    expect(errors).toContainEqual(
      expect.objectContaining({ instancePath: '/data/conflicts', keyword: 'enum', params: { allowedValues: ['upstream-wins', 'error'] } }),
    );
  });

  it('rejects a non-string data value', () => {
    const cm = { ...optionsConfigMap, data: { originDir: 42 } };
    expect(errorsFor(validate, cm)).toContainEqual(
      expect.objectContaining({ instancePath: '/data/originDir', keyword: 'type', params: { type: 'string' } }),
    );
  });
});
