/**
 * Issue 30: the Porch workflow through the command line, judged with plain git. Create drafts,
 * propose them, a scheduled plain sync that leaves the proposals alone, reject one, approve another,
 * a variant change that meets a proposal, a hotfix on the branch that publishing would replace,
 * one downstream acted on with --only, a deletion proposed and withdrawn; `rpkg get` lists each
 * step as porchctl would.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git } from '../pkg/git-repos';
import { catalogAndEdges, packageVariant, refsOf, show, writeFleet } from './porch-repos';

// Each test runs several syncs on real git repositories: seconds each on a busy 2-core machine.
jest.setTimeout(60_000);

let dir: string;
const repo = (name: string) => join(dir, `${name}.git`);
const allRefs = () => ['edge1', 'edge2'].map((edge) => refsOf(repo(edge))).join('\n');
const refNames = (name: string) => git(['--git-dir', repo(name), 'for-each-ref', '--format=%(refname)']).split('\n').filter(Boolean);

const run = (args: string[]) => packageVariant(dir, args);
const sync = (...args: string[]) => run(['sync', 'fleet.yaml', '--no-render', ...args]);
const rpkg = (verb: string, ...args: string[]) => run(['rpkg', verb, ...args, '-f', 'fleet.yaml']);

/** `rpkg get`'s rows of the deployment repositories: name, revision, latest, lifecycle. */
function listed(): string[][] {
  const got = rpkg('get');
  expect(got.code).toBe(0);
  const [header, ...rows] = got.stdout.trimEnd().split('\n').map((line) => line.split(/ {3,}/));
  expect(header).toEqual(['NAME', 'PACKAGE', 'WORKSPACENAME', 'REVISION', 'LATEST', 'LIFECYCLE', 'REPOSITORY', 'UPSTREAM']);
  return rows.filter((row) => row[6] !== 'catalog').map((row) => [row[0]!, row[3]!, row[4]!, row[5]!]);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-porch-workflow-'));
  catalogAndEdges(dir);
  writeFleet(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the Porch workflow through the command line', () => {
  it('creates, proposes, keeps proposals under a plain sync, rejects, approves, and warns of a hotfix publishing replaces', () => {
    expect(sync().code).toBe(4);
    expect(listed()).toEqual([
      ['edge1.app.packagevariant-1', '0', 'false', 'Draft'],
      ['edge2.app.packagevariant-1', '0', 'false', 'Draft'],
    ]);

    const proposed = rpkg('propose', '--all');
    expect(proposed.code).toBe(4);
    expect(proposed.stdout).toContain('  propose     app  draft edge1.app.packagevariant-1 -> proposed/app/packagevariant-1\n');
    expect(refNames('edge1')).toEqual(['refs/heads/main', 'refs/heads/proposed/app/packagevariant-1']);

    // The scheduled plain sync: nothing to do, and the proposals stay.
    const before = allRefs();
    const scheduled = sync();
    expect(scheduled.code).toBe(0);
    expect(allRefs()).toBe(before);

    expect(rpkg('reject', 'edge1.app.packagevariant-1').code).toBe(4);
    const approved = rpkg('approve', 'edge2.app.packagevariant-1');
    expect(approved.code).toBe(4);
    expect(approved.stdout).toContain('  publish     app  proposed edge2.app.packagevariant-1 -> main, tag app/v1\n');
    expect(refNames('edge1')).toEqual(['refs/heads/drafts/app/packagevariant-1', 'refs/heads/main']);
    expect(refNames('edge2')).toEqual(['refs/heads/main', 'refs/tags/app/v1']);
    const main = git(['--git-dir', repo('edge2'), 'rev-parse', 'main']);
    expect(git(['--git-dir', repo('edge2'), 'rev-parse', 'app/v1'])).toBe(main);
    expect(git(['--git-dir', repo('edge2'), 'log', '-1', '--format=%s%n%P', main]).split('\n')[0]).toBe('Approving package revision app/1');
    expect(git(['--git-dir', repo('edge2'), 'log', '-1', '--format=%P', main]).split(' ')).toHaveLength(2);
    expect(listed()).toEqual([
      ['edge1.app.packagevariant-1', '0', 'false', 'Draft'],
      ['edge2.app.main', '-1', 'false', 'Published'],
      ['edge2.app.packagevariant-1', '1', 'true', 'Published'],
    ]);

    // A variant change meets edge1's proposal: blocked until someone approves or rejects it.
    expect(rpkg('propose', 'edge1.app.packagevariant-1').code).toBe(4);
    writeFileSync(join(dir, 'fleet.yaml'), readFileSync(join(dir, 'fleet.yaml'), 'utf8').replace('region: eu', 'region: us'));
    const blocked = sync('--only', 'edge1');
    expect(blocked.code).toBe(5);
    expect(blocked.stdout).toMatch(/  blocked +app +the variant changes proposal edge1\.app\.packagevariant-1, which awaits approval: approve or reject it/);
    expect(blocked.stdout).not.toContain('edge2');
    expect(rpkg('reject', 'edge1.app.packagevariant-1').code).toBe(4);
    const updated = sync('--only', 'edge1/app');
    expect(updated.code).toBe(4);
    expect(updated.stdout).toMatch(/  update +app +draft edge1\.app\.packagevariant-1 -> drafts\/app\/packagevariant-1/);
    const edge1Draft = git(['--git-dir', repo('edge1'), 'rev-parse', 'drafts/app/packagevariant-1']);
    expect(show(repo('edge1'), `${edge1Draft}:app/package-context.yaml`)).toContain('region: us');

    // A hotfix on edge2's branch, then an edit of edge2 proposed and approved: the approval warns.
    const work = join(dir, 'hotfix');
    git(['clone', '-q', repo('edge2'), work]);
    writeFileSync(join(work, 'app', 'cm.yaml'), readFileSync(join(work, 'app', 'cm.yaml'), 'utf8').replace('x: "1"', 'x: "7"'));
    git(['commit', '-qam', 'hotfix: x is 7'], work);
    git(['push', '-q', 'origin', 'main'], work);
    expect(sync('--only', 'edge2', '--lifecycle', 'proposed').code).toBe(4);
    const diff = rpkg('approve', 'edge2.app.packagevariant-2', '--diff');
    expect(diff.code).toBe(4);
    expect(diff.stdout).toContain('      warning: app on main differs from its latest revision app/v1 (changed there outside its revisions): publishing replaces those changes\n');
    expect(diff.stdout).toMatch(/  app: what publishing replaces on main\ndiff --git a\/app\/cm.yaml b\/app\/cm.yaml\n(.*\n)*-  x: "7"\n\+  x: "1"\n/);
    expect(rpkg('approve', 'edge2.app.packagevariant-2').code).toBe(4);
    expect(git(['--git-dir', repo('edge2'), 'rev-parse', 'app/v2'])).toBe(git(['--git-dir', repo('edge2'), 'rev-parse', 'main']));

    // A deletion proposed, then withdrawn.
    expect(rpkg('propose-delete', 'edge2.app.packagevariant-1').code).toBe(4);
    expect(refNames('edge2')).toContain('refs/heads/deletionProposed/app/v1');
    expect(listed()).toContainEqual(['edge2.app.packagevariant-1', '1', 'false', 'DeletionProposed']);
    expect(rpkg('reject', 'edge2.app.packagevariant-1').code).toBe(4);
    expect(refNames('edge2')).not.toContain('refs/heads/deletionProposed/app/v1');
  });

  it('refuses a name it cannot act on, naming it, and pushes nothing', () => {
    expect(sync().code).toBe(4);
    const before = allRefs();
    const unknown = rpkg('approve', 'edge1.app.packagevariant-9', 'edge2.app.packagevariant-1');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      [
        'package-variant rpkg approve: no package revision edge1.app.packagevariant-9 in the fleet\'s repositories (package-variant rpkg get lists them)',
        'package-variant rpkg approve: edge2.app.packagevariant-1 is Draft: approve takes Proposed revisions',
        'package-variant rpkg approve: nothing was pushed',
        '',
      ].join('\n'),
    );
    expect(allRefs()).toBe(before);
    expect(run(['rpkg', 'approve', '-f', 'fleet.yaml']).stderr).toContain('approve takes package revision names (as rpkg get lists them) or --all, one of the two');
    expect(run(['sync', 'fleet.yaml', '--only', 'Edge 1']).code).toBe(2);
  });
});
