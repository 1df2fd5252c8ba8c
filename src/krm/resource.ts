import { isMap, isScalar, YAMLMap, type Document, type Node } from 'yaml';
import { INDEX, LEGACY_INDEX, LEGACY_PATH, LOCAL_CONFIG, PATH, POSITION_ANNOTATIONS } from './annotations';
import type { ResourceRef } from './results';
import { newDocument } from './yaml-format';

function scalarString(node: unknown): string | undefined {
  if (typeof node === 'string' || typeof node === 'number' || typeof node === 'boolean') return String(node);
  if (isScalar(node) && node.value !== null && node.value !== undefined && typeof node.value !== 'object') return String(node.value);
  return undefined;
}

/**
 * One KRM object of a ResourceList, edited in place as a `yaml` node.
 *
 * Edits must go through these methods (or be followed by `markChanged`): an unchanged resource
 * is written back as its original source text.
 */
export class KrmResource {
  private changed: boolean;

  constructor(
    readonly node: YAMLMap,
    readonly doc: Document,
    origin: 'input' | 'new' = 'new',
  ) {
    this.changed = origin === 'new';
  }

  /** A new resource built from plain data (e.g. a generated PackageVariant). */
  static fromData(data: unknown): KrmResource {
    const doc = newDocument();
    const node = doc.createNode(data);
    if (!isMap(node)) throw new TypeError('a KRM resource must be a map');
    return new KrmResource(node, doc);
  }

  get isChanged(): boolean {
    return this.changed;
  }

  markChanged(): void {
    this.changed = true;
  }

  get(path: readonly (string | number)[]): unknown {
    const value = this.node.getIn(path, true);
    return isScalar(value) ? value.value : value;
  }

  getString(path: readonly (string | number)[]): string | undefined {
    return scalarString(this.node.getIn(path, true));
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
    return this.getString(['apiVersion']) ?? '';
  }

  get kind(): string {
    return this.getString(['kind']) ?? '';
  }

  get name(): string {
    return this.getString(['metadata', 'name']) ?? '';
  }

  get namespace(): string | undefined {
    return this.getString(['metadata', 'namespace']);
  }

  /** API group without version; "" for the core group. */
  get group(): string {
    const apiVersion = this.apiVersion;
    const slash = apiVersion.indexOf('/');
    return slash === -1 ? '' : apiVersion.slice(0, slash);
  }

  annotation(key: string): string | undefined {
    return this.getString(['metadata', 'annotations', key]);
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

  /** The value as plain JavaScript data. */
  toData(): Record<string, unknown> {
    return this.node.toJS(this.doc) as Record<string, unknown>;
  }
}
