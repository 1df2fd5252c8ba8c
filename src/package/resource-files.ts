/**
 * A package's resources as the function's steps see them, and the package again after they edited
 * it: every KRM document of a PackageTree becomes a KrmResource carrying kpt's path and index
 * annotations, as `kpt fn source` would send it; afterwards only the files whose resources changed
 * are written, and in them only the changed documents, each in its own layout (yaml/document-text.ts).
 * Resources added with a path annotation are appended to that file, or make it.
 */
import { isMap, type Document, type YAMLMap } from 'yaml';
import { INDEX, LEGACY_INDEX, LEGACY_PATH, PATH } from '../krm/annotations';
import { KrmResource } from '../krm/resource';
import { rewriteDocument } from '../yaml/document-text';
import { ParseBudget, ParseBudgetExceeded } from '../yaml/parse-budget';
import { readSimpleBlockMap } from '../yaml/data-reader';
import { readDocument } from '../yaml/tree-builder';
import { encodeText } from '../yaml/utf8';
import { joinYamlStream, type DocumentFate } from '../yaml/yaml-stream';
import { krmFiles, type PackageDocument } from './krm-files';
import { directoriesOf, PackageTree } from './tree';

/** A resource file that cannot be read (not YAML, past the parser's budget). */
export class ResourceFileError extends Error {}

const POSITION = [PATH, INDEX, LEGACY_PATH, LEGACY_INDEX];

interface Origin {
  readonly doc: PackageDocument;
  /** The file had `annotations: {}`; otherwise a map left empty is dropped, as kpt's writer does. */
  readonly hadEmptyAnnotations: boolean;
}

const NEW_FILE_MODE = 0o644;

/** The most text the memo below holds before it starts again: a fleet's documents, many times over. */
const MEMO_TEXT_LIMIT = 64 << 20;

/** Data frozen all the way down: shared between resources, which must never change it (KrmResource.fromPlain). */
function frozen<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * The plain data of each distinct document text, read once: the packages of a fleet (one upstream,
 * many downstreams, each read again for every check) share most of their documents' texts.
 */
class PlainDataMemo {
  private readonly byText = new Map<string, Record<string, unknown> | null>();
  private held = 0;

  read(text: string): Record<string, unknown> | undefined {
    let data = this.byText.get(text);
    if (data === undefined) {
      if (this.held > MEMO_TEXT_LIMIT) {
        this.byText.clear();
        this.held = 0;
      }
      data = frozen(readSimpleBlockMap(text)) ?? null;
      this.byText.set(text, data);
      this.held += text.length;
    }
    return data ?? undefined;
  }
}

const plainData = new PlainDataMemo();

export class PackageResources {
  private constructor(
    readonly tree: PackageTree,
    /** Every KRM object of the package, in file order. */
    readonly items: readonly KrmResource[],
    private readonly origins: ReadonlyMap<KrmResource, Origin>,
    private readonly documents: readonly PackageDocument[],
  ) {}

  static read(tree: PackageTree): PackageResources {
    const budget = new ParseBudget();
    const { documents } = krmFiles(tree);
    const items: KrmResource[] = [];
    const origins = new Map<KrmResource, Origin>();
    for (const doc of documents) {
      // Most documents are only looked at: read as data, their tree built only when a step edits them.
      const plain = doc.version === '1.1' ? undefined : plainData.read(doc.text);
      const read = plain ? { resource: KrmResource.fromPlain(positioned(plain, doc), buildPositioned, 'input', { doc, budget }), hadEmptyAnnotations: emptyAnnotations(plain) } : parsedResource(doc, budget);
      if (!read?.resource.isKrmObject) continue;
      items.push(read.resource);
      origins.set(read.resource, { doc, hadEmptyAnnotations: read.hadEmptyAnnotations });
    }
    return new PackageResources(tree, items, origins, documents);
  }

  /** The resource as it goes to its file: without the position annotations, in its document's layout. */
  private text(resource: KrmResource): string {
    const node = resource.node;
    const annotations = node.getIn(['metadata', 'annotations'], true);
    const origin = this.origins.get(resource);
    if (isMap(annotations)) {
      for (const key of POSITION) annotations.delete(key);
      const metadata = node.get('metadata', true);
      if (annotations.items.length === 0 && !origin?.hadEmptyAnnotations && isMap(metadata)) metadata.delete('annotations');
    }
    // The layout as read comes from the text again, for the few resources a step changes.
    return rewriteDocument(node, resource.doc, origin && { text: origin.doc.text });
  }

  /**
   * The package with `items` (this package's resources after a step edited, removed or added some)
   * written back; every other byte stays. A resource whose path annotation moved it is removed
   * from its old file and appended to the new one.
   */
  written(items: readonly KrmResource[]): PackageTree {
    const kept = new Set(items);
    // Paths first: writing a resource's text takes its position annotations off.
    const pathOf = new Map(items.map((item) => [item, item.path]));
    const fates = new Map<string, Map<PackageDocument, DocumentFate>>();
    const fateOf = (path: string) => fates.get(path) ?? fates.set(path, new Map()).get(path)!;
    for (const [resource, { doc }] of this.origins) {
      if (!kept.has(resource) || pathOf.get(resource) !== doc.path) fateOf(doc.path).set(doc, null);
      else if (resource.isChanged) fateOf(doc.path).set(doc, this.text(resource));
    }
    const appended = new Map<string, string[]>();
    for (const item of items) {
      const origin = this.origins.get(item);
      const path = pathOf.get(item);
      if (origin && path === origin.doc.path) continue;
      if (path === undefined) throw new ResourceFileError(`${item.kind} ${item.name} has no path annotation (${PATH}): it cannot be written to a file of the package`);
      fateOf(path);
      (appended.get(path) ?? appended.set(path, []).get(path)!).push(this.text(item));
    }
    const files = new Map(this.tree.files);
    const documentsOf = new Map<string, PackageDocument[]>();
    for (const doc of this.documents) (documentsOf.get(doc.path) ?? documentsOf.set(doc.path, []).get(doc.path)!).push(doc);
    for (const [path, docFates] of fates) {
      const before = this.tree.text(path);
      const after = joinYamlStream(before ?? '', documentsOf.get(path) ?? [], docFates, appended.get(path) ?? []);
      if (after === before) continue;
      if (after === undefined) files.delete(path);
      else files.set(path, { bytes: encodeText(after), mode: this.tree.files.get(path)?.mode ?? NEW_FILE_MODE });
    }
    return new PackageTree(files, new Set([...this.tree.dirs, ...directoriesOf(files.keys())]), this.tree.links, this.tree.ignored);
  }
}

/** The document parsed, with kpt's position annotations on its resource; throws ResourceFileError when it is not YAML. */
function parse(doc: PackageDocument, budget: ParseBudget): { node: YAMLMap; parsed: Document.Parsed; hadEmptyAnnotations: boolean } | undefined {
  let parsed: Document.Parsed;
  try {
    parsed = readDocument(doc.text, doc.version, (text) => budget.spend(text));
  } catch (error) {
    if (error instanceof ParseBudgetExceeded) throw new ResourceFileError(`${doc.path}: ${error.message}`);
    throw error;
  }
  if (parsed.errors.length > 0) throw new ResourceFileError(`${doc.path}: ${parsed.errors[0]!.message.split('\n')[0]}`);
  if (!isMap(parsed.contents)) return undefined;
  const node = parsed.contents;
  const annotations = node.getIn(['metadata', 'annotations'], true);
  const hadEmptyAnnotations = isMap(annotations) && annotations.items.length === 0;
  for (const [key, value] of position(doc)) node.setIn(['metadata', 'annotations', key], value);
  return { node, parsed, hadEmptyAnnotations };
}

/** kpt's position annotations of a document's resource, as `kpt fn source` gives them. */
const position = (doc: PackageDocument): [string, string][] => [
  [PATH, doc.path],
  [INDEX, String(doc.index)],
  [LEGACY_PATH, doc.path],
  [LEGACY_INDEX, String(doc.index)],
];

function emptyAnnotations(plain: Record<string, unknown>): boolean {
  const annotations = (plain.metadata as { annotations?: unknown } | null | undefined)?.annotations;
  return annotations !== null && typeof annotations === 'object' && Object.keys(annotations).length === 0;
}

/** The data with the position annotations, as the tree built later will hold them. */
function positioned(plain: Record<string, unknown>, doc: PackageDocument): Record<string, unknown> {
  const metadata = (plain.metadata !== null && typeof plain.metadata === 'object' ? plain.metadata : {}) as Record<string, unknown>;
  const annotations = (metadata.annotations !== null && typeof metadata.annotations === 'object' ? metadata.annotations : {}) as Record<string, unknown>;
  return { ...plain, metadata: { ...metadata, annotations: { ...annotations, ...Object.fromEntries(position(doc)) } } };
}

/** A resource read as data gets its tree here, when a step first needs it. */
function buildPositioned({ doc, budget }: { doc: PackageDocument; budget: ParseBudget }): { node: YAMLMap; doc: Document } {
  const read = parse(doc, budget);
  if (!read) throw new ResourceFileError(`${doc.path}: a document read as a map did not parse as one`);
  return { node: read.node, doc: read.parsed };
}

/** A document outside the subset the data reader takes: parsed now. */
function parsedResource(doc: PackageDocument, budget: ParseBudget): { resource: KrmResource; hadEmptyAnnotations: boolean } | undefined {
  const read = parse(doc, budget);
  return read && { resource: KrmResource.fromTree(read.node, read.parsed, 'input'), hadEmptyAnnotations: read.hadEmptyAnnotations };
}
