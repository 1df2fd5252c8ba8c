import { errors, KPTFILE, messages, run, runAgain, variant } from './variant-helpers';

const kptfileWith = (pipeline: string) => `${KPTFILE}pipeline:\n${pipeline}`;

describe('pipeline editing', () => {
  it('prepends the functions named PackageVariant.<pv>.<fn>.<index>, name and image first, every other field copied', () => {
    const config = variant({
      pipeline: {
        mutators: [
          {
            tag: 'v1',
            selectors: [{ kind: 'Deployment', name: 'web' }],
            exclude: [{ name: 'skip' }],
            configPath: 'labels.yaml',
            image: 'ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2',
            name: 'labels',
          },
          { exec: 'my-fn', configMap: { b: '2', a: '1' } },
        ],
        validators: [{ image: 'kubeval:v1', name: 'check' }],
      },
    });
    const out = run({ Kptfile: kptfileWith('  mutators:\n  - image: own:v1 # the package\'s own\n    name: own\n') }, config);
    expect(out.exitCode).toBe(0);
    expect(out.files.Kptfile).toBe(
      `${KPTFILE}pipeline:
  mutators:
  - name: PackageVariant.my-pv.labels.0
    image: ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2
    configPath: labels.yaml
    exclude:
    - name: skip
    selectors:
    - kind: Deployment
      name: web
    tag: v1
  - name: PackageVariant.my-pv..1
    configMap:
      b: "2"
      a: "1"
    exec: my-fn
  - image: own:v1 # the package's own
    name: own
  validators:
  - name: PackageVariant.my-pv.check.0
    image: kubeval:v1
`,
    );
    expect(messages(out)).toEqual([
      'Kptfile pipeline: prepended mutators PackageVariant.my-pv.labels.0, PackageVariant.my-pv..1',
      'Kptfile pipeline: prepended validators PackageVariant.my-pv.check.0',
    ]);
  });

  it('replaces what it added before, so edits of the PackageVariant converge', () => {
    const first = run({ Kptfile: KPTFILE }, variant({ pipeline: { mutators: [{ image: 'a:v1', name: 'a' }, { image: 'b:v1', name: 'b' }] } }));
    const edited = variant({ pipeline: { mutators: [{ image: 'b:v2', name: 'b' }] } });
    const second = runAgain(first, edited);
    expect(second.files.Kptfile).toBe(`${KPTFILE}pipeline:\n  mutators:\n  - name: PackageVariant.my-pv.b.0\n    image: b:v2\n`);
    expect(messages(second)).toEqual([
      'Kptfile pipeline: prepended mutators PackageVariant.my-pv.b.0',
      'Kptfile pipeline: removed mutators this PackageVariant added before: PackageVariant.my-pv.a.0, PackageVariant.my-pv.b.1',
    ]);
    expect(runAgain(second, edited).files).toEqual(second.files);
  });

  it('keeps functions of the package and of other PackageVariants, in their order', () => {
    const existing = [
      '  - name: PackageVariant.other-pv.x.0',
      '    image: x:v1',
      '  - name: PackageVariant.my-pv.old.0',
      '    image: old:v1',
      '  - name: own',
      '    image: own:v1',
      '  - name: PackageVariant.my-pv.a.b.0 # PackageVariant my-pv.a, function b',
      '    image: ab:v1',
      '',
    ].join('\n');
    const out = run({ Kptfile: kptfileWith(`  mutators:\n${existing}`) }, variant({ pipeline: { mutators: [{ image: 'new:v1', name: 'new' }] } }));
    const names = [...out.files.Kptfile!.matchAll(/- name: (\S+)/g)].map((m) => m[1]);
    expect(names).toEqual(['PackageVariant.my-pv.new.0', 'PackageVariant.other-pv.x.0', 'own', 'PackageVariant.my-pv.a.b.0']);
  });

  it('recognises its functions when the PackageVariant name has dots (Porch duplicates them on every run)', () => {
    const config = variant({ pipeline: { mutators: [{ image: 'a:v1', name: 'a' }] } }, { name: 'team.us-east1' });
    const first = run({ Kptfile: KPTFILE }, config);
    const second = runAgain(first, config);
    expect(second.files.Kptfile).toBe(`${KPTFILE}pipeline:\n  mutators:\n  - name: PackageVariant.team.us-east1.a.0\n    image: a:v1\n`);
    // PackageVariant "team" must not take "team.us-east1"'s function for its own.
    const other = runAgain(second, variant({}, { name: 'team' }));
    expect(other.files).toEqual(second.files);
  });

  it('an entry it added before with the same content keeps its node: comments and key order stay', () => {
    const kptfile = kptfileWith('  mutators:\n  # added by the PackageVariant\n  - image: a:v1 # pinned\n    name: PackageVariant.my-pv.a.0\n');
    const out = run({ Kptfile: kptfile }, variant({ pipeline: { mutators: [{ image: 'a:v1', name: 'a' }] } }));
    expect(out.files.Kptfile).toBe(kptfile);
  });

  it("a comment above the Kptfile's first function stays with that function", () => {
    const out = run({ Kptfile: kptfileWith('  mutators:\n  # the package\'s own\n  - image: own:v1\n') }, variant({ pipeline: { mutators: [{ image: 'a:v1', name: 'a' }] } }));
    expect(out.files.Kptfile).toBe(kptfileWith("  mutators:\n  - name: PackageVariant.my-pv.a.0\n    image: a:v1\n  # the package's own\n  - image: own:v1\n"));
  });

  it('a comment above a function it removes goes with it', () => {
    const kptfile = kptfileWith('  mutators:\n  # added before\n  - name: PackageVariant.my-pv.old.0\n    image: old:v1\n  # own\n  - image: own:v1\n');
    const out = run({ Kptfile: kptfile }, variant({ pipeline: { mutators: [{ image: 'a:v1', name: 'a' }] } }));
    expect(out.files.Kptfile).toBe(kptfileWith('  mutators:\n  - name: PackageVariant.my-pv.a.0\n    image: a:v1\n  # own\n  - image: own:v1\n'));
  });

  it('drops a list it empties, and the pipeline when nothing is left in it', () => {
    const kptfile = kptfileWith('  mutators:\n  - name: PackageVariant.my-pv.a.0\n    image: a:v1\n  validators:\n  - name: keep\n    image: v:v1\n');
    const out = run({ Kptfile: kptfile }, variant());
    expect(out.files.Kptfile).toBe(kptfileWith('  validators:\n  - name: keep\n    image: v:v1\n'));
    const onlyOurs = run({ Kptfile: kptfileWith('  mutators:\n  - name: PackageVariant.my-pv.a.0\n    image: a:v1\n') }, variant());
    expect(onlyOurs.files.Kptfile).toBe(KPTFILE);
  });

  it('leaves lists it does not change as they are, empty ones included (Porch drops them)', () => {
    const kptfile = kptfileWith('  mutators: []\n  validators:\n  - name: keep\n    image: v:v1\n');
    expect(run({ Kptfile: kptfile }, variant()).files.Kptfile).toBe(kptfile);
  });

  it('fills an empty flow pipeline in block style, and keeps the Kptfile comments and unknown fields', () => {
    const kptfile = `# the package\n${KPTFILE}x-team: payments # not a Kptfile field\npipeline: {}\n`;
    const out = run({ Kptfile: kptfile }, variant({ pipeline: { validators: [{ image: 'v:v1' }] } }));
    expect(out.files.Kptfile).toBe(`# the package\n${KPTFILE}x-team: payments # not a Kptfile field\npipeline:\n  validators:\n  - name: PackageVariant.my-pv..0\n    image: v:v1\n`);
  });

  it('needs no Kptfile when it has no functions to add', () => {
    expect(run({ 'cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n' }, variant()).exitCode).toBe(0);
  });
});

describe('pipeline editing: bad input', () => {
  it('a function name with a dot is an error (Porch accepts it and then duplicates the function)', () => {
    const out = run({ Kptfile: KPTFILE }, variant({ pipeline: { mutators: [{ image: 'a:v1', name: 'ok' }], validators: [{ image: 'b:v1', name: 'set.ns' }] } }));
    expect(out.exitCode).toBe(1);
    expect(errors(out)).toEqual([
      expect.objectContaining({
        message:
          'PackageVariant my-pv: spec.pipeline.validators[0].name "set.ns" must not contain a dot: the function is added as PackageVariant.my-pv.<name>.<index>, and a dot would stop later runs from recognising and replacing it',
        field: { path: 'spec.pipeline.validators[0].name' },
      }),
    ]);
    expect(out.files.Kptfile).toBe(KPTFILE);
  });

  it('functions to add but no root Kptfile', () => {
    const out = run({ 'sub/Kptfile': KPTFILE }, variant({ pipeline: { mutators: [{ image: 'a:v1' }] } }));
    expect(out.exitCode).toBe(1);
    expect(messages(out)).toEqual(['PackageVariant my-pv: spec.pipeline adds functions to the Kptfile, but the package has no Kptfile at its root']);
  });

  it('a Kptfile pipeline that is not a map, or lists that are not lists of maps', () => {
    const config = variant({ pipeline: { mutators: [{ image: 'a:v1' }] } });
    expect(messages(run({ Kptfile: `${KPTFILE}pipeline: [a]\n` }, config))).toEqual(['Kptfile pipeline must be a map']);
    expect(messages(run({ Kptfile: kptfileWith('  mutators: a\n  validators:\n  - b\n') }, config))).toEqual([
      'Kptfile pipeline.mutators must be a list of functions (maps)',
      'Kptfile pipeline.validators must be a list of functions (maps)',
    ]);
  });
});
