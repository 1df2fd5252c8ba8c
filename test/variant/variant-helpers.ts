/** Packages as Porch keeps them (file path → text), run through the function and read back the same way. */
import { isMap, isSeq, parseAllDocuments, parseDocument, stringify, type YAMLMap } from 'yaml';
import { renderNode } from '../../src/yaml/yaml-format';
import { resourceList, runFunction } from '../helpers';

const PATH = 'internal.config.kubernetes.io/path';
const INDEX = 'internal.config.kubernetes.io/index';

export type Files = Record<string, string>;

/** Each document of each file as a ResourceList item, with kpt's path and index annotations. */
export function itemsOf(files: Files): string[] {
  return Object.entries(files).flatMap(([path, text]) =>
    parseAllDocuments(text).map((doc, index) => {
      doc.setIn(['metadata', 'annotations', PATH], path);
      if (index > 0) doc.setIn(['metadata', 'annotations', INDEX], String(index));
      return renderNode(doc.contents as YAMLMap);
    }),
  );
}

export interface Run {
  exitCode: number;
  output: string;
  results: Record<string, any>[];
  /** The output items regrouped into files, kpt's annotations removed, rendered as `normalise` does. */
  files: Files;
}

export function run(files: Files, functionConfig: string): Run {
  const outcome = runFunction(resourceList(itemsOf(files), functionConfig));
  return { ...outcome, files: filesOf(outcome.output) };
}

/** Runs again over the output of `first` (as kpt does on the second `kpt fn eval`). */
export function runAgain(first: Run, functionConfig: string): Run {
  return run(first.files, functionConfig);
}

export function filesOf(resourceListText: string): Files {
  const doc = parseDocument(resourceListText);
  const items = doc.get('items', true);
  const files: Record<string, string[]> = {};
  if (!isSeq(items)) return {};
  for (const item of items.items as YAMLMap[]) {
    const path = String(item.getIn(['metadata', 'annotations', PATH]));
    item.deleteIn(['metadata', 'annotations', PATH]);
    item.deleteIn(['metadata', 'annotations', INDEX]);
    const annotations = item.getIn(['metadata', 'annotations'], true);
    if (isMap(annotations) && annotations.items.length === 0) item.deleteIn(['metadata', 'annotations']);
    (files[path] ??= []).push(renderNode(item));
  }
  return Object.fromEntries(Object.entries(files).map(([path, docs]) => [path, `${docs.join('\n---\n')}\n`]));
}

/** A file's text in the form `filesOf` gives: same renderer, so only content, order, comments and quoting count. */
export function normalise(text: string): string {
  return `${parseAllDocuments(text)
    .map((doc) => renderNode(doc.contents as YAMLMap))
    .join('\n---\n')}\n`;
}

export function normaliseFiles(files: Files): Files {
  return Object.fromEntries(Object.entries(files).map(([path, text]) => [path, normalise(text)]));
}

/** A PackageVariant as YAML text; `spec` is merged over a valid upstream and downstream. */
export function variant(spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = { name: 'my-pv' }): string {
  return stringify({
    apiVersion: 'config.porch.kpt.dev/v1alpha1',
    kind: 'PackageVariant',
    metadata,
    spec: { upstream: { repo: 'blueprints', package: 'foo' }, downstream: { repo: 'deployments', package: 'bar' }, ...spec },
  });
}

/** A v1 List of a PackageVariant and candidates, all given as plain data. */
export function variantList(variantYaml: string, candidates: unknown[]): string {
  return stringify({ apiVersion: 'v1', kind: 'List', items: [parseDocument(variantYaml).toJS(), ...candidates] });
}

export const KPTFILE = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: prr
  annotations:
    config.kubernetes.io/local-config: "true"
info:
  description: Example
`;

export const CONTEXT = `apiVersion: v1
kind: ConfigMap
metadata:
  name: kptfile.kpt.dev
  annotations:
    config.kubernetes.io/local-config: "true"
data:
  name: example
`;

export const messages = (r: { results: Record<string, any>[] }) => r.results.map((result) => String(result.message));
export const errors = (r: { results: Record<string, any>[] }) => r.results.filter((result) => result.severity === 'error');
