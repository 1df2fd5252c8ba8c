import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, parseAllDocuments } from 'yaml';
import { scanDefinedKind, scanIdentity } from '../../src/krm/identity-scan';
import { KrmResource } from '../../src/krm/resource';
import { parseYaml } from '../../src/yaml/yaml-format';
import { identityKeys, identityKeysOf } from '../../src/merge/resources/identity';
import { SHARED } from '../helpers';

function documentsOf(dir: string): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.ya?ml$|^Kptfile$/.test(name)) {
        for (const part of readFileSync(full, 'utf8').split(/^---[ \t]*(?:#.*)?$\n?/m)) out.push({ file: full, text: part });
      }
    }
  };
  walk(dir);
  return out;
}

/** What a full parse says: not a resource (not a map), or the identity keys. */
function parsedIdentity(text: string): string[] | 'not-krm' | 'unparseable' {
  if (parseAllDocuments(text).length !== 1) return 'unparseable';
  const { doc } = parseYaml(text);
  if (doc.errors.length) return 'unparseable';
  if (!isMap(doc.contents)) return 'not-krm';
  return identityKeys(KrmResource.fromTree(doc.contents, doc, 'input'));
}

describe('the identity scan agrees with the parser whenever it answers', () => {
  const documents = documentsOf(join(SHARED, 'conformance', 'real-packages')).filter((d) => d.text.trim() !== '');

  it('answers for most real documents', () => {
    const answered = documents.filter((d) => scanIdentity(d.text) !== undefined).length;
    expect(answered / documents.length).toBeGreaterThan(0.8);
  });

  it('never disagrees', () => {
    const disagreements = documents.flatMap(({ file, text }) => {
      const scanned = scanIdentity(text);
      if (scanned === undefined) return [];
      const parsed = parsedIdentity(text);
      const fromScan = scanned.krm ? identityKeysOf(scanned) : 'not-krm';
      return JSON.stringify(fromScan) === JSON.stringify(parsed) ? [] : [{ file, fromScan, parsed }];
    });
    expect(disagreements).toEqual([]);
  });
});

describe('the identity scan', () => {
  const keys = (text: string) => {
    const scanned = scanIdentity(text);
    return scanned?.krm ? identityKeysOf(scanned) : scanned;
  };

  it('reads the kpt-merge comment and the upstream-identifier annotation', () => {
    expect(keys('apiVersion: apps/v1\nkind: Deployment\nmetadata: # kpt-merge: prod/web\n  name: dev-web\n')).toEqual(['apps|Deployment|prod|web']);
    expect(keys("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|orig'\n")).toEqual(['|ConfigMap|default|orig', '|ConfigMap||orig']);
    expect(keys('apiVersion: "v1"\nkind: Service\nmetadata:\n  namespace: \'ns\'\n  name: s # the service\n')).toEqual(['|Service|ns|s']);
  });

  it('says what is no resource: a list', () => expect(scanIdentity('- a.yaml\n- b.yaml\n')).toEqual({ krm: false }));

  it('reads every map as a resource, known by its path where it names no kind or name (kpt\'s rule)', () => {
    const scanned = scanIdentity('resources:\n- a.yaml\n');
    expect(scanned).toEqual({ krm: true, apiVersion: '', kind: '', name: '', namespace: '' });
    expect(identityKeysOf({ ...scanned!, krm: true, path: 'kustomization.yaml' } as never)).toEqual(['||||kustomization.yaml']);
    expect(keys('kind: ConfigMap\nmetadata:\n  name: amf\n')).toEqual(['|ConfigMap||amf']);
  });

  it('reads metadata only at the indentation of its first field, and only up to the next line at column 0', () => {
    const text = [
      '# name: not-this',
      'apiVersion: v1',
      'kind: ConfigMap',
      'metadata:',
      '',
      '    # a comment deeper than the fields',
      '  labels:',
      '    name: not-this-either',
      '  name: cm',
      'data:',
      '  name: nor-this',
      '  namespace: nor-this',
      '',
    ].join('\n');
    expect(keys(text)).toEqual(['|ConfigMap||cm']);
    expect(keys('apiVersion: v1\nkind: A\nmetadata:\n\u00a0 name: spaced\n')).toEqual(['|A||spaced']);
    expect(keys('apiVersion: v1\nkind: A\nmetadata:\nname: top\n')).toEqual(['|A|||']);
    expect(keys('  apiVersion: v1\n  kind: A\n')).toEqual(['||||']);
  });

  it.each([
    ['flow metadata', 'apiVersion: v1\nkind: A\nmetadata: {name: a}\n'],
    ['an anchor', 'apiVersion: v1\nkind: A\nmetadata: &m\n  name: a\n'],
    ['an escaped name', 'apiVersion: v1\nkind: A\nmetadata:\n  name: "a\\u0062"\n'],
    ['a block scalar name', 'apiVersion: v1\nkind: A\nmetadata:\n  name: |\n    a\n'],
    ['a tag', 'apiVersion: v1\nkind: !!str A\nmetadata:\n  name: a\n'],
    ['an empty name', 'apiVersion: v1\nkind: A\nmetadata:\n  name: ""\n'],
  ])('leaves %s to the parser', (_name, text) => expect(scanIdentity(text)).toBeUndefined());
});

describe('the kind a CRD defines, by a line scan', () => {
  const crd = (spec: string) => `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n${spec}`;

  it('reads spec.group and spec.names.kind whatever the prose of the schema holds', () => {
    const text = crd('spec:\n  group: example.com # the API group\n  names:\n    plural: widgets\n    kind: "Widget"\n  versions:\n  - name: v1\n    schema:\n      openAPIV3Schema:\n        description: a *widget* & !more\n');
    expect(scanDefinedKind(text)).toEqual({ group: 'example.com', kind: 'Widget' });
  });

  it('agrees with the parser on every real CRD it reads', () => {
    const crds = documentsOf(join(SHARED, 'conformance', 'real-packages')).filter((d) => /^kind: CustomResourceDefinition/m.test(d.text));
    const read = crds.flatMap(({ text }) => {
      const scanned = scanDefinedKind(text);
      if (!scanned) return [];
      const spec = (parseYaml(text).doc.toJS() as { spec: { group: string; names: { kind: string } } }).spec;
      return [{ scanned, parsed: { group: spec.group, kind: spec.names.kind } }];
    });
    expect(read.length).toBeGreaterThan(0);
    for (const { scanned, parsed } of read) expect(scanned).toEqual(parsed);
  });

  it.each([
    ['flow names', 'spec:\n  group: example.com\n  names: {kind: Widget}\n'],
    ['an alias for the group', 'spec:\n  group: *g\n  names:\n    kind: Widget\n'],
    ['a tag on the kind', 'spec:\n  group: example.com\n  names:\n    kind: !!str Widget\n'],
    ['no kind', 'spec:\n  group: example.com\n  names:\n    plural: widgets\n'],
    ['a document marker', '---\nspec:\n  group: example.com\n  names:\n    kind: Widget\n'],
  ])('leaves %s to the parser', (_name, spec) => expect(scanDefinedKind(crd(spec))).toBeUndefined());
});
