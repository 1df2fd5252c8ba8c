import { CONTEXT, errors, KPTFILE, messages, run, runAgain, variant } from './variant-helpers';

const withContext = (context = CONTEXT) => ({ Kptfile: KPTFILE, 'package-context.yaml': context });

describe('package context', () => {
  it('sets data keys in place and appends new ones in byte order, then removes removeKeys', () => {
    const context = `${CONTEXT}  region: us-west1 # set by the PackageVariant\n  legacy: x\n  zone: a\n`;
    const config = variant({ packageContext: { data: { zone: 'b', region: 'us-east1', env: 'prod', cluster: 'c1' }, removeKeys: ['legacy', 'absent'] } });
    const out = run(withContext(context), config);
    expect(out.exitCode).toBe(0);
    expect(out.files['package-context.yaml']).toBe(
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: kptfile.kpt.dev',
        '  annotations:',
        '    config.kubernetes.io/local-config: "true"',
        'data:',
        '  name: example',
        '  region: us-east1 # set by the PackageVariant',
        '  zone: b',
        '  cluster: c1',
        '  env: prod',
        '',
      ].join('\n'),
    );
    expect(out.files.Kptfile).toBe(KPTFILE);
  });

  it('quotes values that YAML 1.1 readers would take for something else', () => {
    const out = run(withContext(), variant({ packageContext: { data: { enabled: 'on', mode: '0755', flag: 'true' } } }));
    expect(out.files['package-context.yaml']).toContain('  enabled: "on"\n  flag: "true"\n  mode: "0755"\n');
  });

  it('reports what it set and removed as an info result on the context', () => {
    const out = run(withContext(), variant({ packageContext: { data: { region: 'us-east1' }, removeKeys: ['old'] } }));
    expect(out.results).toEqual([
      {
        message: 'package context: set region="us-east1"; removed old',
        severity: 'info',
        resourceRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'kptfile.kpt.dev' },
        file: { path: 'package-context.yaml' },
      },
    ]);
  });

  it('gives the same package when run again', () => {
    const config = variant({ packageContext: { data: { region: 'us-east1' }, removeKeys: ['hello'] } });
    const first = run(withContext(`${CONTEXT}  hello: there\n`), config);
    expect(first.files['package-context.yaml']).not.toContain('hello');
    expect(runAgain(first, config).files).toEqual(first.files);
  });

  it('is skipped when packageContext is absent or empty, even without a package context', () => {
    for (const spec of [{}, { packageContext: {} }, { packageContext: { data: {}, removeKeys: [] } }]) {
      const out = run({ Kptfile: KPTFILE }, variant(spec));
      expect(out.exitCode).toBe(0);
      expect(out.results).toEqual([]);
      expect(out.files).toEqual({ Kptfile: KPTFILE });
    }
  });

  it('creates data when the ConfigMap has none (Porch fails with "no data field found")', () => {
    const bare = CONTEXT.replace('data:\n  name: example\n', '');
    const out = run(withContext(bare), variant({ packageContext: { data: { region: 'us-east1' } } }));
    expect(out.exitCode).toBe(0);
    expect(out.files['package-context.yaml']).toBe(`${bare}data:\n  region: us-east1\n`);
  });

  it('leaves a ConfigMap without data untouched when it only removes keys', () => {
    const bare = CONTEXT.replace('data:\n  name: example\n', '');
    const out = run(withContext(bare), variant({ packageContext: { removeKeys: ['region'] } }));
    expect(out.exitCode).toBe(0);
    expect(out.files['package-context.yaml']).toBe(bare);
  });

  it('edits only the root package context, not one in a subpackage', () => {
    const out = run({ Kptfile: KPTFILE, 'sub/package-context.yaml': CONTEXT }, variant({ packageContext: { data: { region: 'x' } } }));
    expect(out.exitCode).toBe(1);
    expect(messages(out).join()).toContain('the package has none');
    expect(out.files['sub/package-context.yaml']).toBe(CONTEXT);
  });
});

describe('package context: bad input', () => {
  it('a missing package context is an error that says how to create it; nothing changes', () => {
    const config = variant({ packageContext: { data: { region: 'x' } }, pipeline: { mutators: [{ image: 'set-labels:v1', name: 'labels' }] } });
    const out = run({ Kptfile: KPTFILE }, config);
    expect(out.exitCode).toBe(1);
    expect(errors(out)).toEqual([
      {
        message:
          'PackageVariant my-pv: spec.packageContext edits the package context, but the package has none: ConfigMap kptfile.kpt.dev in package-context.yaml at the package root. Create it, e.g. by fetching the package with `kpt pkg get --for-deployment`',
        severity: 'error',
        resourceRef: { apiVersion: 'config.porch.kpt.dev/v1alpha1', kind: 'PackageVariant', name: 'my-pv' },
        field: { path: 'spec.packageContext' },
      },
    ]);
    // The pipeline step was fine, but nothing is half-applied.
    expect(out.files).toEqual({ Kptfile: KPTFILE });
  });

  it('the reserved keys name and package-path, in data or in removeKeys, are errors', () => {
    const config = variant({ packageContext: { data: { name: 'x', 'package-path': 'y', ok: 'z' }, removeKeys: ['package-path', 'name'] } });
    const out = run(withContext(), config);
    expect(out.exitCode).toBe(1);
    expect(errors(out).map((e) => [e.field.path, e.message.replace(/: kpt and Porch.*/, '')])).toEqual([
      ['spec.packageContext.data.name', 'PackageVariant my-pv: spec.packageContext.data must not contain the key "name"'],
      ['spec.packageContext.removeKeys[1]', 'PackageVariant my-pv: spec.packageContext.removeKeys must not contain the key "name"'],
      ['spec.packageContext.data.package-path', 'PackageVariant my-pv: spec.packageContext.data must not contain the key "package-path"'],
      ['spec.packageContext.removeKeys[0]', 'PackageVariant my-pv: spec.packageContext.removeKeys must not contain the key "package-path"'],
    ]);
    expect(out.files['package-context.yaml']).toBe(CONTEXT);
  });

  it('a key both in data and in removeKeys is an error (Porch silently removes it)', () => {
    const out = run(withContext(), variant({ packageContext: { data: { region: 'x', zone: 'a' }, removeKeys: ['old', 'region'] } }));
    expect(out.exitCode).toBe(1);
    expect(errors(out)).toEqual([
      expect.objectContaining({
        message: 'PackageVariant my-pv: spec.packageContext: the key "region" is both set in data and listed in removeKeys; keep it in one of them (Porch would silently remove it)',
        field: { path: 'spec.packageContext.removeKeys[1]' },
      }),
    ]);
    expect(out.files['package-context.yaml']).toBe(CONTEXT);
  });

  it('a context whose data is not a map is an error naming it', () => {
    const out = run(withContext(CONTEXT.replace('data:\n  name: example\n', 'data: [a]\n')), variant({ packageContext: { data: { region: 'x' } } }));
    expect(out.exitCode).toBe(1);
    expect(errors(out)).toEqual([expect.objectContaining({ message: 'ConfigMap kptfile.kpt.dev (package-context.yaml): data must be a map of strings', field: { path: 'data' } })]);
  });

  it('two root package contexts are an error', () => {
    const out = run({ Kptfile: KPTFILE, 'package-context.yaml': `${CONTEXT}---\n${CONTEXT}` }, variant({ packageContext: { data: { region: 'x' } } }));
    expect(out.exitCode).toBe(1);
    expect(messages(out).join()).toMatch(/the package has 2 package contexts: ConfigMap kptfile\.kpt\.dev \(package-context\.yaml\), ConfigMap kptfile\.kpt\.dev \(package-context\.yaml\)/);
  });
});
