/**
 * The container image as kpt, users and Porch run it. scripts/build-test-image.sh builds the
 * Dockerfile into localhost/package-variant:test on a locally assembled Node base; this suite runs
 * every example of examples/ through `KPT_FN_RUNTIME=podman kpt fn eval --image` (render cases with
 * their Kptfile pointing at the image), against the expected files the exec suite uses, and checks
 * what the image is: non-root, runnable without a network, nothing but the bundle this checkout
 * builds on top of its base.
 *
 * Skipped with one line saying why where kpt or podman is missing, or the image is not built or holds
 * another build than dist/ (a developer's, after a change to src/). In CI, .ci/run passes the build
 * script's reason on in PV_TEST_IMAGE_UNAVAILABLE when the machine cannot install or run podman,
 * and sets PV_TEST_IMAGE_BUILT when it has just built the image, which must then match.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { dirname, join } from 'node:path';
import { describeExampleCases } from './example-suite';
import { childEnv, DIST_MAIN, TEST_IMAGE } from './kpt-harness';
import { configMap, kptfile } from '../pkg/trees';
import { emptyRepository, GIT_ENV, publish, refsOf, show, writeFleet } from '../sync/porch-repos';
import { describeUnless, kptAbsent } from '../skip-notice';

/** The base the build script assembles from this Node. */
const BASE_IMAGE = `localhost/package-variant-node-base:${process.version.slice(1)}`;
const BUNDLE = ['main.js', 'function.js', 'update.js'];
/** The bundles' V8 code caches, made by the image's own build (src/cli/bundle-loader.ts): not compared with dist/'s. */
const CODE_CACHES = ['function.js.cache', 'update.js.cache'];
const REBUILD = 'bash scripts/build-test-image.sh';

function podman(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('podman', args, { encoding: 'utf8', env: childEnv(), timeout: 60_000 });
  return { status: result.error ? null : result.status, stdout: result.stdout ?? '', stderr: result.error ? result.error.message : result.stderr };
}

interface ImageRun {
  readonly status: number | null;
  readonly stderr: string;
  readonly uid?: number;
  readonly gid?: number;
  /** sha256 of each bundle file in the image. */
  readonly files?: Record<string, string>;
}

/** Runs the image as kpt and Porch would (its own USER, no network) and reports who it ran as and what it holds. */
function runImage(): ImageRun {
  // A file the image lacks (one an older build did not make) is null: the image is then stale.
  const report = `const { createHash } = require('node:crypto');
    const { existsSync, readFileSync } = require('node:fs');
    const files = Object.fromEntries(${JSON.stringify(BUNDLE)}.map((f) => [f, existsSync('/app/' + f) ? createHash('sha256').update(readFileSync('/app/' + f)).digest('hex') : null]));
    process.stdout.write(JSON.stringify({ uid: process.getuid(), gid: process.getgid(), files }));`;
  const run = podman(['run', '--rm', '--network', 'none', '--entrypoint', 'node', TEST_IMAGE, '-e', report]);
  return run.status === 0 ? { status: 0, stderr: run.stderr, ...(JSON.parse(run.stdout) as Omit<ImageRun, 'status' | 'stderr'>) } : { status: run.status, stderr: run.stderr };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const builtBundle = (): Record<string, string> => Object.fromEntries(BUNDLE.map((file) => [file, sha256(readFileSync(join(dirname(DIST_MAIN), file)))]));

function unavailable(): { reason?: string; run?: ImageRun } {
  const fromCi = process.env.PV_TEST_IMAGE_UNAVAILABLE;
  if (fromCi) return { reason: fromCi };
  const kpt = kptAbsent();
  if (kpt) return { reason: kpt };
  if (podman(['--version']).status !== 0) return { reason: `podman not on PATH (${REBUILD} installs it and builds the image)` };
  if (podman(['image', 'exists', TEST_IMAGE]).status !== 0) return { reason: `${TEST_IMAGE} is not built (${REBUILD} builds it)` };
  const run = runImage();
  // A developer's image goes stale with every change to src/; CI builds it just before (and says so),
  // so there a mismatch is a failure, not a reason to skip.
  const stale = run.status === 0 && !isDeepStrictEqual(run.files, existsSync(DIST_MAIN) ? builtBundle() : undefined);
  if (stale && !process.env.PV_TEST_IMAGE_BUILT) return { reason: `${TEST_IMAGE} holds another build than dist/ (${REBUILD} rebuilds it)` };
  return { run };
}

const { reason: REASON, run: IMAGE_RUN } = unavailable();
const describeIfImage = describeUnless(REASON, 'the container image suite (test/e2e/image.test.ts)');

interface ImageInspection {
  Config: { User?: string; Entrypoint?: string[] | null; Cmd?: string[] | null; ExposedPorts?: Record<string, unknown> | null };
  RootFS: { Layers: string[] };
}

function inspect(image: string): ImageInspection {
  const result = podman(['image', 'inspect', image]);
  if (result.status !== 0) throw new Error(`podman image inspect ${image}: ${result.stderr}`);
  return (JSON.parse(result.stdout) as ImageInspection[])[0]!;
}

describeIfImage(`the image ${TEST_IMAGE}`, () => {
  it('runs as uid 65534 through an exec-form entrypoint, with no CMD and no ports', () => {
    const { Config } = inspect(TEST_IMAGE);
    expect({ User: Config.User, Entrypoint: Config.Entrypoint, Cmd: Config.Cmd ?? null, ExposedPorts: Config.ExposedPorts ?? null }).toEqual({
      User: '65534:65534',
      Entrypoint: ['node', '/app/main.js'],
      Cmd: null,
      ExposedPorts: null,
    });
  });

  it(`adds only the bundle and its code cache to its base ${BASE_IMAGE}`, () => {
    const base = inspect(BASE_IMAGE).RootFS.Layers;
    expect(inspect(TEST_IMAGE).RootFS.Layers.slice(0, base.length)).toEqual(base);
    const diff = podman(['image', 'diff', '--format', 'json', TEST_IMAGE, BASE_IMAGE]);
    expect(diff.stderr).toBe('');
    expect(JSON.parse(diff.stdout)).toEqual({ added: ['/app', ...[...BUNDLE, ...CODE_CACHES].map((file) => `/app/${file}`)].sort() });
  });

  it('runs without a network as its own non-root user, holding the bundle this checkout builds', () => {
    const run = IMAGE_RUN!;
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
    expect({ uid: run.uid, gid: run.gid }).toEqual({ uid: 65534, gid: 65534 });
    expect(run.files).toEqual(builtBundle());
  });
});

describeExampleCases(describeIfImage, `examples/ through kpt with ${TEST_IMAGE} (KPT_FN_RUNTIME=podman, each case run twice)`, { kind: 'image', image: TEST_IMAGE });

describeIfImage(`package-variant sync renders with ${TEST_IMAGE} in a package's pipeline`, () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pv-image-sync-'));
    emptyRepository(join(dir, 'catalog.git'));
    // The image applies a PackageVariant of the package's own to its package context: what a render leaves behind.
    const own = `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: in-package\n  annotations:\n    config.kubernetes.io/local-config: "true"\nspec:\n  upstream: {repo: catalog, package: app}\n  downstream: {repo: edge1, package: app}\n  packageContext:\n    data:\n      rendered: by-the-image\n`;
    publish(join(dir, 'catalog.git'), 'app', 1, {
      Kptfile: kptfile('app', `pipeline:\n  mutators:\n  - image: ${TEST_IMAGE}\n    configPath: in-package.yaml\n`),
      'in-package.yaml': own,
      'cm.yaml': configMap('cm', { x: '1' }),
    });
    emptyRepository(join(dir, 'edge1.git'));
    writeFleet(dir, { edges: ['edge1'] });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('renders each draft through kpt with podman, the image pulled from nowhere', () => {
    const env = { ...childEnv(), ...GIT_ENV, KPT_FN_RUNTIME: 'podman', PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache'), PACKAGE_VARIANT_STATE_DIR: join(dir, 'state') };
    const run = spawnSync(process.execPath, [DIST_MAIN, 'sync', 'fleet.yaml', '--image-pull-policy', 'Never'], { cwd: dir, env, encoding: 'utf8', timeout: 300_000 });
    expect({ status: run.status, stderr: run.stderr }).toMatchObject({ status: 4 });
    const draft = /refs\/heads\/drafts\/app\/packagevariant-1 (\w+)/.exec(refsOf(join(dir, 'edge1.git')))![1]!;
    const context = show(join(dir, 'edge1.git'), `${draft}:app/package-context.yaml`);
    expect(context).toContain('rendered: by-the-image');
    expect(context).toContain('region: eu');
  });
});
