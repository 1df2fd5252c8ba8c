import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isPlainNoOp } from '../../src/krm/no-op-scan';
import { corpusFiles, REPO_ROOT, resourceList, runFunction } from '../helpers';

const corpus = corpusFiles(join(REPO_ROOT, 'test/corpus/resource-lists'));

describe('the no-op scan', () => {
  it.each(corpus.map((c) => [c.name, c.text]))('vouches only for inputs whose full run returns them unchanged: %s', (_name, text) => {
    if (isPlainNoOp(text)) expect(runFunction(text)).toMatchObject({ exitCode: 0, output: text });
  });

  it('recognises what kpt sends for a package with no config', () => {
    expect(isPlainNoOp(readFileSync(join(REPO_ROOT, 'test/corpus/resource-lists/edge-cases-from-kpt.yaml'), 'utf8'))).toBe(true);
    const plain = resourceList(
      ['# head\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a # c\n  annotations:\n    config.kubernetes.io/path: a.yaml\ndata:\n  k: "v"', 'resources:\n- deployment.yaml'],
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\ndata: {}',
    );
    expect(isPlainNoOp(plain)).toBe(true);
    expect(runFunction(plain)).toMatchObject({ exitCode: 0, output: plain });
    // kpt's empty ConfigMap ahead of the items: its block ends where `items` begins.
    const configFirst = `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: function-input\n  data: {}\nitems:\n- apiVersion: v1\n  kind: A\n  metadata:\n    name: a\n`;
    expect(isPlainNoOp(configFirst)).toBe(true);
    expect(runFunction(configFirst)).toMatchObject({ exitCode: 0, output: configFirst });
  });

  const refused: [string, string][] = [
    ['empty input', ''],
    ['not a ResourceList', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n'],
    ['duplicate top-level keys', 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: A\n  metadata:\n    name: a\n'],
    ['items that are a map', 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n  a: 1\n'],
    ['an item without a name', resourceList(['apiVersion: v1\nkind: ConfigMap\nmetadata:\n  namespace: x'])],
    ['an item without a kind', resourceList(['apiVersion: v1\nmetadata:\n  name: x'])],
    ['a scalar item', resourceList(['hello'])],
    ['a flow item', 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {apiVersion: v1, kind: A, metadata: {name: a}}\n'],
    ['aliases', resourceList(['apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata: &d\n  k: v\nother: *d'])],
    ['a merge source', resourceList(['apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    config.kubernetes.io/merge-source: updated'])],
    ['a functionConfig with data', resourceList(['apiVersion: v1\nkind: A\nmetadata:\n  name: a'], 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\ndata:\n  strategy: fast-forward')],
    ['a PackageVariant', resourceList(['apiVersion: v1\nkind: A\nmetadata:\n  name: a'], 'apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: pv')],
    ['results already present', `${resourceList(['apiVersion: v1\nkind: A\nmetadata:\n  name: a'])}results: []\n`],
    ['metadata written as a string', resourceList(['apiVersion: v1\nkind: ConfigMap\nmetadata: |\n  name: a'])],
    ['a second document', `${resourceList(['apiVersion: v1\nkind: A\nmetadata:\n  name: a'])}---\n${resourceList([])}`],
    ['deep flow nesting', `${resourceList(['apiVersion: v1\nkind: A\nmetadata:\n  name: a'])}`.replace('name: a', `name: a\ndata: ${'['.repeat(50)}${']'.repeat(50)}`)],
  ];
  it.each(refused)('leaves to the full parser: %s', (_name, text) => expect(isPlainNoOp(text)).toBe(false));
});
