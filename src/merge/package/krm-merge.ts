/**
 * The resource part of an update: the three packages' resource files become one ResourceList in
 * memory and the function's merge step merges it.
 *
 * Only what can change the result is parsed: origin and upstream files with the same text are left
 * out (they can only say "upstream did not change this"), and a local document is parsed only when a
 * changed upstream resource may be its counterpart (its identity is read by a line scan) or its
 * package is decided whole. Only files whose resources changed are rewritten, and in them only the
 * changed documents, each in its own layout (krm/document-text.ts); every other byte stays.
 */
import { isMap, isScalar, type Document, type YAMLMap } from 'yaml';
import type { MergeStrategy } from '../../config/function-config';
import { INDEX, LEGACY_INDEX, LEGACY_PATH, PATH } from '../../krm/annotations';
import { scanDefinedKind, scanIdentity, type ScanOutcome } from '../../krm/identity-scan';
import { ParseBudget, ParseBudgetExceeded } from '../../yaml/parse-budget';
import { KrmResource } from '../../krm/resource';
import { ResourceList } from '../../krm/resource-list';
import { renderAsRead, rewriteDocument } from '../../yaml/document-text';
import { keyOf, meaningfulLines } from '../../yaml/line-scan';
import { findSeqIndent } from '../../yaml/seq-indent';
import { errorResult, FunctionError, hasError, type Result } from '../../krm/results';
import { firstInvalidByte } from '../../yaml/utf8';
import { readDocument } from '../../yaml/tree-builder';
import { sameDocumentTree } from '../../yaml/same-tree';
import { mergeUpstream, type MergeContext, type MergeReport } from '..';
import { identityKeys, identityKeysOf, inScope } from '../resources/identity';
import { MERGE_SOURCE } from '../resources/sources';
import { KrmFilesReader, type KrmFiles, type PackageDocument } from '../../package/krm-files';
import { mergeDocumentComments } from './document-comments';
import { fileTexts } from './file-texts';
import { isWithin, packageDirsOf, scopeOf } from '../../package/scopes';
import type { PackageTree } from '../../package/tree';

export interface KrmMergeOptions {
  readonly strategy?: MergeStrategy;
  readonly conflicts?: 'upstream-wins' | 'error';
  readonly upstreamRef?: string;
  readonly upstreamCommit?: string;
}

export interface KrmMergeOutcome {
  readonly results: Result[];
  /** Undefined when the merge failed (an error result). */
  readonly report?: MergeReport;
  /** Resource files to write (path -> text) and to remove (path -> null). */
  readonly files: ReadonlyMap<string, string | null>;
  /** For a file the local package did not have: the local files whose resources moved there (upstream moved them). */
  readonly movedFrom?: ReadonlyMap<string, readonly string[]>;
}

/** The resource files of the three versions. */
export interface KrmVersions {
  readonly local: KrmFiles;
  readonly origin: KrmFiles;
  readonly upstream: KrmFiles;
  /** YAML files that hold a document that is not a map (a list, a scalar) in some version: plain files, for the non-KRM rules. */
  readonly plainYaml: ReadonlySet<string>;
  /** A document's identity as a line scan reads it, once per document. */
  readonly scan: (doc: PackageDocument) => ScanOutcome;
}

export function readKrmVersions(local: PackageTree, origin: PackageTree, upstream: PackageTree): KrmVersions {
  const reader = new KrmFilesReader();
  const versions = { local: reader.read(local), origin: reader.read(origin), upstream: reader.read(upstream) };
  const scans = new Map<PackageDocument, ScanOutcome>();
  // Most documents have one text in every version: a document with the text of the first one
  // scanned at its place shares that one's scan.
  const firstAt = new Map<string, PackageDocument>();
  const scan = (doc: PackageDocument) => {
    if (!scans.has(doc)) {
      const first = firstAt.get(placeOf(doc));
      if (first === undefined) firstAt.set(placeOf(doc), doc);
      scans.set(doc, first !== undefined && first.text === doc.text ? scans.get(first) : scanIdentity(doc.text));
    }
    return scans.get(doc);
  };
  return { ...versions, scan, plainYaml: plainYamlFiles([versions.local, versions.origin, versions.upstream], scan) };
}

const OUR_ANNOTATIONS = [PATH, INDEX, LEGACY_PATH, LEGACY_INDEX, MERGE_SOURCE];

/** Package metadata, which the merge always needs. */
const KPTFILE_KIND = /^kind:\s*["']?Kptfile["']?\s*$/m;
/** A multi-line pattern walks every line; the word alone rules most documents out. */
const holdsKptfile = (text: string): boolean => text.includes('Kptfile') && KPTFILE_KIND.test(text);
const CRD_KIND = /^kind:\s*["']?CustomResourceDefinition["']?\s*$/m;

/**
 * A CRD the merge needs for its schema: one that defines the kind of a resource it merges (`kinds`,
 * `group/kind`), or one whose definition a line scan cannot read.
 */
function neededSchema(doc: PackageDocument, kinds: ReadonlySet<string>): boolean {
  if (!doc.text.includes('CustomResourceDefinition') || !CRD_KIND.test(doc.text)) return false;
  const defined = scanDefinedKind(doc.text);
  return defined === undefined || kinds.has(`${defined.group}/${defined.kind}`);
}

interface ParsedDocument {
  readonly resource: KrmResource;
  /** The file had `annotations: {}`; otherwise a map left empty is dropped, as kpt's writer does. */
  readonly hadEmptyAnnotations: boolean;
}

class ParseError extends Error {}

/**
 * What an origin or upstream document's `metadata.annotations` was before the command added its
 * own: absent, or a map without any of them. Taking them out again then leaves the tree exactly as
 * parsed; anything else (a key of ours already there, a value that is no map) does not.
 */
type AnnotationsAsRead = 'absent' | 'map';

interface DocumentSource {
  readonly doc: PackageDocument;
  /** A local document's rendering before any edit: a changed resource is written in its document's layout (krm/document-text.ts). */
  rendered?: string;
  /** The document had `metadata` before the path and index annotations gave it one (a kustomization.yaml has none). */
  readonly hadMetadata: boolean;
  /** An origin or upstream document whose tree can be put back as parsed (`annotationsAsRead`), rendered only when a copy of it is written. */
  readonly annotationsAsRead?: AnnotationsAsRead;
}

/** The document each parse came from. */
const sources = new WeakMap<Document, DocumentSource>();

function annotationsAsRead(annotations: unknown): AnnotationsAsRead | undefined {
  if (annotations === undefined) return 'absent';
  return isMap(annotations) && OUR_ANNOTATIONS.every((key) => !annotations.has(key)) ? 'map' : undefined;
}

const onlyOurs = (annotations: YAMLMap) => annotations.items.every((pair) => OUR_ANNOTATIONS.includes(String(isScalar(pair.key) ? pair.key.value : pair.key)));

/**
 * Takes the command's annotations out of the parse of an upstream document a resource was copied
 * from (nothing reads it after the merge); whether that leaves it exactly as parsed. The copy is then
 * compared with it, or laid out as its rendering, instead of the text being parsed again (for a large
 * CRD, most of an update's time). Where it cannot be put back, the text is read again.
 */
function putBackAsParsed(parsed: Document, source: DocumentSource): boolean {
  if (source.annotationsAsRead === undefined) return false;
  const metadata = parsed.get('metadata', true);
  if (!isMap(metadata)) return false;
  const annotations = metadata.get('annotations', true);
  if (!isMap(annotations)) return false;
  if (source.annotationsAsRead === 'map') for (const key of OUR_ANNOTATIONS) annotations.delete(key);
  else if (onlyOurs(annotations)) metadata.delete('annotations');
  else return false;
  if (!source.hadMetadata) {
    if (metadata.items.length > 0) return false;
    parsed.delete('metadata');
  }
  return true;
}

/**
 * What one update may hand to `yaml`'s parser, the function's bound for a run: the documents outside
 * the simple subset cost it tens of bytes a byte (README "Safety"), so they bound the memory.
 */
class ParserShare {
  private readonly budget = new ParseBudget();

  spend(doc: PackageDocument): void {
    try {
      this.budget.spend(doc.text);
    } catch (error) {
      if (error instanceof ParseBudgetExceeded) throw new ParseError(`${doc.path}: ${error.message}`);
      throw error;
    }
  }
}

/** A document's parse and the resource it holds: every map is one (kpt's rule); undefined for a list or a scalar. */
function parseResource(doc: PackageDocument, share: ParserShare): { parsed: Document; resource: KrmResource } | undefined {
  const parsed = readDocument(doc.text, doc.version, () => share.spend(doc));
  if (parsed.errors.length > 0) throw new ParseError(`${doc.path}: ${parsed.errors[0]!.message.split('\n')[0]}`);
  if (!isMap(parsed.contents)) return undefined;
  return { parsed, resource: KrmResource.fromTree(parsed.contents, parsed, 'input') };
}

/** Which version a document is read from: local's, or origin's or upstream's (`tagged`: the merge's sources). */
type Version = 'local' | 'tagged';

function parseDocument(doc: PackageDocument, version: Version, share: ParserShare): ParsedDocument | undefined {
  const read = parseResource(doc, share);
  if (!read) return undefined;
  const { parsed, resource } = read;
  const annotations = parsed.getIn(['metadata', 'annotations'], true);
  const hadEmptyAnnotations = isMap(annotations) && annotations.items.length === 0;
  // A local document's rendering before any edit, to tell its author's layout from the merge's changes.
  const asRead = version === 'tagged' ? annotationsAsRead(annotations ?? undefined) : undefined;
  sources.set(parsed, { doc, hadMetadata: parsed.has('metadata'), ...(version === 'local' ? { rendered: renderAsRead(doc.text, parsed) } : {}), ...(asRead ? { annotationsAsRead: asRead } : {}) });
  resource.setAnnotation(PATH, doc.path);
  resource.setAnnotation(INDEX, String(doc.index));
  // These annotations are the command's own bookkeeping, not edits: written back, they are removed.
  return { resource: KrmResource.fromTree(resource.node, parsed, 'input'), hadEmptyAnnotations };
}

/**
 * Local documents, each parsed once, and what a same document of origin can share: where origin
 * has the very text local has at the same place, which is most of a package an upstream change
 * touches, origin's resource reads local's tree. The merge only reads origin, and edits local's
 * tree only after it has read both (src/merge/strategies/merge-run.ts, applyVisitor); nothing
 * reads origin after that.
 */
class LocalDocuments {
  private readonly parsed = new Map<PackageDocument, ParsedDocument | undefined>();
  private readonly byPlace: ReadonlyMap<string, PackageDocument>;

  constructor(
    local: KrmFiles,
    private readonly share: ParserShare,
  ) {
    this.byPlace = new Map(local.documents.map((doc) => [placeOf(doc), doc]));
  }

  parse(doc: PackageDocument): ParsedDocument | undefined {
    if (!this.parsed.has(doc)) this.parsed.set(doc, parseDocument(doc, 'local', this.share));
    return this.parsed.get(doc);
  }

  /** Origin's resource for `doc` on local's tree of the same text, if local has that text there. */
  twinOf(doc: PackageDocument): ParsedDocument | undefined {
    const local = this.byPlace.get(placeOf(doc));
    if (!local || local.text !== doc.text || local.version !== doc.version) return undefined;
    const parsed = this.parse(local);
    return parsed && { resource: KrmResource.fromTree(parsed.resource.node, parsed.resource.doc, 'input'), hadEmptyAnnotations: parsed.hadEmptyAnnotations };
  }
}

const placeOf = (doc: PackageDocument) => `${doc.index}:${doc.path}`;

/**
 * The resource as it goes to disk: without the annotations the command added for the function, in
 * the layout of the document it was read from (local's, or upstream's for a resource upstream
 * added). The one place the update renders a resource. Edits the node in place: nothing reads it
 * after it is written.
 */
function diskText(resource: KrmResource, hadEmptyAnnotations: boolean, upstream?: KrmResource, layout?: KrmResource): string {
  const node = resource.node;
  const annotations = node.getIn(['metadata', 'annotations'], true);
  const metadata = node.get('metadata', true);
  const own = sources.get(resource.doc);
  // A resource laid out as upstream's document (a moved file) is written in that document's layout.
  const source = (layout && sources.get(layout.doc)) ?? own;
  // New blocks in a document without sequences (a Kptfile's first pipeline) follow upstream's indentation.
  const fallback = source && findSeqIndent(source.doc.text) === undefined ? findSeqIndent((upstream && sources.get(upstream.doc)?.doc.text) ?? '') : undefined;
  if (isMap(annotations)) {
    for (const key of OUR_ANNOTATIONS) annotations.delete(key);
    if (annotations.items.length === 0 && !hadEmptyAnnotations && isMap(metadata)) metadata.delete('annotations');
  }
  // The path and index annotations gave a document without metadata (a kustomization.yaml) one.
  if (own && !own.hadMetadata && isMap(metadata) && metadata.items.length === 0) node.delete('metadata');
  const parsed = source === own ? resource.doc : layout?.doc;
  if (source && parsed && source.rendered === undefined && putBackAsParsed(parsed, source)) {
    // A copy of an upstream resource the merge left as it was is that document's text: nothing to render.
    if (sameDocumentTree(node, resource.doc, parsed)) return source.doc.text.replace(/\r\n/g, '\n');
    source.rendered = renderAsRead(source.doc.text, parsed);
  }
  const rendered = source?.rendered;
  return rewriteDocument(
    node,
    resource.doc,
    source && { text: source.doc.text, ...(rendered !== undefined ? { rendered } : {}), ...(fallback ? { fallbackSeqIndent: fallback } : {}) },
  );
}

/**
 * Leaving out what upstream did not change is sound only for resource-merge: the other strategies
 * look at every local resource (force-delete-replace drops local-only ones, fast-forward refuses
 * local additions).
 */
function mayLeaveOut(options: KrmMergeOptions, kptfile: ParsedDocument | undefined): boolean {
  if (options.strategy) return options.strategy === 'resource-merge';
  const recorded = kptfile?.resource.get(['upstream', 'updateStrategy']);
  return recorded === undefined || recorded === null || recorded === 'resource-merge';
}

interface TaggedDocument {
  readonly parsed: ParsedDocument;
  /** Its identity keys in its package scope. */
  readonly keys: readonly string[];
}

/** Origin's or upstream's resource documents, each parsed once, as the merge asks for them. */
class MergeSide {
  private readonly parsed = new Map<PackageDocument, TaggedDocument | undefined>();
  /** Package scopes as the merge draws them: local's boundaries, and this version's own. */
  private readonly bounds: ReadonlySet<string>;

  constructor(
    private readonly own: KrmFiles,
    private readonly other: KrmFiles,
    localDirs: ReadonlySet<string>,
    private readonly isResourceDoc: (doc: PackageDocument) => boolean,
    private readonly share: ParserShare,
    /** A parse this version may share instead of its own (origin: local's, LocalDocuments). */
    private readonly twinOf: (doc: PackageDocument) => ParsedDocument | undefined = () => undefined,
  ) {
    this.bounds = new Set([...localDirs, ...packageDirsOf(own.files.keys())]);
  }

  /** In a file whose text the other version does not share, or a Kptfile. */
  changed(doc: PackageDocument): boolean {
    return this.other.files.get(doc.path) !== this.own.files.get(doc.path) || holdsKptfile(doc.text);
  }

  /** The documents `wanted` picks that hold a resource, parsed and tagged, in file order. */
  read(wanted: (doc: PackageDocument) => boolean): TaggedDocument[] {
    return this.own.documents.flatMap((doc) => {
      if (!this.isResourceDoc(doc) || !wanted(doc)) return [];
      if (!this.parsed.has(doc)) {
        const p = this.twinOf(doc) ?? parseDocument(doc, 'tagged', this.share);
        this.parsed.set(doc, p && { parsed: p, keys: inScope(scopeOf(p.resource.path!, this.bounds), identityKeys(p.resource)) });
      }
      const tagged = this.parsed.get(doc);
      return tagged ? [tagged] : [];
    });
  }
}

/**
 * The files of a version that may declare one identity twice: the merge refuses them, as kpt does,
 * so it must see every document of them, also where upstream left the file as it was. A file with
 * a document the line scan cannot read is counted in.
 */
function filesWithTwins(files: KrmFiles, scan: (doc: PackageDocument) => ScanOutcome, isResourceDoc: (doc: PackageDocument) => boolean): Set<string> {
  const twins = new Set<string>();
  for (const [path, documents] of groupBy(files.documents.filter(isResourceDoc), (d) => d.path)) {
    if (documents.length < 2) continue;
    const seen = new Set<string>();
    for (const doc of documents) {
      const scanned = scan(doc);
      const keys = scanned === undefined ? undefined : scanned.krm ? identityKeysOf({ ...scanned, path }) : [];
      if (keys === undefined || keys.some((key) => seen.has(key))) twins.add(path);
      for (const key of keys ?? []) seen.add(key);
    }
  }
  return twins;
}

/**
 * The files upstream's version holds a resource in that origin's did not (added, or moved there):
 * such a resource is placed among the file's local documents, so each of them must be seen. A
 * document the line scan cannot read counts as new.
 */
function gainingFiles(origin: KrmFiles, upstream: KrmFiles, scan: (doc: PackageDocument) => ScanOutcome): Set<string> {
  const keysAt = new Map<string, Set<string>>();
  for (const doc of origin.documents) {
    const scanned = scan(doc);
    if (!scanned?.krm) continue;
    const keys = keysAt.get(doc.path) ?? new Set<string>();
    for (const key of identityKeysOf({ ...scanned, path: doc.path })) keys.add(key);
    keysAt.set(doc.path, keys);
  }
  const gaining = new Set<string>();
  for (const doc of upstream.documents) {
    if (gaining.has(doc.path) || origin.files.get(doc.path) === upstream.files.get(doc.path)) continue;
    const scanned = scan(doc);
    const keys = scanned?.krm ? identityKeysOf({ ...scanned, path: doc.path }) : undefined;
    if (!keys || !keys.some((key) => keysAt.get(doc.path)?.has(key))) gaining.add(doc.path);
  }
  return gaining;
}

/** Packages deleted upstream are decided whole: each of their local resources must be seen. */
function deletedUpstream(origin: KrmFiles, upstream: KrmFiles, local: KrmFiles): Set<string> {
  const dirs = (files: KrmFiles) => packageDirsOf(files.files.keys());
  const [o, u, l] = [dirs(origin), dirs(upstream), dirs(local)];
  return new Set([...l].filter((dir) => dir !== '' && o.has(dir) && !u.has(dir)));
}

/**
 * Whether a file holds a document that is not a map (a list, a scalar), which kpt cannot read as a
 * resource; one that does not parse is left to the merge, which names it.
 */
function holdsNonMap(documents: readonly PackageDocument[], scan: (doc: PackageDocument) => ScanOutcome): boolean {
  return documents.some((doc) => {
    const scanned = scan(doc);
    if (scanned) return !scanned.krm;
    // A document that opens with a key at column 0 is a block map: no parse needed to say so.
    const first = meaningfulLines(doc.text)[0];
    if (first && first.indent === 0 && !first.text.startsWith('-') && keyOf(first.text) !== undefined) return false;
    try {
      return parseResource(doc, new ParserShare()) === undefined;
    } catch {
      return false;
    }
  });
}

/**
 * The YAML files that hold a document that is not a map in some version, or no document in any (only
 * comments): they follow the non-KRM rule whole. A text a version shares with an earlier one is not
 * read again. Texts are compared, not looked up: hashing whole files costs more.
 */
function plainYamlFiles(versions: readonly KrmFiles[], scan: (doc: PackageDocument) => ScanOutcome): Set<string> {
  const plain = new Set<string>();
  const documents = versions.map((files) => groupBy(files.documents, (d) => d.path));
  const paths = new Set(versions.flatMap((files) => [...files.files.keys()]));
  for (const path of paths) {
    if (path.endsWith('Kptfile')) continue;
    const read: string[] = [];
    const isPlain = versions.some((files, i) => {
      const text = files.files.get(path);
      if (text === undefined || read.includes(text)) return false;
      read.push(text);
      return holdsNonMap(documents[i]!.get(path) ?? [], scan);
    });
    if (isPlain || documents.every((byPath) => !byPath.has(path))) plain.add(path);
  }
  return plain;
}

function optionsConfig(options: KrmMergeOptions): { strategy?: MergeStrategy; conflicts: 'upstream-wins' | 'error'; upstreamRef?: string; upstreamCommit?: string } {
  return {
    conflicts: options.conflicts ?? 'upstream-wins',
    ...(options.strategy ? { strategy: options.strategy } : {}),
    ...(options.upstreamRef ? { upstreamRef: options.upstreamRef } : {}),
    ...(options.upstreamCommit ? { upstreamCommit: options.upstreamCommit } : {}),
  };
}

export function mergeResources(versions: KrmVersions, options: KrmMergeOptions, context: MergeContext): KrmMergeOutcome {
  const { local, origin, upstream, plainYaml, scan } = versions;
  const isResourceDoc = (doc: PackageDocument) => !plainYaml.has(doc.path);
  try {
    const kptfileDoc = local.documents.find((d) => d.path === 'Kptfile');
    const share = new ParserShare();
    const localDocs = new LocalDocuments(local, share);
    const kptfile = kptfileDoc && localDocs.parse(kptfileDoc);
    const leaveOut = mayLeaveOut(options, kptfile);
    const localDirs = packageDirsOf(local.files.keys());
    const sides = [new MergeSide(origin, upstream, localDirs, isResourceDoc, share, (doc) => localDocs.twinOf(doc)), new MergeSide(upstream, origin, localDirs, isResourceDoc, share)];
    const [originTwins, upstreamTwins, localTwins] = [origin, upstream, local].map((files) => filesWithTwins(files, scan, isResourceDoc)) as [Set<string>, Set<string>, Set<string>];
    const twins = (side: MergeSide) => (side === sides[0] ? originTwins : upstreamTwins);
    // What upstream changed, then the CRDs that define the kinds it changed: their schemas.
    const kinds = new Set(sides.flatMap((side) => side.read((doc) => !leaveOut || side.changed(doc))).map((t) => `${t.parsed.resource.group}/${t.parsed.resource.kind}`));
    const read = sides.map((side) => side.read((doc) => !leaveOut || side.changed(doc) || twins(side).has(doc.path) || neededSchema(doc, kinds)));
    const taggedSides = read.flat();
    const wanted = new Set(taggedSides.flatMap((t) => t.keys));
    const whole = deletedUpstream(origin, upstream, local);
    const gaining = gainingFiles(origin, upstream, scan);

    // Each local document: parsed when it may take part in the merge, else kept as text.
    const parsedLocal = new Map<PackageDocument, ParsedDocument>();
    for (const doc of local.documents) {
      if (!isResourceDoc(doc)) continue;
      const scanned = scan(doc);
      if (scanned?.krm === false) continue;
      const scope = scopeOf(doc.path, localDirs);
      const needed =
        !leaveOut ||
        !scanned ||
        holdsKptfile(doc.text) ||
        localTwins.has(doc.path) ||
        gaining.has(doc.path) ||
        neededSchema(doc, kinds) ||
        [...whole].some((dir) => isWithin(scope, dir)) ||
        inScope(scope, identityKeysOf({ ...scanned, path: doc.path })).some((k) => wanted.has(k));
      const parsed = needed ? localDocs.parse(doc) : undefined;
      if (parsed) parsedLocal.set(doc, parsed);
    }

    const resources = (documents: readonly TaggedDocument[]) => documents.map((t) => t.parsed.resource);
    const mergeSources = { local: [...parsedLocal.values()].map((p) => p.resource), origin: resources(read[0]!), upstream: resources(read[1]!) };
    const list = new ResourceList('config.kubernetes.io/v1', [...mergeSources.local, ...mergeSources.origin, ...mergeSources.upstream], undefined);
    const report = mergeUpstream(list, optionsConfig(options), { ...context, sources: mergeSources });
    if (hasError(list.results) || !report) return { results: list.results, files: new Map() };
    const { counterparts } = report;
    mergeDocumentComments(list.items, counterparts);
    // One result per file that is not UTF-8, however many of its documents are rewritten or copied.
    const problems = new Map<string, Result>();
    const refuse = (path: string, text: string) => {
      const invalid = notUtf8(path, text);
      if (invalid) problems.set(path, invalid);
    };
    const hadEmptyAnnotations = new Map([...parsedLocal.values()].map((p) => [p.resource, p.hadEmptyAnnotations]));
    const render = (resource: KrmResource, layout?: KrmResource) => {
      const source = sources.get(resource.doc)?.doc;
      if (source) refuse(source.path, source.text);
      return diskText(resource, hadEmptyAnnotations.get(resource) ?? false, counterparts.get(resource)?.upstream, layout);
    };
    const plain = (files: KrmFiles) => withoutPaths(files, plainYaml);
    const { files, movedFrom } = fileTexts({
      local: plain(local),
      origin: plain(origin),
      upstream: plain(upstream),
      parsedLocal: new Map([...parsedLocal].map(([doc, parsed]) => [doc, parsed.resource])),
      items: list.items,
      counterparts,
      documentOf: (parse) => sources.get(parse)?.doc,
      render,
      rewrites: refuse,
    });
    if (problems.size > 0) return { results: [...list.results, ...problems.values()], files: new Map() };
    return { results: list.results, report, files, movedFrom };
  } catch (error) {
    if (error instanceof ParseError) return { results: [{ severity: 'error', message: error.message }], files: new Map() };
    if (error instanceof FunctionError) return { results: error.results, files: new Map() };
    throw error;
  }
}

/** The files and documents of a version, but for `paths`. */
function withoutPaths(files: KrmFiles, paths: ReadonlySet<string>): KrmFiles {
  if (paths.size === 0) return files;
  return { files: new Map([...files.files].filter(([path]) => !paths.has(path))), documents: files.documents.filter((doc) => !paths.has(doc.path)) };
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
 * A file whose text is not UTF-8 (krm/utf8.ts) is written back only as it was: rewriting a document
 * of it, or copying one from it, is refused with a result naming the file.
 */
function notUtf8(path: string, text: string): Result | undefined {
  const at = firstInvalidByte(text);
  if (at === -1) return undefined;
  const line = text.slice(0, at).split('\n').length;
  return errorResult(`${path} is not valid UTF-8 (line ${line}) and the update would rewrite it; fix its encoding`, { file: { path } });
}
