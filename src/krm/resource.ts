import { isMap, isNode, isScalar, type Document, type Node, type YAMLMap } from 'yaml';
import { INDEX, LEGACY_INDEX, LEGACY_PATH, LOCAL_CONFIG, PATH, POSITION_ANNOTATIONS } from './annotations';
import type { ResourceRef } from './results';
import { copyPlain, valueAt } from '../yaml/plain-data';
import { newDocument } from '../yaml/yaml-format';

function scalarString(node: unknown): string | undefined {
  if (typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean') return String(node);
  if (isScalar(node) && node.value !== null && node.value !== undefined && typeof node.value !== 'object') return String(node.value);
  return undefined;
}

// Paths every scan over a package reads: made once, not at each of a million reads.
const API_VERSION = ['apiVersion'];
const KIND = ['kind'];
const NAME = ['metadata', 'name'];
const NAMESPACE = ['metadata', 'namespace'];
const ANNOTATIONS = ['metadata', 'annotations'];

/** A resource's `yaml` node tree, where every edit happens. */
export interface YamlTree {
  readonly node: YAMLMap;
  readonly doc: Document;
}

function treeOfData(data: Record<string, unknown>): YamlTree {
  const doc = newDocument();
  const node = doc.createNode(data);
  if (!isMap(node)) throw new TypeError('a KRM resource must be a map');
  return { node, doc };
}

/**
 * One KRM object of a ResourceList, edited in place as a `yaml` node.
 *
 * Edits must go through these methods (or be followed by `markChanged`): an unchanged resource
 * is written back as its original source text. A resource read from simple text, or built from
 * data, holds only plain data until its node tree is first asked for (`node`, `doc`, edits): at
 * fleet scale most items are only read, and building their trees is most of a run's time. Its
 * state lies in its own fields, not in objects of their own: a large list holds a million of them.
 */
export class KrmResource {
  private changed: boolean;
  private built: YamlTree | undefined;
  /** Until the tree is built: the plain data, and how to build the tree from `source`. */
  private plain: Record<string, unknown> | undefined;
  private build: ((source: unknown) => YamlTree) | undefined;
  private source: unknown;
  private readonly generated: boolean;

  private constructor(origin: 'input' | 'new', generated: boolean) {
    this.changed = origin === 'new';
    this.generated = generated;
  }

  static fromTree(node: YAMLMap, doc: Document, origin: 'input' | 'new' = 'new'): KrmResource {
    const resource = new KrmResource(origin, false);
    resource.built = { node, doc };
    return resource;
  }

  /**
   * A resource known by its data, whose tree `build(source)` makes when first needed; `data` must
   * not change. One `build` shared by many resources, each with its own `source`, spares a closure each.
   */
  static fromPlain<S>(data: Record<string, unknown>, build: (source: S) => YamlTree, origin: 'input' | 'new', source?: S): KrmResource {
    const resource = new KrmResource(origin, false);
    resource.plain = data;
    resource.build = build as (source: unknown) => YamlTree;
    resource.source = source;
    return resource;
  }

  /** A new resource built from plain data (e.g. a generated PackageVariant). */
  static fromData(data: Record<string, unknown>): KrmResource {
    const resource = new KrmResource('new', true);
    resource.plain = data;
    resource.build = treeOfData as (source: unknown) => YamlTree;
    resource.source = data;
    return resource;
  }

  private get tree(): YamlTree {
    if (this.built === undefined) {
      this.built = this.build!(this.source);
      this.plain = undefined;
      this.build = undefined;
      this.source = undefined;
    }
    return this.built;
  }

  get node(): YAMLMap {
    return this.tree.node;
  }

  /** Whether its node tree exists; a resource known by plain data alone has no tags or aliases. */
  get hasTree(): boolean {
    return this.built !== undefined;
  }

  get doc(): Document {
    return this.tree.doc;
  }

  /**
   * The data of a resource built by `fromData` that has no node tree yet, to be written without
   * one; read-only. Input items have source text (comments, spellings) that only their tree keeps.
   */
  get generatedData(): Readonly<Record<string, unknown>> | undefined {
    return this.built === undefined && this.generated ? this.plain : undefined;
  }

  /** What the item holds, for a read-only walk that must build nothing: its plain data, or its node tree. */
  get content(): { readonly data: Readonly<Record<string, unknown>> } | { readonly node: YAMLMap } {
    return this.plain !== undefined ? { data: this.plain } : { node: this.tree.node };
  }

  get isChanged(): boolean {
    return this.changed;
  }

  markChanged(): void {
    this.changed = true;
  }

  /** A scalar's value, or the node of a collection. */
  get(path: readonly (string | number)[]): unknown {
    if (this.plain !== undefined) {
      const value = valueAt(this.plain, path);
      if (value === null || typeof value !== 'object') return value;
    }
    const value = this.node.getIn(path, true);
    return isScalar(value) ? value.value : value;
  }

  getString(path: readonly (string | number)[]): string | undefined {
    if (this.plain !== undefined) return scalarString(valueAt(this.plain, path));
    return scalarString(this.node.getIn(path, true));
  }

  /** Whether `path` is there (with any value, null included). */
  has(path: readonly (string | number)[]): boolean {
    if (this.plain !== undefined) return valueAt(this.plain, path) !== undefined;
    return this.node.hasIn(path);
  }

  /** The value at `path` as plain data, without building the node tree; read-only. */
  getData(path: readonly (string | number)[]): unknown {
    if (this.plain !== undefined) return valueAt(this.plain, path);
    const node = path.length === 0 ? this.node : this.node.getIn(path, true);
    return isNode(node) ? node.toJS(this.doc) : node;
  }

  getNode(path: readonly (string | number)[]): Node | undefined {
    return (this.node.getIn(path, true) as Node | undefined) ?? undefined;
  }

  setIn(path: readonly (string | number)[], value: unknown): void {
    const current = this.node.getIn(path, true);
    if (isScalar(current) && (value === null || typeof value !== 'object')) {
      if (current.value === value) return;
      current.value = value;
    } else {
      this.node.setIn(path, isScalar(value) || isMap(value) ? value : this.doc.createNode(value));
    }
    this.changed = true;
  }

  deleteIn(path: readonly (string | number)[]): boolean {
    if (!this.node.hasIn(path)) return false;
    this.node.deleteIn(path);
    this.changed = true;
    return true;
  }

  get apiVersion(): string {
    return this.getString(API_VERSION) ?? '';
  }

  get kind(): string {
    return this.getString(KIND) ?? '';
  }

  get name(): string {
    return this.getString(NAME) ?? '';
  }

  get namespace(): string | undefined {
    return this.getString(NAMESPACE);
  }

  /** API group without version; "" for the core group. */
  get group(): string {
    const apiVersion = this.apiVersion;
    const slash = apiVersion.indexOf('/');
    return slash === -1 ? '' : apiVersion.slice(0, slash);
  }

  annotation(key: string): string | undefined {
    if (this.plain === undefined) return this.getString(['metadata', 'annotations', key]);
    const annotations = valueAt(this.plain, ANNOTATIONS);
    return annotations !== null && typeof annotations === 'object' && !Array.isArray(annotations) && Object.hasOwn(annotations, key) ? scalarString((annotations as Record<string, unknown>)[key]) : undefined;
  }

  setAnnotation(key: string, value: string): void {
    this.setIn(['metadata', 'annotations', key], value);
  }

  removeAnnotation(key: string): void {
    this.deleteIn(['metadata', 'annotations', key]);
  }

  /** Package-relative file path, from kpt's annotations (new or legacy). */
  get path(): string | undefined {
    return this.annotation(PATH) ?? this.annotation(LEGACY_PATH);
  }

  get fileIndex(): number {
    const raw = this.annotation(INDEX) ?? this.annotation(LEGACY_INDEX);
    const index = raw === undefined ? 0 : Number(raw);
    return Number.isInteger(index) ? index : 0;
  }

  /** Places a new resource in a package file, dropping what tied it to another item. */
  placeAt(path: string): void {
    for (const key of POSITION_ANNOTATIONS) this.removeAnnotation(key);
    this.setAnnotation(PATH, path);
    this.setAnnotation(LEGACY_PATH, path);
  }

  /** Whether it has a KRM identity; kpt also forwards plain YAML files, which functions leave alone. */
  get isKrmObject(): boolean {
    return this.apiVersion !== '' && this.kind !== '' && this.name !== '';
  }

  get isLocalConfig(): boolean {
    return this.annotation(LOCAL_CONFIG) === 'true';
  }

  get isKptfile(): boolean {
    return this.kind === 'Kptfile' && this.group === 'kpt.dev';
  }

  ref(): ResourceRef {
    const ref: ResourceRef = { apiVersion: this.apiVersion, kind: this.kind, name: this.name };
    const namespace = this.namespace;
    if (namespace) ref.namespace = namespace;
    return ref;
  }

  /** Where results about this resource should point. */
  fileRef(): { path: string; index?: number } | undefined {
    const path = this.path;
    if (path === undefined) return undefined;
    const index = this.fileIndex;
    return index === 0 ? { path } : { path, index };
  }

  /** The value as plain JavaScript data, a copy the caller may change. */
  toData(): Record<string, unknown> {
    if (this.plain !== undefined) return copyPlain(this.plain) as Record<string, unknown>;
    return this.node.toJS(this.doc) as Record<string, unknown>;
  }
}
