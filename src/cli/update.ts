/**
 * `package-variant update LOCAL --origin DIR --upstream DIR`: `kpt pkg update` without git. The three
 * packages become one ResourceList, the function merges it in-process, and only files whose
 * resources changed are written back.
 */
import { Document, isMap, YAMLSeq, type Node } from 'yaml';
import { INDEX, LEGACY_INDEX, LEGACY_PATH, PATH } from '../krm/annotations';
import type { KrmResource } from '../krm/resource';
import { parseResourceList, type ResourceList } from '../krm/resource-list';
import { hasError, type Result } from '../krm/results';
import { parseYaml, renderNode, RENDER_OPTIONS } from '../krm/yaml-format';
import { MERGE_SOURCE } from '../merge/resources/sources';
import { packageVariantFunction } from '../function';
import { readPackage, writePackage, type PackageDocument } from './package-dir';

export interface UpdateOptions {
  local: string;
  origin: string;
  upstream: string;
  strategy?: string;
  conflicts?: string;
}

const OUR_ANNOTATIONS = [PATH, INDEX, LEGACY_PATH, LEGACY_INDEX, MERGE_SOURCE];

function annotated(doc: PackageDocument, tag: string | undefined): { node: Node; hadAnnotations: boolean } {
  const parsed = parseYaml(doc.text).doc;
  const hadAnnotations = isMap(parsed.getIn(['metadata', 'annotations'], true));
  if (!hadAnnotations) parsed.setIn(['metadata', 'annotations'], parsed.createNode({}));
  const values: [string, string][] = [[PATH, doc.path], [INDEX, String(doc.index)]];
  if (tag) values.push([MERGE_SOURCE, tag]);
  for (const [key, value] of values) parsed.setIn(['metadata', 'annotations', key], value);
  return { node: parsed.contents as Node, hadAnnotations };
}

function buildInput(options: UpdateOptions): { text: string; localDocs: PackageDocument[]; otherDocs: PackageDocument[]; hadAnnotations: boolean[] } {
  const list = new Document({ apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList', items: [] });
  const items = list.get('items') as YAMLSeq;
  const everything = readPackage(options.local);
  const localDocs = everything.filter((d) => d.isKrm);
  const otherDocs = everything.filter((d) => !d.isKrm);
  const hadAnnotations: boolean[] = [];
  for (const doc of localDocs) {
    const { node, hadAnnotations: had } = annotated(doc, undefined);
    items.items.push(node);
    hadAnnotations.push(had);
  }
  for (const [dir, tag] of [[options.origin, 'original'], [options.upstream, 'updated']] as const) {
    for (const doc of readPackage(dir).filter((d) => d.isKrm)) items.items.push(annotated(doc, tag).node);
  }
  const data: Record<string, string> = {};
  if (options.strategy) data.strategy = options.strategy;
  if (options.conflicts) data.conflicts = options.conflicts;
  list.set('functionConfig', list.createNode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'update-options' }, data }));
  return { text: list.toString(RENDER_OPTIONS), localDocs, otherDocs, hadAnnotations };
}

/** The resource as it goes to disk: without the annotations the CLI added for the function. */
function diskText(resource: KrmResource, hadAnnotations: boolean): string {
  const node = resource.node.clone() as typeof resource.node;
  const annotations = node.getIn(['metadata', 'annotations'], true);
  if (isMap(annotations)) {
    for (const key of OUR_ANNOTATIONS) annotations.delete(key);
    const metadata = node.get('metadata', true);
    if (annotations.items.length === 0 && !hadAnnotations && isMap(metadata)) metadata.delete('annotations');
  }
  return `${renderNode(node)}\n`;
}

export interface UpdateOutcome {
  results: Result[];
  written: string[];
  removed: string[];
}

export function updatePackage(options: UpdateOptions): UpdateOutcome {
  const { text, localDocs, otherDocs, hadAnnotations } = buildInput(options);
  const list: ResourceList = parseResourceList(text);
  const original = new Map<KrmResource, number>(list.items.slice(0, localDocs.length).map((item, i) => [item, i]));
  packageVariantFunction(list);
  if (hasError(list.results)) return { results: list.results, written: [], removed: [] };

  const byPath = new Map<string, KrmResource[]>();
  for (const item of list.items) {
    const path = item.path as string;
    byPath.set(path, [...(byPath.get(path) ?? []), item]);
  }
  const files = new Map<string, string[]>();
  for (const [path, resources] of byPath) {
    resources.sort((a, b) => a.fileIndex - b.fileIndex);
    const unchanged = resources.every((r) => !r.isChanged && localDocs[original.get(r)!]?.path === path);
    const before = localDocs.filter((d) => d.path === path).length;
    if (unchanged && before === resources.length) continue;
    const texts = resources.map((r) => {
      const at = original.get(r);
      return at !== undefined && !r.isChanged ? localDocs[at]!.text : diskText(r, at !== undefined && hadAnnotations[at]!);
    });
    // Documents that are not KRM objects stay where they were in the file.
    for (const other of otherDocs.filter((d) => d.path === path)) texts.splice(other.index, 0, other.text);
    files.set(path, texts);
  }
  const emptied = [...new Set(localDocs.map((d) => d.path))].filter((path) => !byPath.has(path));
  const removed = emptied.filter((path) => !otherDocs.some((d) => d.path === path));
  for (const path of emptied.filter((p) => !removed.includes(p))) files.set(path, otherDocs.filter((d) => d.path === path).map((d) => d.text));
  writePackage(options.local, files, removed);
  return { results: list.results, written: [...files.keys()].sort(), removed: removed.sort() };
}
