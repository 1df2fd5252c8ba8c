/** The CEL environment of PackageVariantSet templates (src/fanout/cel.ts). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { celObject, compileStringExpression, toCelValue, type CelVariables, type Scope } from '../../src/fanout/cel';
import { viewOfConfigObject } from '../../src/fanout/objects';
import { SHARED } from '../helpers';

const LIST: Scope = { shape: 'repository-list', repository: true, upstream: true };
const OBJECT: Scope = { shape: 'object', repository: true, upstream: true };

const repository = celObject({ name: 'cluster-01', namespace: 'fleet', labels: { region: 'eu', replicas: 3 }, annotations: { owner: 'hr' } });
const VARIABLES: CelVariables = {
  repoDefault: 'cluster-01',
  packageDefault: 'foo',
  target: repository,
  repository,
  upstream: celObject({ name: 'catalog.foo.v1', namespace: 'fleet', labels: {}, annotations: {} }),
};

function evaluate(source: string, scope: Scope = OBJECT, variables: CelVariables = VARIABLES): string {
  const compiled = compileStringExpression(source, scope);
  if (!compiled.ok) throw new Error(`did not compile: ${compiled.message}`);
  return compiled.expression.evaluate(variables);
}

function compileError(source: string, scope: Scope = OBJECT): string {
  const compiled = compileStringExpression(source, scope);
  if (compiled.ok) throw new Error(`${source} compiled`);
  return compiled.message;
}

function runtimeError(source: string, scope: Scope = OBJECT, variables: CelVariables = VARIABLES): string {
  try {
    evaluate(source, scope, variables);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${source} evaluated`);
}

describe("Porch's evalExpr vectors (pvs-cel-*)", () => {
  const dir = join(SHARED, 'conformance', 'porch');
  const vector = (name: string) =>
    parse(readFileSync(join(dir, `pvs-cel-${name}.yaml`), 'utf8')) as {
      inputs: { expr: string; variables: { repoDefault: string; packageDefault: string; target: Record<string, unknown> | null } };
      expected: { result: string | null; error: string | null };
    };
  const run = (name: string) => {
    const { inputs, expected } = vector(name);
    const { repoDefault, packageDefault, target } = inputs.variables;
    const isList = target !== null && 'repo' in target;
    const scope: Scope = { shape: isList ? 'repository-list' : 'object', repository: true, upstream: true };
    const celTarget = isList
      ? (target as { repo: string; package: string })
      : celObject({ name: String(target?.name ?? ''), namespace: undefined, labels: (target?.labels ?? {}) as Record<string, unknown>, annotations: {} });
    const compiled = compileStringExpression(inputs.expr, scope);
    return { expected, compiled, variables: { repoDefault, packageDefault, target: celTarget } };
  };

  it.each(['no-vars', 'repodefault', 'packagedefault', 'concat-defaults', 'repositories-target', 'repository-target'])('%s gives the same string', (name) => {
    const { expected, compiled, variables } = run(name);
    expect(compiled.ok).toBe(true);
    if (compiled.ok) expect(compiled.expression.evaluate(variables)).toBe(expected.result);
  });

  it('missing-label fails at run time with "no such key" (cel-js capitalises it and adds a caret)', () => {
    const { expected, compiled, variables } = run('missing-label');
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    expect(() => compiled.expression.evaluate(variables)).toThrow(new RegExp(expected.error!, 'i'));
  });

  // Deviation, pinned: cel-js's texts, not cel-go's; both name the problem and point with a caret.
  it('bad-expr is a syntax error with a caret, found when compiling', () => {
    const { compiled } = run('bad-expr');
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.message).toBe('Unexpected token: DIVIDE\n\n>    1 | /\n         ^');
  });

  it('bad-variable is an unknown variable, found when compiling', () => {
    const { compiled } = run('bad-variable');
    expect(compiled.ok).toBe(false);
    if (!compiled.ok) expect(compiled.message).toBe('Unknown variable: badvar\n\n>    1 | badvar\n         ^');
  });
});

describe('variables', () => {
  it('binds repoDefault, packageDefault, target, repository and upstream', () => {
    expect(evaluate("repoDefault + '/' + packageDefault + '/' + target.name + '/' + repository.namespace + '/' + upstream.name")).toBe(
      'cluster-01/foo/cluster-01/fleet/catalog.foo.v1',
    );
  });

  it('target of a repositories target is {repo, package}', () => {
    const variables = { ...VARIABLES, target: { repo: 'r1', package: 'p1' } };
    expect(evaluate("target.repo + '/' + target.package", LIST, variables)).toBe('r1/p1');
    expect(compileError('target.name', LIST)).toMatch(/^No such key: name/);
  });

  it('target of a selector target is the object, which has no repo or package', () => {
    expect(compileError('target.package')).toMatch(/^No such key: package/);
  });

  it('repository is not available in downstream.repoExpr, and the message says why', () => {
    const message = compileError('repository.name', { ...OBJECT, repository: false });
    expect(message).toMatch(/^Unknown variable: repository\n/);
    expect(message).toContain('`repository` is not available in downstream.repoExpr');
    expect(evaluate('repository.name')).toBe('cluster-01');
  });

  it('upstream is unknown when no upstream PackageRevision was supplied', () => {
    expect(compileError('upstream.name', { ...OBJECT, upstream: false })).toMatch(/^Unknown variable: upstream/);
  });

  it('a missing namespace is "" and missing labels an empty map, as in Porch', () => {
    const object = celObject({ name: 'x', namespace: undefined, labels: {}, annotations: {} });
    const variables = { ...VARIABLES, target: object };
    expect(evaluate("target.namespace + '|' + string(size(target.labels))", OBJECT, variables)).toBe('|0');
    expect(runtimeError("target.labels['region']", OBJECT, variables)).toMatch(/^No such key: region/);
  });

  // Deviation, pinned: cel-js has string extensions that Porch's standard-only cel-go lacks.
  it("cel-js's string extensions (lowerAscii, split, join) are available", () => {
    expect(evaluate("target.name.upperAscii().lowerAscii().split('-').join('_')")).toBe('cluster_01');
  });

  // Deviation, pinned: cel-go compares an int with a double; cel-js does not.
  it('int == double is a type error', () => {
    expect(compileError("1 == 1.0 ? 'a' : 'b'")).toMatch(/^no such overload: int == double/);
  });
});

describe('the security boundary: objects expose name, namespace, labels and annotations only', () => {
  it.each(['target.spec', 'target.status', 'target.metadata', 'target.uid', 'repository.spec', 'upstream.spec', "target['spec']"])(
    '%s is an error when compiling',
    (source) => {
      expect(compileError(source)).toMatch(/^No such key: (spec|status|metadata|uid)/);
    },
  );

  it('has() finds no other field, even on an object that has one', () => {
    const withSpec = { ...VARIABLES, target: { ...repository, spec: { replicas: 3 } } as unknown as CelVariables['target'] };
    expect(evaluate('has(target.spec) ? "found" : "hidden"', OBJECT, withSpec)).toBe('hidden');
  });

  it('the CEL view of an object carries the four fields and nothing else', () => {
    const object = viewOfConfigObject({
      apiVersion: 'config.porch.kpt.dev/v1alpha1',
      kind: 'Repository',
      metadata: {
        name: 'cluster-01',
        namespace: 'fleet',
        labels: { env: 'prod' },
        annotations: { owner: 'hr', 'internal.config.kubernetes.io/path': 'repos.yaml', 'config.kubernetes.io/index': '0' },
        uid: 'secret-uid',
        ownerReferences: [{ name: 'x' }],
      } as never,
      spec: { git: { secretRef: { name: 'git-credentials' } } },
      status: { ready: true },
    });
    const view = celObject(object);
    expect(view).toEqual({ name: 'cluster-01', namespace: 'fleet', labels: { env: 'prod' }, annotations: { owner: 'hr' } });
    expect(Object.keys(view)).toEqual(['name', 'namespace', 'labels', 'annotations']);
  });
});

describe('integers are CEL ints', () => {
  it('YAML integers become BigInt, other numbers stay doubles', () => {
    expect(toCelValue({ a: 3, b: 1.5, c: ['x', 2], d: { e: -7 } })).toEqual({ a: 3n, b: 1.5, c: ['x', 2n], d: { e: -7n } });
  });

  it('an integer label adds to a CEL int literal', () => {
    expect(evaluate("string(target.labels['replicas'] + 1)")).toBe('4');
  });
});

describe('the result must be a string', () => {
  it.each([
    ['1 + 2', 'int'],
    ["target.name == 'x'", 'bool'],
    ['size(repoDefault)', 'int'],
    ['target.labels', 'map<string, dyn>'],
    ['target', 'porch.Object'],
  ])('%s returns %s: an error when compiling, with the expression and a caret', (source, type) => {
    expect(compileError(source)).toBe(`the expression returns ${type}, but a string is needed\n\n>    1 | ${source}\n         ^`);
  });

  it('a dyn that is not a string at run time is an error naming its value', () => {
    expect(runtimeError("target.labels['replicas']")).toBe(
      "the expression returned the int 3, but a string is needed\n\n>    1 | target.labels['replicas']\n         ^",
    );
  });
});

describe('errors', () => {
  it('a syntax error names the problem and points at it', () => {
    expect(compileError("target.name.startsWith('cluster'")).toBe("Expected RPAREN, got EOF\n\n>    1 | target.name.startsWith('cluster'\n                                         ^");
  });

  it('a type error is found when compiling', () => {
    expect(compileError("target.name + 1 + 'x'")).toMatch(/^no such overload: string \+ int/);
  });

  it('a run-time error keeps CEL\'s caret', () => {
    expect(runtimeError("repository.labels['missing']")).toBe("No such key: missing\n\n>    1 | repository.labels['missing']\n         ^");
  });
});
