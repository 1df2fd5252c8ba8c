/**
 * The git processes of a sync, read from git's own trace (GIT_TRACE2_EVENT): a fixed number a
 * repository however many packages it holds (issue 29): one fetch, one `cat-file` for every read,
 * one `fast-import`, one push; each ended by sync before it returns, none left running or killed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_TIMEOUTS } from '../../src/git/run-git';
import { readSyncInputs } from '../../src/sync/inputs';
import { gitRemotes } from '../../src/sync/remotes';
import { planSync, writePlan } from '../../src/sync/run';
import type { Lifecycle } from '../../src/sync/state';
import { configMap, kptfile } from '../pkg/trees';
import { emptyRepository, GIT_ENV, publish } from './porch-repos';

jest.setTimeout(120_000);

let dir: string;

/** A set sending `app` of the catalog to edge1 once and to edge2 as five packages. */
function fleet(workspace: string): string {
  const file = join(dir, `fleet-${workspace}.yaml`);
  const repositories = ['catalog', 'edge1', 'edge2']
    .map((name) => `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\nmetadata:\n  name: ${name}\nspec:\n  type: git\n  deployment: ${name !== 'catalog'}\n  git:\n    repo: ./${name}.git\n`)
    .join('---\n');
  const set = `apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariantSet\nmetadata:\n  name: fleet\nspec:\n  upstream:\n    repo: catalog\n    package: app\n    workspaceName: ${workspace}\n  targets:\n  - repositories:\n    - name: edge1\n      packageNames: [a]\n    - name: edge2\n      packageNames: [a, b, c, d, e]\n`;
  writeFileSync(file, `${repositories}---\n${set}`);
  return file;
}

interface Process {
  readonly command: string;
  readonly gitDir: string;
  exitCode?: number;
}

/** The processes sync started (not those git started itself), from the trace. */
function processesOf(trace: string): Process[] {
  const bySid = new Map<string, Process>();
  for (const line of readFileSync(trace, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    const event = JSON.parse(line) as { sid: string; event: string; argv?: string[]; code?: number };
    if (event.sid.includes('/')) continue;
    if (event.event === 'start') {
      const argv = event.argv!;
      let command = '';
      let gitDir = '';
      for (let i = 1; i < argv.length && !command; i += 1) {
        if (argv[i] === '--git-dir') gitDir = argv[++i]!;
        else if (argv[i] === '-c') i += 1;
        else if (!argv[i]!.startsWith('-')) command = argv[i]!;
      }
      bySid.set(event.sid, { command, gitDir });
    } else if (event.event === 'exit') bySid.get(event.sid)!.exitCode = event.code!;
  }
  return [...bySid.values()];
}

/** One run of sync (planned and written) with git's trace in `trace`: the processes by repository cache entry, each a sorted list of commands. */
async function traced(workspace: string, lifecycle: Lifecycle, trace: string): Promise<{ byEntry: string[][]; all: Process[] }> {
  const settings = { lifecycle, diff: false, open: gitRemotes({ env: { ...GIT_ENV, PACKAGE_VARIANT_CACHE_DIR: join(dir, 'cache'), GIT_TRACE2_EVENT: trace }, timeouts: DEFAULT_TIMEOUTS, notify: () => undefined }) };
  const { plan, remotes } = await planSync(readSyncInputs([fleet(workspace)]), settings);
  expect(await writePlan(plan, remotes)).toEqual([]);
  const all = processesOf(trace);
  const byEntry = new Map<string, string[]>();
  for (const p of all.filter((p) => p.command !== 'var')) (byEntry.get(p.gitDir) ?? byEntry.set(p.gitDir, []).get(p.gitDir)!).push(p.command);
  return { byEntry: [...byEntry.values()].map((commands) => commands.sort()), all };
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-sync-processes-'));
  emptyRepository(join(dir, 'catalog.git'));
  publish(join(dir, 'catalog.git'), 'app', 1, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '1' }), 'sub/deep.yaml': configMap('deep', { x: '1' }) });
  publish(join(dir, 'catalog.git'), 'app', 2, { Kptfile: kptfile('app'), 'cm.yaml': configMap('cm', { x: '2' }), 'sub/deep.yaml': configMap('deep', { x: '2' }) });
  for (const edge of ['edge1', 'edge2']) emptyRepository(join(dir, `${edge}.git`));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the git processes of a sync', () => {
  it('are one fetch, one cat-file, one fast-import and one push a repository written, whether it holds one package or five; each ended', async () => {
    const written = ['cat-file', 'fast-import', 'fetch', 'push'];
    for (const [phase, workspace, lifecycle] of [
      ['create', 'v1', 'draft'],
      ['publish', 'v1', 'published'],
      ['upgrade', 'v2', 'draft'],
    ] as const) {
      const { byEntry, all } = await traced(workspace, lifecycle, join(dir, `trace-${phase}.json`));
      // The two edges, written; the catalog, read.
      expect(byEntry.filter((commands) => commands.includes('push'))).toEqual([written, written]);
      expect(byEntry.filter((commands) => !commands.includes('push'))).toEqual([['cat-file', 'fetch']]);
      // The identity of the run's commits, asked once a run.
      expect(all.filter((p) => p.command === 'var').length).toBe(2);
      expect(all.filter((p) => p.exitCode !== 0)).toEqual([]);
    }
  });

  it('are one fetch and one cat-file a repository when there is nothing to do', async () => {
    const { byEntry, all } = await traced('v2', 'draft', join(dir, 'trace-no-op.json'));
    expect(byEntry).toEqual([
      ['cat-file', 'fetch'],
      ['cat-file', 'fetch'],
      ['cat-file', 'fetch'],
    ]);
    expect(all.filter((p) => p.exitCode !== 0)).toEqual([]);
  });
});
