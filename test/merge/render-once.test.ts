/**
 * An upstream resource the merge copies into the package unchanged is written as upstream's text,
 * without rendering it (issue 27: three 21 KB CRDs upstream added to free5gc-operator were each
 * rendered twice with `yaml`'s stringifier, which folds their long descriptions); one the merge
 * changed is rendered as before. Trees are "the same" node for node (src/yaml/same-tree.ts).
 */
import { Document, parseDocument } from 'yaml';
import { updateTree } from '../../src/merge/package/update-tree';
import { sameDocumentTree } from '../../src/yaml/same-tree';
import { configMap, kptfile, text, tree } from '../pkg/trees';

// What renders the CRD below: the renderer of simple YAML leaves a string of several lines to `yaml`.
const stringified = jest.spyOn(Document.prototype, 'toString');

// A description of two paragraphs, folded over lines as controller-gen writes it, and a comment.
const crd = `---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com # the widgets
spec:
  group: example.com
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        description: 'A Widget is a made-up resource whose description is long enough to be folded
          over two lines, as controller-gen writes them.

          Its second paragraph follows an empty line.'
        type: object
`;

beforeEach(() => stringified.mockClear());

describe('an upstream resource copied unchanged', () => {
  const origin = { Kptfile: kptfile('pkg'), 'cm.yaml': configMap('cm', { v: '1' }) };

  it('is written as its text, never rendered', () => {
    const updated = updateTree(tree(origin), tree(origin), tree({ ...origin, 'crd.yaml': crd }), {});
    expect(text(updated.tree, 'crd.yaml')).toBe(crd);
    expect(stringified).not.toHaveBeenCalled();
  });

  it('is rendered where the merge changed it: a local edit of a resource upstream moved to a new file', () => {
    const moved = { Kptfile: kptfile('pkg'), 'moved.yaml': configMap('cm', { v: '1', w: '2' }) };
    const local = { ...origin, 'cm.yaml': configMap('cm', { v: 'local' }) };
    const updated = updateTree(tree(local), tree(origin), tree(moved), {});
    expect(text(updated.tree, 'moved.yaml')).toBe(configMap('cm', { v: 'local', w: '2' }));
  });

  it('is rendered where the merge changed it: a local edit of a CRD upstream moved to a new file', () => {
    const local = { ...origin, 'crd.yaml': crd.replace('  group: example.com', '  group: example.com\n  scope: Cluster') };
    const updated = updateTree(tree(local), tree({ ...origin, 'crd.yaml': crd }), tree({ ...origin, 'crds/widgets.yaml': crd }), {});
    expect(text(updated.tree, 'crds/widgets.yaml')).toBe(crd.replace('  group: example.com', '  group: example.com\n  scope: Cluster'));
    expect(stringified).toHaveBeenCalled();
  });
});

describe('the same tree', () => {
  const read = (yaml: string) => parseDocument(yaml);

  it('is the same for two reads of one text, comments and spellings included', () => {
    const [a, b] = [read(crd.replace('---\n', '')), read(crd.replace('---\n', ''))];
    expect(sameDocumentTree(a.contents, a, b)).toBe(true);
  });

  it.each([
    ['a value', 'a: 1\n', 'a: 2\n'],
    ['a scalar type', 'a: "1"\n', "a: '1'\n"],
    ['a comment', 'a: 1 # c\n', 'a: 1 # d\n'],
    ['a blank line', 'a: 1\nb: 2\n', 'a: 1\n\nb: 2\n'],
    ['a flow style', 'a: [x]\n', 'a:\n- x\n'],
    ['a key more', 'a: 1\n', 'a: 1\nb: 2\n'],
    ['the document comment', '# top\n\na: 1\n', '# other\n\na: 1\n'],
  ])('differs by %s', (_name, x, y) => {
    const [a, b] = [read(x), read(y)];
    expect(sameDocumentTree(a.contents, a, b)).toBe(false);
  });
});
