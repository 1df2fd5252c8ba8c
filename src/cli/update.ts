/**
 * `package-variant update LOCAL --origin DIR --upstream DIR`: `kpt pkg update` without git.
 *
 * The three packages become one ResourceList in memory and the function merges it. Only what can
 * change the result is parsed: origin and upstream files with the same text are left out (they can
 * only say "upstream did not change this"), and a local document is parsed only when a changed
 * upstream resource may be its counterpart (its identity is read by a line scan). Untouched
 * documents are written back as they were; only files whose resources changed are rewritten.
 */
import { isMap, type Document } from 'yaml';
import { INDEX, LEGACY_INDEX, LEGACY_PATH, PATH } from '../krm/annotations';
import { scanIdentity } from '../krm/identity-scan';
import { KrmResource } from '../krm/resource';
import { ResourceList } from '../krm/resource-list';
import { renderAsRead, rewriteDocument } from '../krm/document-text';
import { errorResult, hasError, type Result } from '../krm/results';
import { firstInvalidByte } from '../krm/utf8';
import { parseYaml } from '../krm/yaml-format';
import { joinYamlStream, type DocumentFate } from '../krm/yaml-stream';
import { identityKeys, identityKeysOf } from '../merge/resources/identity';
import { MERGE_SOURCE } from '../merge/resources/sources';
import { packageVariantFunction } from '../function';
import { readPackage, writePackage, type PackageDocument, type PackageFiles } from './package-dir';

export interface UpdateOptions {
  local: string;
  origin: string;
  upstream: string;
  strategy?: string;
  conflicts?: string;
  upstreamRef?: string;
  upstreamCommit?: string;
}

export interface UpdateOutcome {
  results: Result[];
  written: string[];
  removed: string[];
}

const OUR_ANNOTATIONS = [PATH, INDEX, LEGACY_PATH, LEGACY_INDEX, MERGE_SOURCE];

/** Documents the merge always needs: schemas and package metadata. */
const ALWAYS_NEEDED = /^kind:\s*["']?(CustomResourceDefinition|Kptfile)["']?\s*$/m;

interface ParsedDocument {
  readonly resource: KrmResource;
  /** The file had `annotations: {}`; otherwise a map left empty is dropped, as kpt's writer does. */
  readonly hadEmptyAnnotations: boolean;
}

/**
 * The document each parse came from, and for local documents their rendering as read: a changed
 * resource is written in its document's layout (document-text.ts).
 */
const sources = new WeakMap<Document, { readonly doc: PackageDocument; readonly rendered?: string }>();

function parseDocument(doc: PackageDocument, tag: string | undefined): ParsedDocument | undefined {
  const { doc: parsed } = parseYaml(doc.text, { releaseTokens: true, ...(doc.version ? { version: doc.version } : {}) });
  if (parsed.errors.length > 0) throw new Error(`${doc.path}: ${parsed.errors[0]!.message.split('\n')[0]}`);
  if (!isMap(parsed.contents)) return undefined;
  const annotations = parsed.getIn(['metadata', 'annotations'], true);
  const hadEmptyAnnotations = isMap(annotations) && annotations.items.length === 0;
  const resource = KrmResource.fromTree(parsed.contents, parsed, 'input');
  if (!resource.isKrmObject) return undefined;
  // A local document's rendering before any edit, to tell its author's layout from the merge's changes.
  sources.set(parsed, { doc, ...(tag === undefined ? { rendered: renderAsRead(doc.text, parsed) } : {}) });
  resource.setAnnotation(PATH, doc.path);
  resource.setAnnotation(INDEX, String(doc.index));
  if (tag) resource.setAnnotation(MERGE_SOURCE, tag);
  // These annotations are the command's own bookkeeping, not edits: written back, they are removed.
  return { resource: KrmResource.fromTree(parsed.contents, parsed, 'input'), hadEmptyAnnotations };
}

/** Origin and upstream documents in files whose text differs between the two versions. */
function changedUpstream(origin: PackageFiles, upstream: PackageFiles): { origin: PackageDocument[]; upstream: PackageDocument[] } {
  const differs = (doc: PackageDocument, other: PackageFiles, own: PackageFiles) =>
    other.files.get(doc.path) !== own.files.get(doc.path) || ALWAYS_NEEDED.test(doc.text);
  return {
    origin: origin.documents.filter((d) => differs(d, upstream, origin)),
    upstream: upstream.documents.filter((d) => differs(d, origin, upstream)),
  };
}

function functionConfig(options: UpdateOptions): KrmResource {
  const data: Record<string, string> = {};
  if (options.strategy) data.strategy = options.strategy;
  if (options.conflicts) data.conflicts = options.conflicts;
  if (options.upstreamRef) data.upstreamRef = options.upstreamRef;
  if (options.upstreamCommit) data.upstreamCommit = options.upstreamCommit;
  return KrmResource.fromData({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'update-options' }, data });
}

/**
 * The resource as it goes to disk: without the annotations the command added for the function.
 * Edits the node in place: nothing reads it after it is written.
 */
function diskText(resource: KrmResource, hadEmptyAnnotations: boolean): string {
  const node = resource.node;
  const annotations = node.getIn(['metadata', 'annotations'], true);
  const metadata = node.get('metadata', true);
  if (isMap(annotations)) {
    for (const key of OUR_ANNOTATIONS) annotations.delete(key);
    if (annotations.items.length === 0 && !hadEmptyAnnotations && isMap(metadata)) metadata.delete('annotations');
  }
  const source = sources.get(resource.doc);
  return rewriteDocument(node, resource.doc, source && { text: source.doc.text, ...(source.rendered !== undefined ? { rendered: source.rendered } : {}) });
}

/**
 * Leaving out what upstream did not change is sound only for resource-merge: the other strategies
 * look at every local resource (force-delete-replace drops local-only ones, fast-forward refuses
 * local additions).
 */
function mayLeaveOut(options: UpdateOptions, kptfile: ParsedDocument | undefined): boolean {
  if (options.strategy) return options.strategy === 'resource-merge';
  const recorded = kptfile?.resource.get(['upstream', 'updateStrategy']);
  return recorded === undefined || recorded === null || recorded === 'resource-merge';
}

export function updatePackage(options: UpdateOptions): UpdateOutcome {
  const local = readPackage(options.local);
  const origin = readPackage(options.origin);
  const upstream = readPackage(options.upstream);
  const kptfileDoc = local.documents.find((d) => d.path === 'Kptfile');
  const kptfile = kptfileDoc && parseDocument(kptfileDoc, undefined);
  const leaveOut = mayLeaveOut(options, kptfile);
  const changed = leaveOut ? changedUpstream(origin, upstream) : { origin: origin.documents, upstream: upstream.documents };
  const tagged = [
    ...changed.origin.map((d) => parseDocument(d, 'original')),
    ...changed.upstream.map((d) => parseDocument(d, 'updated')),
  ].filter((p): p is ParsedDocument => p !== undefined);
  const wanted = new Set(tagged.flatMap((p) => identityKeys(p.resource)));

  // Each local document: parsed when it may take part in the merge, else kept as text.
  const parsedLocal = new Map<PackageDocument, ParsedDocument>();
  for (const doc of local.documents) {
    const scanned = scanIdentity(doc.text);
    if (scanned?.krm === false) continue;
    const needed = !leaveOut || !scanned || ALWAYS_NEEDED.test(doc.text) || identityKeysOf({ ...scanned, path: doc.path }).some((k) => wanted.has(k));
    const parsed = doc === kptfileDoc ? kptfile : needed ? parseDocument(doc, undefined) : undefined;
    if (parsed) parsedLocal.set(doc, parsed);
  }

  const list = new ResourceList('config.kubernetes.io/v1', [...[...parsedLocal.values()].map((p) => p.resource), ...tagged.map((p) => p.resource)], functionConfig(options));
  packageVariantFunction(list);
  if (hasError(list.results)) return { results: list.results, written: [], removed: [] };
  const { written, removed, problems } = writeBack(options.local, local, parsedLocal, list.items);
  return { results: [...list.results, ...problems], written, removed };
}

function groupBy<T>(values: readonly T[], key: (value: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const value of values) {
    const k = key(value);
    const group = groups.get(k);
    if (group) group.push(value);
    else groups.set(k, [value]);
  }
  return groups;
}

/**
 * A file whose text is not UTF-8 (utf8.ts) is written back only as it was: rewriting a document of
 * it, or copying one from it, is refused with a result naming the file.
 */
function notUtf8(path: string, text: string): Result | undefined {
  const at = firstInvalidByte(text);
  if (at === -1) return undefined;
  const line = text.slice(0, at).split('\n').length;
  return errorResult(`${path} is not valid UTF-8 (line ${line}) and the update would rewrite it; fix its encoding`, { file: { path } });
}

/** Rewrites the files whose resources changed, keeping every other document's text. */
function writeBack(root: string, local: PackageFiles, parsedLocal: ReadonlyMap<PackageDocument, ParsedDocument>, items: readonly KrmResource[]): { written: string[]; removed: string[]; problems: Result[] } {
  const kept = new Set(items);
  const origins = new Map([...parsedLocal].map(([doc, parsed]) => [parsed.resource, { doc, parsed }]));
  // Resources that are new to a file: added upstream, or moved there from another file.
  const arriving = items.filter((item) => origins.get(item)?.doc.path !== item.path);
  // One result per file, however many of its documents are rewritten or copied.
  const problems = new Map<string, Result>();
  const refuse = (path: string, text: string) => {
    const invalid = notUtf8(path, text);
    if (invalid) problems.set(path, invalid);
  };
  const text = (resource: KrmResource) => {
    const source = sources.get(resource.doc)?.doc;
    if (source) refuse(source.path, source.text);
    return diskText(resource, origins.get(resource)?.parsed.hadEmptyAnnotations ?? false);
  };
  const files = new Map<string, string>();
  const removed: string[] = [];
  const documentsByPath = groupBy(local.documents, (d) => d.path);
  const arrivingByPath = groupBy(arriving, (r) => r.path as string);
  const paths = [...new Set([...local.files.keys(), ...arrivingByPath.keys()])];
  for (const path of paths) {
    const fates = new Map<PackageDocument, DocumentFate>();
    const documents = documentsByPath.get(path) ?? [];
    for (const doc of documents) {
      const resource = parsedLocal.get(doc)?.resource;
      if (!resource || (kept.has(resource) && resource.path === path && !resource.isChanged)) continue;
      fates.set(doc, kept.has(resource) && resource.path === path ? text(resource) : null);
    }
    const appended = (arrivingByPath.get(path) ?? []).map(text);
    const before = local.files.get(path);
    const after = joinYamlStream(before ?? '', documents, fates, appended);
    if (after === before) continue;
    if (before !== undefined && after !== undefined) refuse(path, before);
    if (after === undefined) removed.push(path);
    else files.set(path, after);
  }
  if (problems.size > 0) return { written: [], removed: [], problems: [...problems.values()] };
  writePackage(root, files, removed);
  return { written: [...files.keys()].sort(), removed: removed.sort(), problems: [] };
}
