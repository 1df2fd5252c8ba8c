/**
 * The PackageVariantSet (config.porch.kpt.dev/v1alpha2) as the fan-out reads it, after the ajv
 * schema (src/config/schemas/package-variant-set.ts) has checked its structure. Cross-field rules
 * are checked in validate.ts.
 */
import type { ConfigObject } from '../config/function-config';
import { listEntries, type ListEntry, type OneOrList } from '../config/one-or-list';
import { errorResult, type ResourceRef, type Result } from '../krm/results';

export interface MapExpr {
  key?: string;
  value?: string;
  keyExpr?: string;
  valueExpr?: string;
}

/** A kpt pipeline function (copied as given) plus CEL entries for its configMap. */
export interface FunctionTemplate {
  name?: string;
  image?: string;
  configMap?: Record<string, string>;
  configMapExprs?: OneOrList<MapExpr>;
  [field: string]: unknown;
}

export interface InjectorTemplate {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  nameExpr?: string;
}

export interface PackageVariantTemplate {
  downstream?: { repo?: string; package?: string; repoExpr?: string; packageExpr?: string };
  adoptionPolicy?: string;
  deletionPolicy?: string;
  labels?: Record<string, string>;
  labelExprs?: OneOrList<MapExpr>;
  annotations?: Record<string, string>;
  annotationExprs?: OneOrList<MapExpr>;
  packageContext?: { data?: Record<string, string>; removeKeys?: string[]; dataExprs?: OneOrList<MapExpr>; removeKeyExprs?: string[] };
  pipeline?: { validators?: FunctionTemplate[]; mutators?: FunctionTemplate[] };
  injectors?: OneOrList<InjectorTemplate>;
  /** The design's name for `injectors`; the schema allows either, validation not both. */
  injectorExprs?: OneOrList<InjectorTemplate>;
}

/** The template's injectors with their field paths, whichever of `injectors` and `injectorExprs` holds them. */
export function injectorEntries(template: PackageVariantTemplate, base: string): ListEntry<InjectorTemplate>[] {
  return [...listEntries(`${base}.injectors`, template.injectors), ...listEntries(`${base}.injectorExprs`, template.injectorExprs)];
}

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** A label selector that, as in the design, may list the package names to instantiate per object. */
export interface RepositorySelector extends LabelSelector {
  packageNames?: string[];
}

export interface ObjectSelector extends RepositorySelector {
  apiVersion?: string;
  kind?: string;
  name?: string;
}

export interface Target {
  repositories?: { name: string; packageNames?: string[] }[];
  repositorySelector?: RepositorySelector;
  objectSelector?: ObjectSelector;
  template?: PackageVariantTemplate;
}

export interface Upstream {
  repo?: string;
  package?: string;
  /** Porch's revision number, or (as the design writes it) a revision or workspace name. */
  revision?: number | string;
  workspaceName?: string;
}

export interface VariantSetSpec {
  upstream?: Upstream;
  targets?: Target[];
}

/** The set with what every step needs: its identity (and file, when known) for results and its spec. */
export interface VariantSet {
  readonly name: string;
  readonly namespace: string | undefined;
  readonly spec: VariantSetSpec;
  readonly ref: ResourceRef;
  readonly file?: { path: string; index?: number };
}

export function readVariantSet(config: ConfigObject, file?: { path: string; index?: number }): VariantSet {
  const { name, namespace } = config.metadata;
  return {
    name,
    namespace,
    spec: (config.spec ?? {}) as VariantSetSpec,
    ref: { apiVersion: config.apiVersion, kind: config.kind, name, ...(namespace ? { namespace } : {}) },
    ...(file ? { file } : {}),
  };
}

/** An error about the set, pointing at the field it comes from. */
export function setError(set: VariantSet, message: string, field: string): Result {
  return errorResult(`PackageVariantSet ${set.name}: ${message}`, { resourceRef: set.ref, field: { path: field }, ...(set.file ? { file: set.file } : {}) });
}

/** Field paths as Porch writes them in its messages: `spec.targets[0].template`. */
export const targetPath = (i: number): string => `spec.targets[${i}]`;
export const templatePath = (i: number): string => `${targetPath(i)}.template`;
