/**
 * The files an update writes, as a reviewer reads them in `git diff` (issue 27): documents new to a
 * file go after their upstream predecessor (at the top where they have none), a file upstream moved
 * that nobody edited comes out byte for byte as upstream has it, comments local left alone follow
 * upstream's (a comment-only file, a document's header), and force-delete-replace rewrites only the
 * lines upstream changed. Through the in-memory update that git mode and directory mode share.
 */
import { updateTree } from '../../src/merge/package/update-tree';
import { PackageTree } from '../../src/package/tree';
import { configMap, kptfile, text, tree, type Files } from './trees';

const LICENCE = '# Copyright 2024 Example Authors\n# Licensed under the Apache License, Version 2.0.\n';

/** A resource as a catalog that was itself fetched with kpt holds it: kpt's bookkeeping written. */
const fetched = (name: string, data: Record<string, string>) =>
  configMap(name, data).replace('metadata:\n', `metadata: # kpt-merge: /${name}\n`).replace(/\ndata:/, `\n  annotations:\n    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|${name}'\ndata:`);

const crd = (name: string) =>
  `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: # kpt-merge: /${name}\n  name: ${name}\nspec:\n  group: example.com\n  names:\n    kind: Widget\n    plural: widgets\n  scope: Namespaced\n`;

function update(origin: Files, upstream: Files, local: Files, strategy?: 'force-delete-replace'): PackageTree {
  const root = { Kptfile: kptfile('pkg') };
  const result = updateTree(tree({ ...root, ...local }), tree({ ...root, ...origin }), tree({ ...root, ...upstream }), strategy ? { strategy } : {});
  expect(result.results.filter((r) => r.severity === 'error')).toEqual([]);
  return result.tree!;
}

describe('where documents new to a file go', () => {
  it('a document upstream adds above the first goes to the top, and the header upstream moved onto it is not left behind', () => {
    const origin = { 'a.yaml': `${LICENCE}${configMap('one', { k: '1' })}`, 'b.yaml': `${LICENCE}\n${configMap('two', { k: '1' })}` };
    const upstream = {
      'a.yaml': `${LICENCE}${configMap('top', { k: '1' })}---\n${configMap('one', { k: '1' })}`,
      'b.yaml': `${LICENCE}\n${configMap('top-b', { k: '1' })}---\n${configMap('two', { k: '1' })}`,
    };
    const out = update(origin, upstream, origin);
    expect(text(out, 'a.yaml')).toBe(upstream['a.yaml']);
    expect(text(out, 'b.yaml')).toBe(upstream['b.yaml']);
  });

  it('each goes after its upstream predecessor among the documents local kept, in upstream\'s order', () => {
    const cm = (name: string) => configMap(name, { k: '1' });
    const origin = { 'a.yaml': [cm('two'), cm('three')].join('---\n') };
    const upstream = { 'a.yaml': [cm('zero'), cm('two'), cm('between'), cm('next'), cm('three'), cm('last')].join('---\n') };
    const local = { 'a.yaml': [cm('three'), cm('two'), cm('mine')].join('---\n') };
    const out = update(origin, upstream, local);
    expect(text(out, 'a.yaml')).toBe([cm('zero'), cm('three'), cm('last'), cm('two'), cm('between'), cm('next'), cm('mine')].join('---\n'));
  });
});

describe('files upstream moved', () => {
  it('after a directory rename, files nobody edited are upstream\'s byte for byte: a resource declared in two files, headers before and on a document', () => {
    const files = {
      'core.yaml': `${LICENCE}---\n${crd('widgets.example.com')}---\n${fetched('settings', { mode: 'fast' })}`,
      'crds.yaml': `${LICENCE}${crd('widgets.example.com')}`,
      'extra.yaml': `${LICENCE}\n${fetched('extra', { k: '1' })}`,
    };
    const under = (dir: string) => Object.fromEntries(Object.entries(files).map(([name, content]) => [`${dir}/${name}`, content]));
    const out = update(under('manifests'), under('deploy'), under('manifests'));
    expect([...out.files.keys()].sort()).toEqual(['Kptfile', 'deploy/core.yaml', 'deploy/crds.yaml', 'deploy/extra.yaml']);
    for (const [path, content] of Object.entries(under('deploy'))) expect(text(out, path)).toBe(content);
  });

  it('a moved resource keeps the merge comment and identifier kpt pkg get wrote, in the layout of upstream\'s new file', () => {
    const origin = { 'old.yaml': `${LICENCE}${configMap('cm', { k: '1' })}` };
    const upstream = { 'new.yaml': `${LICENCE}# moved here\n${configMap('cm', { k: '2' })}` };
    const out = update(origin, upstream, { 'old.yaml': `${LICENCE}${fetched('cm', { k: '1' })}` });
    expect(out.files.has('old.yaml')).toBe(false);
    expect(text(out, 'new.yaml')).toBe(`${LICENCE}# moved here\n${fetched('cm', { k: '2' })}`);
  });
});

describe('comments local left alone', () => {
  it('a comment-only file that upstream replaced by the resource it described takes upstream\'s text (issue 27)', () => {
    const notice = '# Notice: enable the ConfigMap below by uncommenting it.\n#\n# apiVersion: v1\n# kind: ConfigMap\n# metadata:\n#   name: cm\n';
    const upstream = { 'a.yaml': `# Notice: the ConfigMap.\n${configMap('cm', { a: '1' })}` };
    const out = update({ 'a.yaml': notice, 'b.yaml': configMap('cm', { a: '1' }) }, upstream, { 'a.yaml': notice, 'b.yaml': fetched('cm', { a: '1' }) });
    expect(text(out, 'a.yaml')).toBe(`# Notice: the ConfigMap.\n${fetched('cm', { a: '1' })}`);
    expect(out.files.has('b.yaml')).toBe(false);
  });

  it('a comment-only file local edited keeps its comments; the resource arriving goes after them', () => {
    const notice = '# Notice\n';
    const out = update({ 'a.yaml': notice, 'b.yaml': configMap('cm', { a: '1' }) }, { 'a.yaml': configMap('cm', { a: '1' }) }, { 'a.yaml': '# Notice, and mine\n', 'b.yaml': configMap('cm', { a: '1' }) });
    expect(text(out, 'a.yaml')).toBe(`# Notice, and mine\n${configMap('cm', { a: '1' })}`);
  });

  it('a document\'s own header that local changed stays', () => {
    const origin = { 'a.yaml': `# header\n\n${configMap('one', { k: '1' })}` };
    const upstream = { 'a.yaml': configMap('one', { k: '2' }) };
    const out = update(origin, upstream, { 'a.yaml': `# my header\n\n${configMap('one', { k: '1' })}` });
    expect(text(out, 'a.yaml')).toBe(`# my header\n\n${configMap('one', { k: '2' })}`);
  });
});

describe('force-delete-replace', () => {
  it('rewrites only what upstream changed: local\'s layout and kpt\'s bookkeeping stay, local\'s edits and its own resources go', () => {
    const wide = (v: string) => `${fetched('cm', { k: v, keep: 'x' })}list:\n  - a\n  - b\n`;
    const origin = { 'cm.yaml': `${configMap('cm', { k: '1', keep: 'x' })}list: [a, b]\n`, 'gone.yaml': configMap('gone', { k: '1' }) };
    const upstream = { 'cm.yaml': `${configMap('cm', { k: '2', keep: 'x' })}list: [a, b]\n` };
    const out = update(origin, upstream, { 'cm.yaml': wide('mine'), 'gone.yaml': configMap('gone', { k: '1' }), 'mine.yaml': configMap('mine', { k: '1' }) }, 'force-delete-replace');
    expect(text(out, 'cm.yaml')).toBe(wide('2'));
    expect([...out.files.keys()].sort()).toEqual(['Kptfile', 'cm.yaml']);
  });

  it('takes upstream\'s nulls and comments as a copy would', () => {
    const origin = { 'cm.yaml': `${configMap('cm', { k: '1' })}` };
    const upstream = { 'cm.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels: null\ndata:\n  k: "1" # upstream's\n` };
    const out = update(origin, upstream, { 'cm.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels:\n    mine: x\ndata:\n  k: "1" # mine\n` }, 'force-delete-replace');
    expect(text(out, 'cm.yaml')).toBe(upstream['cm.yaml']);
  });
});
