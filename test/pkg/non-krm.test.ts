/**
 * Non-KRM files, every row of kpt's rule (merge-semantics §8) and our documented choices, through
 * the in-memory update of whole packages.
 */
import { updateTree } from '../../src/merge/package/update-tree';
import { PackageTree } from '../../src/package/tree';
import { configMap, kptfile, text, tree, type Files } from './trees';

const ROOT = { Kptfile: kptfile('pkg'), 'cm.yaml': configMap('cm', { k: '1' }) };
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe]);
const PNG2 = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x01, 0x80, 0x7f]);

function update(origin: Files, upstream: Files, local: Files, strategy?: 'fast-forward' | 'force-delete-replace', dirs: { local?: string[] } = {}) {
  return updateTree(tree({ ...ROOT, ...local }, dirs.local), tree({ ...ROOT, ...origin }), tree({ ...ROOT, ...upstream }), strategy ? { strategy } : {});
}

function ok(result: ReturnType<typeof update>): PackageTree {
  expect(result.results.filter((r) => r.severity === 'error')).toEqual([]);
  return result.tree!;
}

describe('non-KRM files by kpt rule', () => {
  it('a local file that is new stays, even where upstream adds one at the same path', () => {
    const out = ok(update({}, { 'NOTES.md': 'upstream\n' }, { 'NOTES.md': 'mine\n', 'local.txt': 'x' }));
    expect(text(out, 'NOTES.md')).toBe('mine\n');
    expect(text(out, 'local.txt')).toBe('x');
  });

  it('a file changed locally stays, whether upstream changed or deleted it', () => {
    const out = ok(update({ 'a.md': 'v1\n', 'b.md': 'v1\n' }, { 'a.md': 'v2\n' }, { 'a.md': 'mine\n', 'b.md': 'mine\n' }));
    expect(text(out, 'a.md')).toBe('mine\n');
    expect(text(out, 'b.md')).toBe('mine\n');
  });

  it('a file unchanged locally is replaced by upstream, byte for byte (binary too)', () => {
    const out = ok(update({ 'README.md': 'v1\n', 'logo.png': PNG }, { 'README.md': 'v2\r\nno newline', 'logo.png': PNG2 }, { 'README.md': 'v1\n', 'logo.png': PNG }));
    expect(out.files.get('README.md')!.bytes.equals(Buffer.from('v2\r\nno newline'))).toBe(true);
    expect(out.files.get('logo.png')!.bytes.equals(PNG2)).toBe(true);
  });

  it('a file unchanged locally is removed when upstream removed it; a directory left empty goes', () => {
    const out = ok(update({ 'docs/usage.md': 'u\n', 'docs/keep/x.md': 'x' }, { 'docs/keep/x.md': 'x' }, { 'docs/usage.md': 'u\n', 'docs/keep/x.md': 'x' }));
    expect(out.files.has('docs/usage.md')).toBe(false);
    expect(out.dirs.has('docs')).toBe(true);
    const gone = ok(update({ 'docs/usage.md': 'u\n' }, {}, { 'docs/usage.md': 'u\n' }));
    expect(gone.dirs.has('docs')).toBe(false);
  });

  it('a directory local made stays, empty or not', () => {
    const out = ok(update({}, {}, {}, undefined, { local: ['scratch'] }));
    expect(out.dirs.has('scratch')).toBe(true);
  });

  it("upstream's new files and directories are created, with upstream's mode", () => {
    const out = ok(update({}, { 'docs/guide/intro.md': 'hi\n', 'bin/run.sh': { content: '#!/bin/sh\n', mode: 0o755 } }, {}));
    expect(text(out, 'docs/guide/intro.md')).toBe('hi\n');
    expect(out.dirs.has('docs/guide')).toBe(true);
    expect(out.files.get('bin/run.sh')!.mode).toBe(0o755);
  });

  it('deviation: a file deleted locally stays deleted, even when upstream changed it', () => {
    const out = ok(update({ 'a.md': 'v1\n', 'b.md': 'v1\n' }, { 'a.md': 'v2\n', 'b.md': 'v1\n' }, {}));
    expect(out.files.has('a.md')).toBe(false);
    expect(out.files.has('b.md')).toBe(false);
  });

  it("deviation: the executable bit merges like content (upstream's chmod arrives unless local changed the bit)", () => {
    const script = (mode: number, content = '#!/bin/sh\n') => ({ content, mode });
    const origin = { 'a.sh': script(0o644), 'b.sh': script(0o644), 'c.sh': script(0o755) };
    const upstream = { 'a.sh': script(0o755), 'b.sh': script(0o644, '#!/bin/sh\necho 2\n'), 'c.sh': script(0o755, '#!/bin/sh\necho 2\n') };
    const local = { 'a.sh': script(0o644), 'b.sh': script(0o755), 'c.sh': script(0o644) };
    const out = ok(update(origin, upstream, local));
    expect(out.files.get('a.sh')!.mode).toBe(0o755);
    expect(text(out, 'b.sh')).toBe('#!/bin/sh\necho 2\n');
    expect(out.files.get('b.sh')!.mode).toBe(0o755);
    expect(out.files.get('c.sh')!.mode).toBe(0o644);
  });

  it('deviation: .gitignore and .github/ follow the rule (kpt skips paths containing ".git")', () => {
    const out = ok(update({ '.gitignore': 'out/\n', '.github/CODEOWNERS': '* a\n' }, { '.gitignore': 'out/\nbin/\n', '.github/CODEOWNERS': '* b\n' }, { '.gitignore': 'out/\n', '.github/CODEOWNERS': '* a\n' }));
    expect(text(out, '.gitignore')).toBe('out/\nbin/\n');
    expect(text(out, '.github/CODEOWNERS')).toBe('* b\n');
  });

  it('a YAML file without any KRM object follows the same rule', () => {
    const kustomization = (r: string) => `resources:\n- ${r}\n`;
    const out = ok(update({ 'kustomization.yaml': kustomization('a.yaml') }, { 'kustomization.yaml': kustomization('b.yaml'), 'extra/kustomization.yaml': kustomization('c.yaml') }, { 'kustomization.yaml': kustomization('a.yaml') }));
    expect(text(out, 'kustomization.yaml')).toBe(kustomization('b.yaml'));
    expect(text(out, 'extra/kustomization.yaml')).toBe(kustomization('c.yaml'));
  });

  // Issue 27: a kustomize JSON6902 patch is a YAML list; `kpt pkg get` writes it through kpt's YAML
  // writer (a final newline, `-   op` as `- op`, one space before a comment, no blank lines, `[1,2]` as
  // `[1, 2]`), which is no local change.
  const PATCH = (gw: string) => `-   op: replace\n    path: /data   # the whole map\n\n    value: {gw: "${gw}", ports: [1,2]}`;
  const FETCHED_PATCH = (gw: string) => `- op: replace\n  path: /data # the whole map\n  value: {gw: "${gw}", ports: [1, 2]}\n`;

  it('a YAML list as `kpt pkg get` wrote it is unchanged locally: upstream\'s deletion and change arrive', () => {
    const deleted = ok(update({ 'patch.yaml': PATCH('example/gw') }, {}, { 'patch.yaml': FETCHED_PATCH('example/gw') }));
    expect(deleted.files.has('patch.yaml')).toBe(false);
    const changed = ok(update({ 'patch.yaml': PATCH('example/gw') }, { 'patch.yaml': PATCH('example/gw2') }, { 'patch.yaml': FETCHED_PATCH('example/gw') }));
    expect(text(changed, 'patch.yaml')).toBe(PATCH('example/gw2'));
  });

  it('a YAML list as `kpt pkg get` wrote it stays so where upstream left it; a real local change stays', () => {
    const kept = ok(update({ 'patch.yaml': PATCH('example/gw') }, { 'patch.yaml': PATCH('example/gw') }, { 'patch.yaml': FETCHED_PATCH('example/gw') }));
    expect(text(kept, 'patch.yaml')).toBe(FETCHED_PATCH('example/gw'));
    const edited = ok(update({ 'patch.yaml': PATCH('example/gw') }, {}, { 'patch.yaml': FETCHED_PATCH('mine/gw') }));
    expect(text(edited, 'patch.yaml')).toBe(FETCHED_PATCH('mine/gw'));
    const comment = ok(update({ 'patch.yaml': PATCH('example/gw') }, {}, { 'patch.yaml': FETCHED_PATCH('example/gw').replace('# the whole map', '# mine') }));
    expect(comment.files.has('patch.yaml')).toBe(true);
  });

  it('a YAML file of comments only follows the same rule: upstream\'s change, deletion and new file arrive', () => {
    const out = ok(update({ 'notes.yaml': '# v1\n', 'gone.yaml': '# gone\n' }, { 'notes.yaml': '# v2\n', 'new.yaml': '# new\n' }, { 'notes.yaml': '# v1\n', 'gone.yaml': '# gone\n' }));
    expect(text(out, 'notes.yaml')).toBe('# v2\n');
    expect(text(out, 'new.yaml')).toBe('# new\n');
    expect(out.files.has('gone.yaml')).toBe(false);
  });

  it('force-delete-replace: local non-KRM files give way to upstream', () => {
    const out = ok(update({ 'a.md': 'v1\n' }, { 'a.md': 'v2\n', 'new.md': 'n' }, { 'a.md': 'mine\n', 'local.md': 'l' }, 'force-delete-replace'));
    expect(text(out, 'a.md')).toBe('v2\n');
    expect(text(out, 'new.md')).toBe('n');
    expect(out.files.has('local.md')).toBe(false);
  });

  it('fast-forward refuses when a non-KRM file changed locally, naming it', () => {
    const result = update({ 'a.md': 'v1\n' }, { 'a.md': 'v2\n' }, { 'a.md': 'mine\n' }, 'fast-forward');
    expect(result.tree).toBeUndefined();
    expect(result.results.map((r) => r.message)).toEqual(expect.arrayContaining([expect.stringMatching(/^fast-forward: the local package has been modified/), 'a.md was changed locally']));
  });

  it('fast-forward goes ahead over an unchanged package, files included', () => {
    const out = ok(update({ 'a.md': 'v1\n' }, { 'a.md': 'v2\n' }, { 'a.md': 'v1\n' }, 'fast-forward'));
    expect(text(out, 'a.md')).toBe('v2\n');
  });
});

describe('an upstream package that is only files', () => {
  it('updates its files when no resource changed and upstream has no Kptfile', () => {
    const result = updateTree(tree({ Kptfile: kptfile('pkg'), 'README.md': 'v1\n' }), tree({ 'README.md': 'v1\n' }), tree({ 'README.md': 'v2\n' }), {});
    expect(result.results.filter((r) => r.severity === 'error')).toEqual([]);
    expect(text(result.tree, 'README.md')).toBe('v2\n');
    expect(text(result.tree, 'Kptfile')).toBe(kptfile('pkg'));
  });
});
