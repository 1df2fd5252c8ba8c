/** Reads the kpt-merge3 conformance vectors and runs one through the function as a ResourceList. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Document, isMap, parse, parseAllDocuments, stringify, type Node, type YAMLSeq } from 'yaml';
import { parseYaml } from '../../src/yaml/yaml-format';
import { SHARED } from '../helpers';

export const MERGE3_DIR = join(SHARED, 'conformance', 'kpt-merge3');

export interface Merge3Case {
  name: string;
  harness: string;
  level: string;
  options?: { strategy?: string; file?: string; infer?: boolean };
  origin: string | null;
  update: string | null;
  local: string | null;
  expected: string | null;
  expected_error?: string;
  notes?: string;
}

export function loadCases(filter: (c: Merge3Case) => boolean): Merge3Case[] {
  return readdirSync(MERGE3_DIR)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => parse(readFileSync(join(MERGE3_DIR, f), 'utf8')) as Merge3Case)
    .filter(filter);
}

function documents(text: string | null): Record<string, unknown>[] {
  if (!text) return [];
  return parseAllDocuments(text)
    .filter((d) => d.contents !== null)
    .map((d) => d.toJS() as Record<string, unknown>)
    .filter((d) => d !== null && typeof d === 'object');
}

function taggedItems(text: string | null, tag: string | undefined, path: string): Document[] {
  if (!text) return [];
  return text
    .split(/^---\s*$/m)
    .map((part) => parseYaml(part).doc)
    .filter((d) => d.contents !== null)
    .map((doc, index) => {
      if (isMap(doc.contents)) {
        if (!isMap(doc.getIn(['metadata', 'annotations']))) doc.setIn(['metadata', 'annotations'], doc.createNode({}));
        doc.setIn(['metadata', 'annotations', 'internal.config.kubernetes.io/path'], path);
        doc.setIn(['metadata', 'annotations', 'internal.config.kubernetes.io/index'], String(index));
        if (tag) doc.setIn(['metadata', 'annotations', 'config.kubernetes.io/merge-source'], tag);
      }
      return doc;
    });
}

/** The ResourceList a kpt-style caller would send for this case (one file in each version). */
export function caseResourceList(c: Merge3Case, file = c.options?.file ?? 'f1.yaml'): string {
  const list = new Document({ apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList', items: [] });
  const items = list.get('items') as YAMLSeq;
  for (const [text, tag] of [[c.local, undefined], [c.origin, 'original'], [c.update, 'updated']] as const) {
    for (const doc of taggedItems(text, tag, file)) items.items.push(doc.contents as Node);
  }
  if (c.options?.strategy) {
    list.set('functionConfig', list.createNode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'options' }, data: { strategy: c.options.strategy } }));
  }
  return list.toString({ lineWidth: 0 });
}

const KPT_BOOKKEEPING = /^(internal\.kpt\.dev\/upstream-identifier|config\.kubernetes\.io\/(path|index|merge-source)|internal\.config\.kubernetes\.io\/.*|config\.k8s\.io\/id)$/;

/** Plain data with kpt's bookkeeping removed, so our output and kpt's compare. */
export function normalise(docs: Record<string, unknown>[]): Record<string, unknown>[] {
  return docs.map((doc) => {
    const copy = JSON.parse(JSON.stringify(doc)) as { metadata?: { annotations?: Record<string, unknown> } };
    const annotations = copy.metadata?.annotations;
    if (annotations) {
      for (const key of Object.keys(annotations)) if (KPT_BOOKKEEPING.test(key)) delete annotations[key];
      if (Object.keys(annotations).length === 0) delete copy.metadata!.annotations;
    }
    return copy as Record<string, unknown>;
  });
}

export function expectedDocs(c: Merge3Case): Record<string, unknown>[] {
  return normalise(documents(c.expected));
}

export function outputDocs(output: string): Record<string, unknown>[] {
  const list = parse(output) as { items?: Record<string, unknown>[] };
  return normalise(list.items ?? []);
}

export function show(docs: unknown): string {
  return stringify(docs, { lineWidth: 0 });
}
