/** The kpt-cli-update vectors regrouped into whole packages (one experiment each), run through the function. */
import { Document, isMap, parse, type Node, type YAMLSeq } from 'yaml';
import { parseYaml } from '../../src/yaml/yaml-format';
import { runFunction } from '../helpers';
import { loadCases, normalise, type Merge3Case } from './merge3-cases';

export interface PackageRun {
  experiment: string;
  cases: Merge3Case[];
  exitCode: number;
  messages: string[];
  /** Output resources by file path, normalised to data. */
  files: Map<string, Record<string, unknown>[]>;
}

const isResourceFile = (file: string) => /\.(ya?ml)$/.test(file) || file === 'Kptfile';

function taggedDocuments(text: string | null, tag: string | undefined, path: string): Node[] {
  if (!text) return [];
  return text
    .split(/^---\s*$/m)
    .map((part) => parseYaml(part).doc)
    .filter((doc) => isMap(doc.contents))
    .map((doc, index) => {
      if (!isMap(doc.getIn(['metadata', 'annotations']))) doc.setIn(['metadata', 'annotations'], doc.createNode({}));
      doc.setIn(['metadata', 'annotations', 'internal.config.kubernetes.io/path'], path);
      doc.setIn(['metadata', 'annotations', 'internal.config.kubernetes.io/index'], String(index));
      if (tag) doc.setIn(['metadata', 'annotations', 'config.kubernetes.io/merge-source'], tag);
      return doc.contents as Node;
    });
}

export function packageResourceList(cases: Merge3Case[], strategy: string | undefined): string {
  const list = new Document({ apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList', items: [] });
  const items = list.get('items') as YAMLSeq;
  for (const [side, tag] of [['local', undefined], ['origin', 'original'], ['update', 'updated']] as const) {
    for (const c of cases) {
      const file = c.options?.file as string;
      if (isResourceFile(file)) items.items.push(...taggedDocuments(c[side], tag, file));
    }
  }
  if (strategy) list.set('functionConfig', list.createNode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'options' }, data: { strategy } }));
  return list.toString({ lineWidth: 0 });
}

/** Items in the order kpt writes each file's resources: by their index annotation, list order among equals. */
export function inFileOrder<T>(items: readonly T[]): T[] {
  const index = (item: T) => Number((item as { metadata?: { annotations?: Record<string, string> } }).metadata?.annotations?.['internal.config.kubernetes.io/index'] ?? 0);
  return items.map((item, order) => ({ item, order })).sort((a, b) => index(a.item) - index(b.item) || a.order - b.order).map(({ item }) => item);
}

export function runPackages(): PackageRun[] {
  const byExperiment = new Map<string, Merge3Case[]>();
  for (const c of loadCases((x) => x.harness === 'kpt-cli-update')) {
    const experiment = (c as unknown as { source: { experiment: string } }).source.experiment;
    byExperiment.set(experiment, [...(byExperiment.get(experiment) ?? []), c]);
  }
  return [...byExperiment].map(([experiment, cases]) => {
    const outcome = runFunction(packageResourceList(cases, cases[0]?.options?.strategy));
    const items = inFileOrder((parse(outcome.output) as { items?: Record<string, unknown>[] }).items ?? []);
    const files = new Map<string, Record<string, unknown>[]>();
    for (const item of items) {
      const path = (item as { metadata?: { annotations?: Record<string, string> } }).metadata?.annotations?.['internal.config.kubernetes.io/path'] ?? '';
      files.set(path, [...(files.get(path) ?? []), ...normalise([item])]);
    }
    const messages = outcome.results.map((r) => String(r.message));
    return { experiment, cases, exitCode: outcome.exitCode, messages, files };
  });
}
