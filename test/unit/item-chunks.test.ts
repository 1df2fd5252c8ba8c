import { join } from 'node:path';
import { splitItems } from '../../src/krm/item-chunks';
import { parseResourceList, serializeResourceList } from '../../src/krm/resource-list';
import { corpusFiles, REPO_ROOT, resourceList, runFunction } from '../helpers';

const corpus = corpusFiles(join(REPO_ROOT, 'test/corpus/resource-lists'));
// cert-manager's CRD descriptions hold `*`, which the line scan cannot tell from an alias.
const typical = corpus.filter((c) => c.name.endsWith('-from-kpt.yaml') && !c.name.startsWith('cert-manager'));

function rerendered(text: string, byItem: boolean): string {
  const list = parseResourceList(text, { byItem });
  for (const item of list.items) item.markChanged();
  return serializeResourceList(list);
}

describe('parsing item by item', () => {
  it.each(typical.map((c) => [c.name, c.text]))('is taken for what kpt sends: %s', (_name, text) => {
    expect(splitItems(text)?.chunks.length).toBe(parseResourceList(text, { byItem: false }).items.length);
  });

  it.each(corpus.map((c) => [c.name, c.text]))('gives what the whole-document parse gives, items re-rendered: %s', (_name, text) => {
    expect(rerendered(text, true)).toBe(rerendered(text, false));
  });

  it('reports an item error at its line in the ResourceList', () => {
    const text = resourceList(['apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata: {unclosed: [x}']);
    expect(() => parseResourceList(text)).toThrow(/input is not valid YAML: .* \(line 12, column \d+\)/);
  });

  it('reports a functionConfig error at its line, after the items', () => {
    const text = resourceList(['apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a'], 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: o\ndata:\n  stratgy: x');
    const line = text.split('\n').findIndex((l) => l.includes('stratgy')) + 1;
    expect(runFunction(text).results[0]!.message).toContain(`(line ${line}, column`);
  });

  it.each([
    ['anchors', resourceList(['apiVersion: v1\nkind: A\nmetadata:\n  name: a\ndata: &d {k: v}'])],
    ['a flow items list', 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [{apiVersion: v1, kind: A, metadata: {name: a}}]\n'],
    ['items that are a map', 'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n  a: 1\n'],
  ])('leaves %s to the whole-document parse', (_name, text) => expect(splitItems(text)).toBeUndefined());
});
