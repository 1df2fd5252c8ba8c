/**
 * The package-level differential suite: composite packages and non-KRM files, each case recorded
 * from the real `kpt pkg update pkg@v2` (test/fixtures/differential/packages). For each, the same
 * repositories are rebuilt (same commits) and `package-variant update pkg@v2` runs in git mode on
 * the package kpt started from. The result must equal kpt's, file by file, Kptfile upstream and lock
 * included; where it does not, the difference must be a row of the README's deviation table and our
 * result the documented one there. A fixture's `layout` files must be kpt's text, kpt's bookkeeping aside.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDiskTree } from '../../src/disk/disk-tree';
import { UpdateError, updateFromGit } from '../../src/update/git-update';
import { readmeDeviations } from './deviations';
import { compareTrees, withoutBookkeeping, type FileDifference } from './package-compare';
import { attributePackageDifference, attributeRefusal, type PackageClaim } from './package-deviations';
import { summaryLines, type Verdict } from './verdicts';
import { buildRepositories, bytesOf, gitEnvironment, loadPackageFixtures, writeFixtureTree, type PackageFixture, type Tree } from './package-fixtures';

// Each case runs git mode on real repositories: seconds each on a busy 2-core machine.
jest.setTimeout(60_000);

function treeOnDisk(dir: string): Tree {
  const tree = readDiskTree(dir);
  const files: Tree['files'] = {};
  const modes: Tree['modes'] = {};
  for (const [path, file] of tree.files) {
    files[path] = file.bytes;
    if ((file.mode & 0o777) !== 0o644) modes[path] = (file.mode & 0o777).toString(8);
  }
  const occupied = [...tree.files.keys(), ...tree.dirs];
  const emptyDirs = [...tree.dirs].filter((d) => !occupied.some((p) => p.startsWith(`${d}/`))).sort();
  return { files, modes, ...(emptyDirs.length ? { emptyDirs } : {}) };
}

async function runCase(f: PackageFixture): Promise<Verdict> {
  const dir = mkdtempSync(join(tmpdir(), 'pv-pkg-diff-'));
  const problems: string[] = [];
  const deviations = new Set<string>();
  try {
    buildRepositories(f, dir);
    const pkg = join(dir, 'pkg');
    writeFixtureTree(pkg, f.local);
    let failure: string | undefined;
    let messages: string[] = [];
    try {
      const outcome = await updateFromGit({ pkg, ref: 'v2', strategy: f.strategy, env: gitEnvironment(dir) });
      messages = outcome.results.map((r) => r.message);
      if (!outcome.plan) failure = outcome.results.filter((r) => r.severity === 'error').map((r) => r.message).join(' | ');
    } catch (error) {
      if (!(error instanceof UpdateError)) throw error;
      failure = error.message;
    }
    const ours = treeOnDisk(pkg);
    const judge = (where: string, claim: PackageClaim | undefined, otherwise: () => string) => {
      if (!claim) problems.push(otherwise());
      else if (!LISTED.has(claim.deviation)) problems.push(`${where}: a deviation the README's table does not list: "${claim.deviation}"`);
      else if (claim.mismatch) problems.push(`${where}: matches "${claim.deviation}" but our result is not the documented one: ${claim.mismatch}`);
      else deviations.add(claim.deviation);
    };
    if (f.kpt.exitCode !== 0) {
      if (failure === undefined) judge('the update', attributeRefusal(f, ours, messages), () => `kpt refused (${f.kpt.error}) but package-variant updated the package`);
      else if (compareTrees(f.local, ours).length) problems.push(`package-variant refused (${failure}) but changed the package`);
      return { outcome: problems.length ? 'failed' : deviations.size ? 'deviations' : 'both refused', deviations, problems };
    }
    if (failure !== undefined) return { outcome: 'failed', deviations, problems: [`kpt updated the package, package-variant refused: ${failure}`] };
    const kpt: Tree = { files: f.kpt.files ?? {}, modes: f.kpt.modes ?? {}, ...(f.kpt.emptyDirs ? { emptyDirs: f.kpt.emptyDirs } : {}) };
    for (const difference of compareTrees(kpt, ours)) {
      judge(difference.path, attributePackageDifference(f, kpt, ours, difference), () => describeDifference(difference, kpt, ours));
    }
    for (const path of f.layout ?? []) {
      const [k, o] = [kpt.files[path], ours.files[path]].map((content) => content && withoutBookkeeping(bytesOf(content).toString('utf8')));
      if (k !== o) problems.push(`${path}: not kpt's text (kpt's bookkeeping aside)\n    kpt:\n${show(k)}\n    ours:\n${show(o)}`);
    }
    return { outcome: problems.length ? 'failed' : deviations.size ? 'deviations' : 'equal', deviations, problems };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function show(content: Tree['files'][string] | undefined): string {
  if (content === undefined) return '(absent)';
  const text = Buffer.from(content).toString('utf8');
  return text.split('\n').map((l) => `      ${l}`).join('\n');
}

function describeDifference(d: FileDifference, kpt: Tree, ours: Tree): string {
  if (d.kind === 'mode') return `${d.path}: kpt's mode ${kpt.modes[d.path] ?? '644'}, ours ${ours.modes[d.path] ?? '644'}`;
  return `${d.path}: ${d.kind}\n    kpt:\n${show(kpt.files[d.path])}\n    ours:\n${show(ours.files[d.path])}`;
}

const LISTED = new Set(readmeDeviations());
const fixtures = loadPackageFixtures();
const verdicts = new Map<string, Verdict>();

describe('package differential: package-variant update (git mode) against recorded kpt pkg update', () => {
  afterAll(() => {
    console.log(summaryLines('package differential vs kpt', verdicts).join('\n'));
  });

  it('covers every family with every strategy', () => {
    const pairs = new Set(fixtures.filter((f) => f.family !== 'named').map((f) => `${f.family} ${f.strategy}`));
    expect(pairs.size).toBe(18);
  });

  it.each(fixtures.map((f) => [`${f.file} (${f.family}, ${f.strategy})`, f] as const))('%s', async (_name, f) => {
    const verdict = await runCase(f);
    verdicts.set(f.file, verdict);
    if (verdict.problems.length) throw new Error(`${f.file} differs from kpt:\n\n${verdict.problems.join('\n\n')}\n\nedits:\n${f.ops.map((o) => `  ${o}`).join('\n')}`);
  });
});
