/**
 * `.krmignore` as kpt reads it (kyaml's ignoreFilesMatcher over go-gitignore): the patterns, which
 * package's file covers what, and the update leaving ignored files alone: never read, written or
 * removed.
 */
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KrmIgnore } from '../../src/package/krmignore';
import { applyKrmignore } from '../../src/package/package-walk';
import { updateFromDirectories } from '../../src/update/update';
import { configMap, kptfile, tree, writeFiles, type Files } from './trees';

describe('.krmignore patterns, as go-gitignore matches them', () => {
  it.each([
    ['*.ignored.yaml', 'x.ignored.yaml', false, true],
    ['*.ignored.yaml', 'a/b/x.ignored.yaml', false, true],
    ['*.ignored.yaml', 'x.yaml', false, false],
    ['/*.ignored.yaml', 'x.ignored.yaml', false, true],
    ['/*.ignored.yaml', 'a/x.ignored.yaml', false, false],
    ['/a/*.yaml', 'a/x.yaml', false, true],
    // Unlike git, a pattern with a slash inside is not anchored: it matches the end of a path.
    ['a/c.yaml', 'x/a/c.yaml', false, true],
    ['a/c.yaml', 'c.yaml', false, false],
    ['tests/', 'tests', true, true],
    ['tests/', 'tests', false, false],
    ['tests', 'tests', false, true],
    ['.expected', 'examples/one/.expected', true, true],
    // `**` is two `*`, each within one part.
    ['**/x.yaml', 'a/b/x.yaml', false, true],
    ['**/x.yaml', 'x.yaml', false, false],
    ['[abc].yaml', 'b.yaml', false, true],
    ['[abc].yaml', 'd.yaml', false, false],
    ['[^abc].yaml', 'd.yaml', false, true],
    ['[a-c]?.yaml', 'bz.yaml', false, true],
    ['a?.yaml', 'a/.yaml', false, false],
    ['\\*.yaml', '*.yaml', false, true],
    ['\\*.yaml', 'a.yaml', false, false],
    ['[', '[', false, false],
    ['[]a].yaml', 'a.yaml', false, false],
    ['\\#hash.yaml', '#hash.yaml', false, true],
    ['#hash.yaml', '#hash.yaml', false, false],
    ['  spaced.yaml  ', 'spaced.yaml', false, true],
    ['crlf.yaml\r', 'crlf.yaml', false, true],
  ])('%j against %j (directory: %p): %p', (pattern, path, isDir, ignored) => {
    expect(KrmIgnore.parse(`${pattern}\n`).matches(path, isDir)).toBe(ignored);
  });

  it('an accept pattern wins wherever it stands', () => {
    for (const text of ['*.yaml\n!keep.yaml\n', '!keep.yaml\n*.yaml\n']) {
      const ignore = KrmIgnore.parse(text);
      expect(ignore.matches('keep.yaml', false)).toBe(false);
      expect(ignore.matches('drop.yaml', false)).toBe(true);
    }
  });
});

describe('which .krmignore covers what', () => {
  const ignoredOf = (files: Files) => {
    const out = applyKrmignore(tree(files));
    return { kept: [...out.files.keys()].sort(), ignored: [...out.ignored].sort() };
  };

  it("a package's patterns cover its own files, not its subpackages'; a subpackage's own file covers it", () => {
    const result = ignoredOf({
      Kptfile: kptfile('root'),
      '.krmignore': '*.yaml\n',
      'cm.yaml': 'x',
      'sub/Kptfile': kptfile('sub'),
      'sub/cm.yaml': 'x',
      'sub/.krmignore': 'local-only.yaml\n',
      'sub/local-only.yaml': 'x',
    });
    expect(result.ignored).toEqual(['cm.yaml', 'sub/local-only.yaml']);
    expect(result.kept).toEqual(['.krmignore', 'Kptfile', 'sub/.krmignore', 'sub/Kptfile', 'sub/cm.yaml']);
  });

  it("a parent's pattern can leave a whole subpackage out (its directory is the parent's), and an ignored directory is not entered", () => {
    const result = ignoredOf({ Kptfile: kptfile('root'), '.krmignore': 'sub\ndocs/\n', 'sub/Kptfile': kptfile('sub'), 'sub/cm.yaml': 'x', 'docs/a/b.md': 'x' });
    expect(result.ignored).toEqual(['docs', 'sub']);
    expect(result.kept).toEqual(['.krmignore', 'Kptfile']);
  });

  it('a Kptfile is never ignored: it says what the package is', () => {
    expect(ignoredOf({ Kptfile: kptfile('root'), '.krmignore': 'Kptfile\n*\n', 'a.yaml': 'x' }).kept).toEqual(['Kptfile']);
  });
});

describe('the update leaves ignored files alone', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pv-krmignore-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function run(origin: Files, upstream: Files, local: Files) {
    const at = (side: string) => join(dir, side);
    writeFiles(at('origin'), origin);
    writeFiles(at('upstream'), upstream);
    writeFiles(at('local'), local);
    const outcome = updateFromDirectories({ local: at('local'), origin: at('origin'), upstream: at('upstream') });
    return { outcome, read: (path: string) => (existsSync(join(at('local'), path)) ? readFileSync(join(at('local'), path), 'utf8') : undefined) };
  }

  const BASE = { Kptfile: kptfile('pkg'), 'cm.yaml': configMap('cm', { v: '1' }) };

  it('an ignored local file is not overwritten by an upstream resource at the same path (a glob)', () => {
    const { outcome, read } = run(BASE, { ...BASE, 'x.ignored.yaml': configMap('x', {}) }, { ...BASE, '.krmignore': '*.ignored.yaml\n', 'x.ignored.yaml': 'mine: 1\n' });
    expect(read('x.ignored.yaml')).toBe('mine: 1\n');
    expect(outcome.plan?.writes.map((w) => w.path)).toEqual([]);
    expect(outcome.results.map((r) => `${r.severity}: ${r.message}`)).toContain(
      "warning: x.ignored.yaml is ignored by the local package's .krmignore; the update leaves x.ignored.yaml as it is, and upstream's change there is not applied",
    );
  });

  it('a file the glob names is never read: a template that is not YAML does not stop the update', () => {
    const template = 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {{ .Values.meta }}\n  name: [\n';
    const files = { ...BASE, '.krmignore': '*.tmpl.yaml\n', 'deploy.tmpl.yaml': template };
    const { outcome, read } = run(files, { ...files, 'cm.yaml': configMap('cm', { v: '2' }) }, files);
    expect(outcome.results.filter((r) => r.severity === 'error')).toEqual([]);
    expect(read('cm.yaml')).toBe(configMap('cm', { v: '2' }));
    expect(read('deploy.tmpl.yaml')).toBe(template);
  });

  it('an ignored directory is neither removed nor written, even when upstream removes or changes what it holds', () => {
    const origin = { ...BASE, 'generated/a.yaml': configMap('a', {}), 'generated/b.md': 'b\n' };
    const local = { ...origin, '.krmignore': 'generated/\n' };
    const { outcome, read } = run(origin, { ...BASE, 'generated/c.md': 'c\n' }, local);
    expect(read('generated/a.yaml')).toBe(configMap('a', {}));
    expect(read('generated/b.md')).toBe('b\n');
    expect(read('generated/c.md')).toBeUndefined();
    expect(outcome.plan?.removes).toEqual([]);
    expect(outcome.plan?.removeDirs).toEqual([]);
  });

  it('upstream\'s change to what every version ignores (a catalog\'s .expected/) is a warning, and is not applied (issue 19)', () => {
    const origin = { ...BASE, '.krmignore': '.expected/\n', '.expected/results.yaml': 'old: 1\n' };
    const { outcome, read } = run(origin, { ...origin, '.expected/results.yaml': 'new: 1\n' }, origin);
    expect(read('.expected/results.yaml')).toBe('old: 1\n');
    expect(outcome.results.filter((r) => r.severity === 'warning').map((r) => r.message)).toEqual([
      ".expected is ignored by .krmignore in every version; the update leaves .expected as it is, and upstream's change there is not applied",
    ]);
  });

  it('what upstream starts to ignore stays in the local package instead of being removed', () => {
    const origin = { ...BASE, 'notes.yaml': configMap('notes', {}) };
    const { outcome, read } = run(origin, { ...origin, '.krmignore': 'notes.yaml\n' }, origin);
    expect(read('notes.yaml')).toBe(configMap('notes', {}));
    expect(read('.krmignore')).toBe('notes.yaml\n');
    expect(outcome.plan?.removes).toEqual([]);
  });
});
