/**
 * Symbolic links in the local package, origin or upstream, on disk and in git: never followed out of
 * the package, never written through, reported and left as they are; an error only where the update
 * would have to write through one.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { updateFromDirectories } from '../../src/update/update';
import { updateFromGit } from '../../src/update/git-update';
import { fetchedKptfile, git, GIT_ENV } from './git-repos';
import { configMap, kptfile, writeFiles, type Files } from './trees';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-links-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const BASE: Files = { Kptfile: kptfile('pkg'), 'cm.yaml': configMap('cm', { v: '1' }) };
const at = (...parts: string[]) => join(dir, ...parts);
const read = (...parts: string[]) => readFileSync(at(...parts), 'utf8');

/** The three versions on disk; `links` adds symbolic links (side/path -> target) after the files. */
function versions(origin: Files, upstream: Files, local: Files, links: Record<string, string> = {}) {
  writeFiles(at('origin'), origin);
  writeFiles(at('upstream'), upstream);
  writeFiles(at('local'), local);
  for (const [path, target] of Object.entries(links)) {
    mkdirSync(join(at(path), '..'), { recursive: true });
    symlinkSync(target, at(path));
  }
  return () => updateFromDirectories({ local: at('local'), origin: at('origin'), upstream: at('upstream') });
}

const messages = (outcome: { results: { severity: string; message: string }[] }) => outcome.results.map((r) => `${r.severity}: ${r.message}`);

describe('symbolic links in the local package', () => {
  it('a linked file whose target is outside is not written through: the update stops, naming it, and nothing is written', () => {
    writeFiles(at('outside'), { 'cm.yaml': configMap('cm', { v: '1' }) });
    const update = versions(BASE, { ...BASE, 'cm.yaml': configMap('cm', { v: '2' }), 'new.md': 'n\n' }, { Kptfile: kptfile('pkg') }, { 'local/cm.yaml': '../outside/cm.yaml' });
    const outcome = update();
    expect(outcome.plan).toBeUndefined();
    expect(messages(outcome)).toEqual([
      'error: cm.yaml is a symbolic link in the local package, and upstream changes what lies there; the update never writes through a symbolic link: replace the link with a copy of what it points to, or delete it, and update again',
    ]);
    expect(read('outside', 'cm.yaml')).toBe(configMap('cm', { v: '1' }));
    expect(existsSync(at('local', 'new.md'))).toBe(false);
  });

  it('through a linked directory, upstream neither creates nor deletes files outside the package', () => {
    writeFiles(at('outside'), { 'old.md': 'old\n' });
    const origin = { ...BASE, 'shared/old.md': 'old\n' };
    const adds = versions(origin, { ...origin, 'shared/new.md': 'new\n' }, BASE, { 'local/shared': '../outside' })();
    expect(adds.plan).toBeUndefined();
    expect(messages(adds)[0]).toMatch(/^error: shared is a symbolic link in the local package, and upstream changes what lies there/);
    expect(existsSync(at('outside', 'new.md'))).toBe(false);

    rmSync(at('upstream'), { recursive: true });
    writeFiles(at('upstream'), { ...BASE, 'cm.yaml': configMap('cm', { v: '2' }) });
    const deletes = updateFromDirectories({ local: at('local'), origin: at('origin'), upstream: at('upstream') });
    expect(messages(deletes)).toContain("warning: shared is a symbolic link in the local package; the update leaves shared as it is, and upstream's change there is not applied");
    expect(read('outside', 'old.md')).toBe('old\n');
    expect(lstatSync(at('local', 'shared')).isSymbolicLink()).toBe(true);
    expect(read('local', 'cm.yaml')).toBe(configMap('cm', { v: '2' }));
  });

  it('a dangling link, even README.md, does not stop the update; it is reported and stays', () => {
    const update = versions({ ...BASE, 'README.md': 'v1\n' }, { ...BASE, 'README.md': 'v1\n', 'cm.yaml': configMap('cm', { v: '2' }) }, BASE, { 'local/README.md': 'nowhere/README.md' });
    const outcome = update();
    expect(messages(outcome)).toContain('info: README.md is a symbolic link in the local package; the update leaves it as it is');
    expect(read('local', 'cm.yaml')).toBe(configMap('cm', { v: '2' }));
    expect(readlinkSync(at('local', 'README.md'))).toBe('nowhere/README.md');
  });
});

describe('symbolic links in origin and upstream', () => {
  it('an upstream link to a file outside (a Secret) brings nothing into the package', () => {
    writeFiles(at('outside'), { 'secret.yaml': 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: aHVudGVyMg==\n' });
    const update = versions(BASE, BASE, BASE, { 'upstream/secret.yaml': '../outside/secret.yaml', 'upstream/docs': '../outside' });
    const outcome = update();
    expect(existsSync(at('local', 'secret.yaml'))).toBe(false);
    expect(existsSync(at('local', 'docs'))).toBe(false);
    expect(outcome.plan?.writes).toEqual([]);
    expect(messages(outcome)).toEqual(
      expect.arrayContaining([
        "warning: secret.yaml is a symbolic link in upstream; the update leaves secret.yaml as it is, and upstream's change there is not applied",
        "warning: docs is a symbolic link in upstream; the update leaves docs as it is, and upstream's change there is not applied",
      ]),
    );
  });

  it('a dangling upstream link where origin had a file leaves the local file as it is (it is not a deletion)', () => {
    const withReadme = { ...BASE, 'README.md': 'readme\n' };
    const outcome = versions(withReadme, { ...BASE, 'cm.yaml': configMap('cm', { v: '2' }) }, withReadme, { 'upstream/README.md': 'nowhere' })();
    expect(read('local', 'README.md')).toBe('readme\n');
    expect(outcome.plan?.removes).toEqual([]);
    expect(read('local', 'cm.yaml')).toBe(configMap('cm', { v: '2' }));
  });

  it('git mode: a file upstream turned into a symbolic link stays in the local package, and a link to a Secret brings nothing', async () => {
    const work = at('repo-src');
    const bare = at('repo.git');
    git(['init', '-q', work]);
    writeFiles(work, { 'pkg/Kptfile': kptfile('pkg'), 'pkg/cm.yaml': configMap('cm', { v: '1' }), 'pkg/README.md': 'readme\n' });
    git(['add', '-A'], work);
    git(['commit', '-q', '-m', 'v1'], work);
    git(['tag', 'v1'], work);
    const v1 = git(['rev-parse', 'HEAD'], work);
    rmSync(join(work, 'pkg/README.md'));
    symlinkSync('../README.md', join(work, 'pkg/README.md'));
    symlinkSync('/etc/passwd', join(work, 'pkg/passwd.yaml'));
    writeFileSync(join(work, 'pkg/cm.yaml'), configMap('cm', { v: '2' }));
    git(['add', '-A'], work);
    git(['commit', '-q', '-m', 'v2'], work);
    git(['tag', 'v2'], work);
    git(['clone', '-q', '--bare', work, bare]);
    const pkg = at('pkg');
    writeFiles(pkg, { Kptfile: fetchedKptfile('pkg', `file://${bare}`, '/pkg', 'v1', v1), 'cm.yaml': configMap('cm', { v: '1' }), 'README.md': 'readme\n' });
    const outcome = await updateFromGit({ pkg, ref: 'v2', env: { ...GIT_ENV, PACKAGE_VARIANT_CACHE_DIR: at('cache') } });
    expect(outcome.results.filter((r) => r.severity === 'error')).toEqual([]);
    expect(readFileSync(join(pkg, 'README.md'), 'utf8')).toBe('readme\n');
    expect(existsSync(join(pkg, 'passwd.yaml'))).toBe(false);
    expect(readFileSync(join(pkg, 'cm.yaml'), 'utf8')).toBe(configMap('cm', { v: '2' }));
    expect(messages(outcome)).toContain("warning: README.md is a symbolic link in upstream; the update leaves README.md as it is, and upstream's change there is not applied");
  });
});
