/**
 * The README's CI workflow as a CI runner would run it: the sync job's command line for each of its
 * shards, from a clone of this repository laid where the workflow checks it out, then the gate job's
 * script on the status files the shards wrote. The gate needs mikefarah's yq v4
 * (scripts/install-test-tools.sh builds it); without it the suite is skipped with one line.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../helpers';
import { describeUnless } from '../skip-notice';
import { catalogAndEdges, GIT_ENV, writeFleet } from './porch-repos';

// Each test runs several syncs on real git repositories: seconds each on a busy 2-core machine.
jest.setTimeout(60_000);

interface Step {
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
  'working-directory'?: string;
}
interface Workflow {
  jobs: { sync: { strategy: { matrix: { shard: number[] } }; steps: Step[] }; gate: { needs: string; steps: Step[] } };
}

const YQ_V4 = /^yq \(https:\/\/github\.com\/mikefarah\/yq\/\) version v4\./;

const isYqV4 = (command: string) => {
  const probe = spawnSync(command, ['--version'], { encoding: 'utf8' });
  return probe.status === 0 && YQ_V4.test(probe.stdout);
};
/** Where scripts/install-test-tools.sh builds its tools. */
const TOOLS_BIN = join(process.env.PV_TOOLS_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'package-variant', 'tools'), 'bin');
/** PATH for the gate: the project's tool cache first when it holds yq v4, else PATH as it is. */
const gatePath = isYqV4(join(TOOLS_BIN, 'yq')) ? `${TOOLS_BIN}:${process.env.PATH}` : process.env.PATH;
const yqMissing = isYqV4(join(TOOLS_BIN, 'yq')) || isYqV4('yq') ? undefined : "mikefarah's yq v4 is not built (bash scripts/install-test-tools.sh builds it with Go)";

function readmeWorkflow(): Workflow {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const block = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).find((text) => text.startsWith('# GitHub Actions\n'));
  if (block === undefined) throw new Error('README.md has no ```yaml block starting "# GitHub Actions"');
  return parse(block) as Workflow;
}

let dir: string;
const fleet = () => join(dir, 'fleet');

function bash(script: string) {
  const env = { ...process.env, ...GIT_ENV, PATH: gatePath, PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache'), PACKAGE_VARIANT_STATE_DIR: join(dir, 'state') };
  const run = spawnSync('bash', ['-e', '-c', script], { cwd: dir, env, encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** Every shard of the sync job, as the runner runs its last step; the exit code of each. */
function runSyncJob(workflow: Workflow): (number | null)[] {
  const step = workflow.jobs.sync.steps.find((s) => s.run?.includes(' sync '));
  expect(step?.run).toBeDefined();
  return workflow.jobs.sync.strategy.matrix.shard.map((shard) => bash(step!.run!.replaceAll('${{ matrix.shard }}', String(shard))).code);
}

function runGate(workflow: Workflow) {
  const step = workflow.jobs.gate.steps.find((s) => s.run !== undefined);
  return bash(step!.run!);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-ci-snippets-'));
  mkdirSync(fleet());
  catalogAndEdges(fleet());
  writeFleet(fleet());
  // The workflow checks package-variant out into .package-variant and builds it there.
  symlinkSync(REPO_ROOT, join(dir, '.package-variant'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("the README's GitHub Actions workflow", () => {
  const workflow = readmeWorkflow();

  it('builds package-variant from a clone at a release tag, not with npx, before the shards run it', () => {
    const steps = workflow.jobs.sync.steps;
    const clone = steps.find((s) => s.with?.path === '.package-variant');
    expect(clone?.uses).toMatch(/^actions\/checkout@/);
    expect(clone?.with?.ref).toMatch(/^v\d/);
    expect(steps.find((s) => s['working-directory'] === '.package-variant')?.run).toBe('npm ci && npm run build');
    expect(steps.filter((s) => s.run?.includes('npx'))).toEqual([]);
    expect(existsSync(join(REPO_ROOT, 'dist/main.js'))).toBe(true);
    expect(workflow.jobs.gate.needs).toBe('sync');
  });

  describeUnless(yqMissing, "the README's status gate (test/sync/ci-snippets.test.ts)")('its gate', () => {
    it('fails the job naming a variant that is not Ready, and passes once every variant is', () => {
      const invalid = 'apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: broken\nspec:\n  upstream: {repo: catalog, package: app, revision: 1}\n  downstream: {repo: edge1}\n';
      writeFileSync(join(fleet(), 'broken.yaml'), invalid);
      const codes = runSyncJob(workflow);
      // The shard holding the invalid variant fails its job (sync's exit 5 is not the 4 the step
      // accepts); the others, with nothing of theirs to do, pass.
      expect([...codes].sort()).toEqual([0, 0, 0, 1]);
      expect(readdirSync(dir).filter((f) => f.startsWith('status-')).sort()).toEqual(['status-0.yaml', 'status-1.yaml', 'status-2.yaml', 'status-3.yaml']);
      const failing = runGate(workflow);
      expect(failing.code).toBe(1);
      expect(failing.stdout).toBe('PackageVariant broken: invalid packagevariant object\n');

      rmSync(join(fleet(), 'broken.yaml'));
      expect(runSyncJob(workflow).every((c) => c === 0)).toBe(true);
      const passing = runGate(workflow);
      expect(passing).toEqual({ code: 0, stdout: '', stderr: '' });
    });
  });
});
