/**
 * The resource files an update writes, from the merge's result: only files whose resources changed,
 * and in them every byte but the changed documents' kept (the text between documents too).
 *
 * A file is laid out as local's, its documents where they were, each resource new to it (added
 * upstream, or moved there with upstream) before the local document that follows it in the merge's
 * order (merge/resources/placement.ts: after its upstream predecessor). A file no local document
 * stays in, whose text around its documents local left as origin had it (a file local lacks, one
 * whose resources all moved away or were deleted, one of comments only), is laid out as upstream's:
 * upstream's text between documents byte for byte, each of its documents where upstream has it, in
 * upstream's layout; a moved file nobody edited comes out as upstream has it.
 */
import type { Document } from 'yaml';
import type { KrmResource } from '../../krm/resource';
import type { ResourceTuple } from '../resources/identity';
import type { KrmFiles, PackageDocument } from '../../package/krm-files';
import { joinYamlStream, type DocumentFate } from '../../yaml/yaml-stream';

export interface FileTextsInput {
  readonly local: KrmFiles;
  readonly origin: KrmFiles;
  readonly upstream: KrmFiles;
  /** The local documents the update parsed, and the resource each holds. */
  readonly parsedLocal: ReadonlyMap<PackageDocument, KrmResource>;
  /** The merge's result. */
  readonly items: readonly KrmResource[];
  /** The versions each resource of the result merged. */
  readonly counterparts: ReadonlyMap<KrmResource, ResourceTuple>;
  /** The document a parse was read from. */
  documentOf(parse: Document): PackageDocument | undefined;
  /** A resource's text as it goes to disk; with `layout`, in the layout of that upstream resource's document. */
  render(resource: KrmResource, layout?: KrmResource): string;
  /** Says that `text`, the file at `path`, is rewritten (it must be UTF-8). */
  rewrites(path: string, text: string): void;
}

export interface FileTexts {
  /** Resource files to write (path -> text) and to remove (path -> null). */
  readonly files: Map<string, string | null>;
  /** For a file the local package did not have: the local files whose resources moved there. */
  readonly movedFrom: Map<string, string[]>;
}

function groupBy<T>(values: Iterable<T>, key: (value: T) => string | undefined): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const value of values) {
    const k = key(value);
    if (k === undefined) continue;
    const group = groups.get(k);
    if (group) group.push(value);
    else groups.set(k, [value]);
  }
  return groups;
}

/** A file's text outside its documents: what local may have edited around them. */
function around(text: string, documents: readonly PackageDocument[]): string {
  let out = '';
  let at = 0;
  for (const doc of documents) {
    out += text.slice(at, doc.start);
    at = doc.end;
  }
  return out + text.slice(at);
}

export function fileTexts(input: FileTextsInput): FileTexts {
  const { local, origin, upstream, parsedLocal, items, counterparts } = input;
  const kept = new Set(items);
  const localDocOf = new Map([...parsedLocal].map(([doc, resource]) => [resource, doc]));
  // Resources that are new to a file: added upstream, or moved there from another file.
  const arriving = items.filter((item) => localDocOf.get(item)?.path !== item.path);
  const arrivingByPath = groupBy(arriving, (r) => r.path);
  const resultsByPath = groupBy(
    [...items].map((item, order) => ({ item, order })).sort((a, b) => a.item.fileIndex - b.item.fileIndex || a.order - b.order).map(({ item }) => item),
    (r) => r.path,
  );
  const documentsByPath = groupBy(local.documents, (d) => d.path);
  const originDocuments = groupBy(origin.documents, (d) => d.path);
  const upstreamDocuments = groupBy(upstream.documents, (d) => d.path);
  const upstreamDocOf = (resource: KrmResource) => {
    const copy = counterparts.get(resource)?.upstream;
    return copy && input.documentOf(copy.doc);
  };

  /** Upstream's file at `path`, each of its documents with the resource of the result it holds (or removed). */
  const asUpstream = (path: string, results: readonly KrmResource[]): string | undefined => {
    const text = upstream.files.get(path)!;
    const documents = upstreamDocuments.get(path) ?? [];
    if (documents.length === 0) return text;
    const holding = new Map<PackageDocument, KrmResource>();
    const elsewhere: KrmResource[] = [];
    for (const resource of results) {
      const doc = upstreamDocOf(resource);
      if (doc && doc.path === path && !holding.has(doc)) holding.set(doc, resource);
      else elsewhere.push(resource);
    }
    const fates = new Map<PackageDocument, DocumentFate>(documents.map((doc) => {
      const resource = holding.get(doc);
      return [doc, resource === undefined ? null : input.render(resource, counterparts.get(resource)?.upstream)];
    }));
    return joinYamlStream(text, documents, fates, elsewhere.map((r) => input.render(r)));
  };

  /** Local's file at `path` with its documents' fates, and the arriving ones placed in the result's order. */
  const asLocal = (path: string, documents: readonly PackageDocument[], fates: Map<PackageDocument, DocumentFate>): string | undefined => {
    const before = new Map<number, string[]>();
    const appended: string[] = [];
    let waiting: KrmResource[] = [];
    const place = (at: number) => {
      if (waiting.length > 0) before.set(at, [...(before.get(at) ?? []), ...waiting.map((r) => input.render(r))]);
      waiting = [];
    };
    const position = new Map(documents.map((doc, i) => [doc, i]));
    for (const resource of resultsByPath.get(path) ?? []) {
      const doc = localDocOf.get(resource);
      const at = doc && doc.path === path ? position.get(doc) : undefined;
      if (at === undefined) waiting.push(resource);
      else place(at);
    }
    appended.push(...waiting.map((r) => input.render(r)));
    return joinYamlStream(local.files.get(path) ?? '', documents, fates, appended, before);
  };

  const files = new Map<string, string | null>();
  const movedFrom = new Map<string, string[]>();
  for (const [path, resources] of arrivingByPath) {
    const from = [...new Set(resources.flatMap((r) => localDocOf.get(r)?.path ?? []))];
    if (from.length && !local.files.has(path)) movedFrom.set(path, from);
  }
  const paths = [...new Set([...local.files.keys(), ...arrivingByPath.keys()])];
  for (const path of paths) {
    const documents = documentsByPath.get(path) ?? [];
    const fates = new Map<PackageDocument, DocumentFate>();
    let keptLocal = false;
    for (const doc of documents) {
      const resource = parsedLocal.get(doc);
      const stays = resource !== undefined && kept.has(resource) && resource.path === path;
      if (!resource || (stays && !resource.isChanged)) keptLocal = true;
      else if (stays) {
        fates.set(doc, input.render(resource));
        keptLocal = true;
      } else fates.set(doc, null);
    }
    const fresh = arrivingByPath.get(path) ?? [];
    const before = local.files.get(path);
    const untouchedAround = before === undefined || around(before, documents) === around(origin.files.get(path) ?? '', originDocuments.get(path) ?? []);
    const followsUpstream = !keptLocal && untouchedAround && upstream.files.has(path) && (fresh.length > 0 || (before !== undefined && before !== upstream.files.get(path)));
    if (!followsUpstream && fates.size === 0 && fresh.length === 0) continue;
    const after = followsUpstream ? asUpstream(path, resultsByPath.get(path) ?? []) : asLocal(path, documents, fates);
    if (after === before) continue;
    if (!followsUpstream && before !== undefined && after !== undefined) input.rewrites(path, before);
    files.set(path, after ?? null);
  }
  return { files, movedFrom };
}
