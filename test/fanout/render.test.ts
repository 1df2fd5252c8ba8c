/**
 * Template rules (src/fanout/render.ts) against Porch's TestRenderPackageVariantSpec (pvs-render-*)
 * and TestCopyAndOverlayMapExpr (pvs-overlay-*) vectors, plus the rules those leave open.
 */
import type { ConfigObject } from '../../src/config/function-config';
import { celObject } from '../../src/fanout/cel';
import { ExpressionTable } from '../../src/fanout/expressions';
import { ObjectIndex, viewOfConfigObject, type ObjectView } from '../../src/fanout/objects';
import { renderVariantSpec, RenderError, type VariantSpec } from '../../src/fanout/render';
import { repositoriesByName, type TargetContext } from '../../src/fanout/targets';
import { readVariantSet, type PackageVariantTemplate, type Target, type VariantSet } from '../../src/fanout/types';
import { vectors } from './porch-vectors';

interface RenderInputs {
  packageVariantSet: { metadata: { name: string; namespace: string }; spec: { upstream: Record<string, unknown> } };
  repositories: ConfigObject[];
  upstreamPackageRevision: { metadata: { name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string> } };
  downstreamContext: { repoDefault: string; packageDefault: string; object: null; template?: PackageVariantTemplate };
}

const renderVectors = vectors<RenderInputs, { packageVariantSpec: VariantSpec }>('pvs-render-');
const overlayVectors = vectors<
  { inMap: Record<string, string>; mapExprs: PackageVariantTemplate['labelExprs']; variables: { repoDefault: string; packageDefault: string } },
  { map: Record<string, string> }
>('pvs-overlay-');

/** Renders one target the way fanOut does: compile, then render a context. */
function render(set: VariantSet, target: Target, context: Omit<TargetContext, 'index' | 'target' | 'source'>, repositories: ConfigObject[], upstream?: ObjectView): VariantSpec {
  const withTarget = { ...set, spec: { ...set.spec, targets: [target] } };
  const expressions = new ExpressionTable();
  const problems = expressions.compileAll([target], true, () => '');
  if (problems.length) throw new Error(problems.map((p) => p.message).join('\n'));
  const index = new ObjectIndex(repositories, []);
  return renderVariantSpec(
    { set: withTarget, expressions, repositories: repositoriesByName(index, withTarget), upstream: upstream ? celObject(upstream) : undefined },
    { ...context, index: 0, target, source: 'spec.targets[0].repositories[0]' },
  );
}

function setOf(inputs: RenderInputs): VariantSet {
  const { metadata, spec } = inputs.packageVariantSet;
  return readVariantSet({ apiVersion: 'config.porch.kpt.dev/v1alpha2', kind: 'PackageVariantSet', metadata, spec });
}

describe("Porch's render vectors", () => {
  it('has them all', () => {
    expect(renderVectors).toHaveLength(11);
  });

  it.each(renderVectors.map((v) => [v.name, v] as const))('%s', (_name, { inputs, expected }) => {
    const { repoDefault, packageDefault, template } = inputs.downstreamContext;
    const upstream = viewOfConfigObject({ apiVersion: 'porch.kpt.dev/v1alpha1', kind: 'PackageRevision', ...inputs.upstreamPackageRevision });
    const target: Target = { repositories: [{ name: repoDefault }], ...(template ? { template } : {}) };
    expect(render(setOf(inputs), target, { repoDefault, packageDefault }, inputs.repositories, upstream)).toEqual(expected.packageVariantSpec);
  });
});

describe("Porch's overlay vectors (as labelExprs over labels)", () => {
  const set = readVariantSet({ apiVersion: 'x', kind: 'PackageVariantSet', metadata: { name: 's' }, spec: { upstream: { repo: 'u', package: 'p', revision: 1 } } });
  const repos = [{ apiVersion: 'config.porch.kpt.dev/v1alpha1', kind: 'Repository', metadata: { name: 'foo-repo' } }];

  it.each(overlayVectors.map((v) => [v.name, v] as const))('%s', (_name, { inputs, expected }) => {
    const { repoDefault, packageDefault } = inputs.variables;
    const template: PackageVariantTemplate = { labels: inputs.inMap, labelExprs: inputs.mapExprs };
    const spec = render(set, { repositories: [{ name: repoDefault }], template }, { repoDefault, packageDefault }, repos);
    expect(spec.labels).toEqual(expected.map);
  });
});

describe('rules the vectors leave open', () => {
  const set = readVariantSet({
    apiVersion: 'config.porch.kpt.dev/v1alpha2',
    kind: 'PackageVariantSet',
    metadata: { name: 's' },
    spec: { upstream: { repo: 'u', package: 'p', revision: 1 } },
  });
  const repos: ConfigObject[] = [
    { apiVersion: 'config.porch.kpt.dev/v1alpha1', kind: 'Repository', metadata: { name: 'r1', labels: { region: 'eu' } } },
    { apiVersion: 'config.porch.kpt.dev/v1alpha1', kind: 'Repository', metadata: { name: 'r2' } },
  ];
  const renderTemplate = (template: PackageVariantTemplate) => render(set, { repositories: [{ name: 'r1' }], template }, { repoDefault: 'r1', packageDefault: 'p' }, repos);

  it('an Expr entry wins over the plain value of the same key; later entries win over earlier ones', () => {
    expect(
      renderTemplate({
        annotations: { a: 'plain', b: 'plain' },
        annotationExprs: [
          { key: 'a', valueExpr: "'from-expr'" },
          { keyExpr: "'b'", value: 'first' },
          { key: 'b', value: 'second' },
        ],
      }).annotations,
    ).toEqual({ a: 'from-expr', b: 'second' });
  });

  it('a MapExpr without a key yields the key "" and without a value the value "" (Porch)', () => {
    expect(renderTemplate({ labelExprs: [{ valueExpr: 'repoDefault' }, { key: 'k' }] }).labels).toEqual({ '': 'r1', k: '' });
  });

  it('configMapExprs: keyExpr wins over key (not a validation error, as in Porch), configMap stays where it was', () => {
    const spec = renderTemplate({
      pipeline: {
        mutators: [
          { image: 'a', configMapExprs: [{ key: 'ignored', keyExpr: "'region'", valueExpr: "repository.labels['region']" }], name: 'set' },
          { image: 'b', configMap: { x: '1' }, name: 'plain' },
          { image: 'c', configMapExprs: [] },
        ],
      },
    });
    expect(spec.pipeline).toEqual({ mutators: [{ image: 'a', configMap: { region: 'eu' }, name: 'set' }, { image: 'b', configMap: { x: '1' }, name: 'plain' }, { image: 'c' }] });
    expect(Object.keys(spec.pipeline!.mutators![0]!)).toEqual(['image', 'configMap', 'name']);
  });

  it('an empty pipeline, empty maps and empty removeKeys are left out', () => {
    const spec = renderTemplate({ pipeline: { mutators: [], validators: [] }, labels: {}, labelExprs: [], packageContext: { removeKeys: [] } });
    expect(spec).toEqual({ upstream: { repo: 'u', package: 'p', revision: 1 }, downstream: { repo: 'r1', package: 'p' }, packageContext: {} });
  });

  it('removeKeys and removeKeyExprs are merged, deduplicated and sorted', () => {
    expect(renderTemplate({ packageContext: { removeKeys: ['b', 'a'], removeKeyExprs: ["'c'", "'a'"] } }).packageContext).toEqual({ removeKeys: ['a', 'b', 'c'] });
  });

  it('downstream.repo chooses the repository that `repository` then binds', () => {
    const spec = renderTemplate({ downstream: { repo: 'r2', packageExpr: "repository.name + '-' + packageDefault" } });
    expect(spec.downstream).toEqual({ repo: 'r2', package: 'r2-p' });
  });

  it('an empty repoExpr or packageExpr counts as unset, as in Porch', () => {
    expect(renderTemplate({ downstream: { repoExpr: '', packageExpr: '' } }).downstream).toEqual({ repo: 'r1', package: 'p' });
  });

  it('a key named __proto__ is an ordinary key', () => {
    const labels = renderTemplate({ labelExprs: [{ keyExpr: "'__proto__'", value: 'x' }] }).labels!;
    expect(Object.keys(labels)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(labels)).toBe(Object.prototype);
  });

  it('a run-time failure names the field, the target and the expression', () => {
    let error: unknown;
    try {
      renderTemplate({ labelExprs: [{ key: 'zone', valueExpr: "repository.labels['zone']" }] });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RenderError);
    expect((error as RenderError).result).toMatchObject({
      message: expect.stringMatching(
        /^PackageVariantSet s: spec\.targets\[0\]\.template\.labelExprs\[0\]\.valueExpr failed for spec\.targets\[0\]\.repositories\[0\] \(repository r1, package p\): No such key: zone\n\n>    1 \| repository\.labels\['zone'\]/,
      ),
      field: { path: 'spec.targets[0].template.labelExprs[0].valueExpr' },
    });
  });

  // Deviation, pinned: Porch looks the Repository up only for targets with a template.
  it('a downstream repository that is not among the objects is an error, with a template or without', () => {
    for (const target of [{ repositories: [{ name: 'r9' }] }, { repositories: [{ name: 'r9' }], template: {} }]) {
      expect(() => render(set, target, { repoDefault: 'r9', packageDefault: 'p' }, repos)).toThrow(
        'PackageVariantSet s: downstream repository "r9" of spec.targets[0].repositories[0] (repository r9, package p) is not among the objects: no config.porch.kpt.dev/v1alpha1 Repository of that name in namespace default',
      );
    }
  });
});
