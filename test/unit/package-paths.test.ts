/** Items stay inside their package (src/krm/package-paths.ts): through the whole function. */
import { posix } from 'node:path';
import fc from 'fast-check';
import { escapeOf, escapingPaths, noEscapeInText, pathProblem } from '../../src/krm/package-paths';
import { parseResourceList } from '../../src/krm/resource-list';
import { resourceList, runFunction } from '../helpers';
import { tagged } from '../merge/merge-helpers';

const cm = (name: string, value = 'v') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: ${value}\n`;

describe('a path that leaves the package', () => {
  it.each([
    ['../evil.yaml', 'it climbs out of the package'],
    ['sub/../../evil.yaml', 'it climbs out of the package'],
    ['..', 'it climbs out of the package'],
    ['/etc/evil.yaml', 'it is absolute'],
    ['.git/config.yaml', "it lies in .git, which is git's, not the package's"],
    ['sub/.git/hooks.yaml', "it lies in .git, which is git's, not the package's"],
  ])('%s: %s', (path, why) => {
    expect(escapeOf(path)).toBe(why);
  });

  it.each([
    ['.GIT/config.yaml', `it lies in ".GIT", which git takes for .git: git's, not the package's`],
    ['sub/.Git/hooks.yaml', `it lies in ".Git", which git takes for .git: git's, not the package's`],
    ['.git./x.yaml', `it lies in ".git.", which git takes for .git: git's, not the package's`],
    ['GIT~1/x.yaml', `it lies in "GIT~1", which git takes for .git: git's, not the package's`],
    ['.g\u200cit/x.yaml', `it lies in ".g\u200cit", which git takes for .git: git's, not the package's`],
    ['.package-variant.journal', '".package-variant.journal" is a name package-variant update keeps for its own files'],
    ['sub/.Package-Variant-1-2.new', '".Package-Variant-1-2.new" is a name package-variant update keeps for its own files'],
  ])('%s: %s', (path, why) => {
    expect(escapeOf(path)).toBe(why);
  });

  it('takes every code point HFS+ ignores (git\'s is_hfs_dotgit list), wherever it sits in .git, for .git', () => {
    const ignored = [0x200c, 0x200d, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x206a, 0x206b, 0x206c, 0x206d, 0x206e, 0x206f, 0xfeff].map((c) => String.fromCodePoint(c));
    for (const char of ignored) {
      for (let at = 0; at <= 4; at += 1) {
        const name = `.git`.slice(0, at) + char + `.git`.slice(at);
        expect({ name, why: pathProblem(`sub/${name}`) }).toEqual({ name, why: `it lies in ${JSON.stringify(name)}, which git takes for .git: git's, not the package's` });
      }
    }
    expect(pathProblem('\u200b.git')).toBeUndefined();
  });

  it.each(['cm.yaml', './cm.yaml', 'sub/../cm.yaml', 'a..b/cm.yaml', '.gitignore.yaml', 'sub/.github/cm.yaml', 'Kptfile', '.package-variant', 'git~2/x.yaml'])('%s stays inside', (path) => {
    expect(escapeOf(path)).toBeUndefined();
  });

  it('judges a path from git as it is: every name, none normalised away', () => {
    expect(pathProblem('sub/../cm.yaml')).toBe('it holds a ".." name');
    expect(pathProblem('../cm.yaml')).toBe('it climbs out of the package');
    expect(pathProblem('./cm.yaml')).toBe('it holds an empty or "." name');
    expect(pathProblem('a//cm.yaml')).toBe('it holds an empty or "." name');
    expect(pathProblem('')).toBe('it is empty');
    expect(pathProblem('-rf')).toBeUndefined();
    expect(pathProblem('a\nb\u001b[31m.yaml')).toBeUndefined();
  });

  it('is found in any path built of the characters that matter, as normalising it says', () => {
    const leaves = (path: string) => {
      if (posix.isAbsolute(path)) return true;
      const normal = posix.normalize(path);
      return normal === '..' || normal.startsWith('../') || normal.split('/').some((name) => /^\.git[. ]*$/i.test(name));
    };
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', '/', '.', '..', '.git', '.GIT', 'git', 'Git', './', '../', ' '), { maxLength: 6 }), (parts) => {
        const path = parts.join('');
        expect({ path, leaves: escapeOf(path) !== undefined }).toEqual({ path, leaves: leaves(path) });
      }),
      { seed: 20261124, numRuns: 5000 },
    );
  });
});

describe('an input whose text shows no path outside the package', () => {
  it('holds none in the items read as plain data, however the paths are written', () => {
    const value = fc.constantFrom('a.yaml', '../evil.yaml', '/etc/x.yaml', 'sub/../../x.yaml', '.git/config', 'a/.git/b.yaml', 'a..b/c.yaml', 'x.git/y.yaml', '..', 'sub/..', '.GIT/x', 'a/.Git./b', 'git~1/x', '.package-variant.lock', 'a/.package-variant-1.new', '.package-variantx');
    const written = fc.constantFrom((v: string) => v, (v: string) => `'${v}'`, (v: string) => `"${v}"`);
    const key = fc.constantFrom('config.kubernetes.io/path', 'internal.config.kubernetes.io/path', '"config.kubernetes.io/path"');
    const item = fc.tuple(key, value, written, fc.boolean()).map(([k, v, w, flow]) =>
      flow ? `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, annotations: {${k}: ${w(v)}}}\n` : `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    ${k}: ${w(v)}\n`,
    );
    let clean = 0;
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 3 }), (items) => {
        const text = resourceList(items);
        if (!noEscapeInText(text)) return;
        clean += 1;
        const plain = parseResourceList(text).items.filter((resource) => !resource.hasTree);
        expect(escapingPaths(plain)).toEqual([]);
      }),
      { seed: 20261124, numRuns: 2000 },
    );
    expect(clean).toBeGreaterThan(100);
  });
});

describe('in a run that changes the package, an item outside it is an error', () => {
  it('a resource upstream adds at ../evil.yaml is not written, and the error names it', () => {
    const input = resourceList([tagged(cm('a'), undefined, 'a.yaml'), tagged(cm('a'), 'original', 'a.yaml'), tagged(cm('a'), 'updated', 'a.yaml'), tagged(cm('evil'), 'updated', '../evil.yaml')]);
    const outcome = runFunction(input);
    expect(outcome.exitCode).toBe(1);
    expect(outcome.results.filter((r) => r.severity === 'error')).toEqual([
      {
        message: 'items[1] (ConfigMap evil): its path "../evil.yaml" is outside the package: it climbs out of the package',
        severity: 'error',
        resourceRef: { apiVersion: 'v1', kind: 'ConfigMap', name: 'evil' },
        field: { path: 'metadata.annotations["internal.config.kubernetes.io/path"]' },
      },
    ]);
    expect(outcome.output.startsWith(input)).toBe(true);
  });

  it('an untouched item in .git, or at an absolute legacy path, fails a run that changes another', () => {
    const items = [
      tagged(cm('a'), undefined, 'a.yaml'),
      tagged(cm('a'), 'original', 'a.yaml'),
      tagged(cm('a', 'v2'), 'updated', 'a.yaml'),
      tagged(cm('hook'), undefined, '.git/hooks.yaml'),
      cm('abs').replace('metadata:\n', "metadata:\n  annotations:\n    config.kubernetes.io/path: '/tmp/abs.yaml'\n"),
    ];
    const outcome = runFunction(resourceList(items));
    expect(outcome.exitCode).toBe(1);
    expect(outcome.results.filter((r) => r.severity === 'error').map((r) => [r.message, (r.field as { path: string }).path])).toEqual([
      ['items[1] (ConfigMap hook): its path ".git/hooks.yaml" is outside the package: it lies in .git, which is git\'s, not the package\'s', 'metadata.annotations["internal.config.kubernetes.io/path"]'],
      ['items[2] (ConfigMap abs): its path "/tmp/abs.yaml" is outside the package: it is absolute', 'metadata.annotations["config.kubernetes.io/path"]'],
    ]);
  });

  it('a run that changes nothing returns its input byte for byte, whatever the paths', () => {
    const options = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: options\ndata:\n  strategy: resource-merge\n';
    const input = resourceList([tagged(cm('odd'), undefined, '../odd.yaml')], options);
    expect(runFunction(input)).toMatchObject({ exitCode: 0, output: input });
  });
});
