/**
 * Tests for scripts/kpt-oracle.sh, which drives the real kpt binary as a
 * three-way-merge oracle. Skipped (with a warning) when kpt is not on PATH.
 */
import { spawnSync, SpawnSyncReturns } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parse } from 'yaml';
import { describeUnless, kptAbsent } from '../skip-notice';

const SCRIPT = path.resolve(__dirname, '../../scripts/kpt-oracle.sh');
const TIMEOUT_MS = 60_000;

const describeIfKpt = describeUnless(kptAbsent(), 'scripts/kpt-oracle.sh tests (test/oracle/kpt-oracle.test.ts)');

function writeFiles(dir: string, files: Record<string, string>): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(dir, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
}

/** Every file below `dir`, keyed by relative path, with its exact bytes. */
function readTree(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (sub: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = path.join(sub, entry.name);
      if (entry.isDirectory()) walk(rel);
      else out.set(rel, fs.readFileSync(path.join(dir, rel)));
    }
  };
  walk('');
  return out;
}

function runOracle(
  origin: string,
  upstream: string,
  local: string,
  out: string,
  strategy?: string,
): SpawnSyncReturns<string> {
  const args = [SCRIPT, origin, upstream, local, out];
  if (strategy !== undefined) args.push(strategy);
  return spawnSync('bash', args, { encoding: 'utf8', timeout: TIMEOUT_MS });
}

const ORIGIN_DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.25
`;

const UPSTREAM_DEPLOYMENT = ORIGIN_DEPLOYMENT.replace('replicas: 1', 'replicas: 3');

const LOCAL_DEPLOYMENT = ORIGIN_DEPLOYMENT.replace(
  'metadata:\n  name: web\n',
  'metadata:\n  name: web\n  labels:\n    team: payments\n',
);

const CONFIG_MAP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: blue
`;

const SERVICE = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
  - port: 80
`;

describeIfKpt('scripts/kpt-oracle.sh (real kpt as merge oracle)', () => {
  let tmp: string;
  let origin: string;
  let upstream: string;
  let local: string;

  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'kpt-oracle-test-'));
    origin = path.join(tmp, 'origin');
    upstream = path.join(tmp, 'upstream');
    local = path.join(tmp, 'local');
    writeFiles(origin, { 'deployment.yaml': ORIGIN_DEPLOYMENT, 'configmap.yaml': CONFIG_MAP });
    writeFiles(upstream, { 'deployment.yaml': UPSTREAM_DEPLOYMENT, 'service.yaml': SERVICE });
    writeFiles(local, { 'deployment.yaml': LOCAL_DEPLOYMENT, 'configmap.yaml': CONFIG_MAP });
  });

  afterAll(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  describe('resource-merge', () => {
    let out1: string;
    let run1: SpawnSyncReturns<string>;

    beforeAll(() => {
      out1 = path.join(tmp, 'out-merge-1');
      run1 = runOracle(origin, upstream, local, out1);
    }, TIMEOUT_MS);

    it('exits 0', () => {
      expect(run1.error).toBeUndefined();
      expect(run1.stderr).toBe('');
      expect(run1.status).toBe(0);
    });

    it('takes the upstream replicas and keeps the local label', () => {
      const text = fs.readFileSync(path.join(out1, 'deployment.yaml'), 'utf8');
      const doc = parse(text);
      expect(doc.spec.replicas).toBe(3);
      expect(doc.metadata.labels).toEqual({ team: 'payments' });
      expect(doc.spec.template.spec.containers[0].image).toBe('nginx:1.25');
    });

    it('deletes the ConfigMap deleted upstream and unchanged locally', () => {
      expect(fs.existsSync(path.join(out1, 'configmap.yaml'))).toBe(false);
    });

    it('adds the Service added upstream', () => {
      const text = fs.readFileSync(path.join(out1, 'service.yaml'), 'utf8');
      expect(parse(text)).toMatchObject({ kind: 'Service', metadata: { name: 'web' } });
    });

    it('carries the kpt-merge comment and the upstream-identifier annotation', () => {
      const deployment = fs.readFileSync(path.join(out1, 'deployment.yaml'), 'utf8');
      expect(deployment).toContain('metadata: # kpt-merge: /web\n');
      expect(parse(deployment).metadata.annotations).toEqual({
        'internal.kpt.dev/upstream-identifier': 'apps|Deployment|default|web',
      });
      const service = fs.readFileSync(path.join(out1, 'service.yaml'), 'utf8');
      expect(service).toContain('metadata: # kpt-merge: /web\n');
      expect(parse(service).metadata.annotations).toEqual({
        'internal.kpt.dev/upstream-identifier': '|Service|default|web',
      });
    });

    it('writes a Kptfile pointing at the fixed oracle URL and v2', () => {
      const text = fs.readFileSync(path.join(out1, 'Kptfile'), 'utf8');
      const kptfile = parse(text);
      expect(kptfile.upstream.git).toMatchObject({ repo: 'file:///kpt-oracle/upstream', directory: '/pkg', ref: 'v2' });
      expect(kptfile.upstream.updateStrategy).toBe('resource-merge');
      expect(kptfile.upstreamLock.git).toMatchObject({ repo: 'file:///kpt-oracle/upstream', ref: 'v2' });
      expect(kptfile.upstreamLock.git.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(text).not.toContain(os.tmpdir());
    });

    it('lists exactly the expected files', () => {
      expect([...readTree(out1).keys()].sort()).toEqual(['Kptfile', 'deployment.yaml', 'service.yaml']);
    });

    it(
      'gives a byte-identical output tree on a second run',
      () => {
        const out2 = path.join(tmp, 'out-merge-2');
        const run2 = runOracle(origin, upstream, local, out2, 'resource-merge');
        expect(run2.status).toBe(0);
        const tree1 = readTree(out1);
        const tree2 = readTree(out2);
        expect([...tree2.keys()].sort()).toEqual([...tree1.keys()].sort());
        for (const [rel, bytes] of tree1) {
          expect({ rel, text: tree2.get(rel)?.toString('utf8') }).toEqual({ rel, text: bytes.toString('utf8') });
          expect(tree2.get(rel)?.equals(bytes)).toBe(true);
        }
      },
      TIMEOUT_MS,
    );
  });

  describe('fast-forward', () => {
    it(
      'exits 3 (kpt refused) when the local package was modified',
      () => {
        const out = path.join(tmp, 'out-ff-modified');
        const run = runOracle(origin, upstream, local, out, 'fast-forward');
        expect(run.error).toBeUndefined();
        expect(run.status).toBe(3);
        expect(run.stderr).toMatch(/local package files have been modified/);
        // Whatever kpt left behind is still copied out: the unmerged local files.
        const deployment = parse(fs.readFileSync(path.join(out, 'deployment.yaml'), 'utf8'));
        expect(deployment.spec.replicas).toBe(1);
        expect(deployment.metadata.labels).toEqual({ team: 'payments' });
        expect(fs.existsSync(path.join(out, 'service.yaml'))).toBe(false);
      },
      TIMEOUT_MS,
    );

    it(
      'exits 0 and takes upstream when the local package is unmodified',
      () => {
        const out = path.join(tmp, 'out-ff-clean');
        const run = runOracle(origin, upstream, origin, out, 'fast-forward');
        expect(run.status).toBe(0);
        expect([...readTree(out).keys()].sort()).toEqual(['Kptfile', 'deployment.yaml', 'service.yaml']);
        expect(parse(fs.readFileSync(path.join(out, 'deployment.yaml'), 'utf8')).spec.replicas).toBe(3);
      },
      TIMEOUT_MS,
    );
  });

  describe('argument errors', () => {
    it('exits 2 on an unknown strategy', () => {
      const run = runOracle(origin, upstream, local, path.join(tmp, 'out-bad'), 'three-way');
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/unknown strategy/);
    });

    it('exits 2 when OUT_DIR is not empty', () => {
      const run = runOracle(origin, upstream, local, origin);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(/OUT_DIR is not empty/);
    });
  });
});
