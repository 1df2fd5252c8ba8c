/**
 * Which functionConfig the function was given, validated. What each kind does lives elsewhere;
 * this module only recognises and checks it.
 */
import type { Node } from 'yaml';
import * as validators from './generated/validators';
import { copyPlain } from '../yaml/plain-data';
import { KrmResource } from '../krm/resource';
import type { ResourceList } from '../krm/resource-list';
import { errorResult, FunctionError, type Result } from '../krm/results';
import { validate, type DataLocation } from './validate';

export const PACKAGE_VARIANT_API = 'config.porch.kpt.dev/v1alpha1';
export const PACKAGE_VARIANT_SET_API = 'config.porch.kpt.dev/v1alpha2';

export type MergeStrategy = 'resource-merge' | 'fast-forward' | 'force-delete-replace';

export interface Options {
  strategy?: MergeStrategy;
  conflicts: 'upstream-wins' | 'error';
  /** Package directories holding the tagged versions (kpt reports their files' paths from the package root). */
  originDir?: string;
  upstreamDir?: string;
  /** The new upstream version, recorded in the Kptfile's `upstream` and `upstreamLock` by a merge. */
  upstreamRef?: string;
  upstreamCommit?: string;
}

export interface ConfigObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  [field: string]: unknown;
}

export type FunctionConfig =
  | { kind: 'none'; options: Options }
  | { kind: 'options'; options: Options }
  | { kind: 'package-variant'; options: Options; variant: ConfigObject; objects: ConfigObject[] }
  | { kind: 'package-variant-set'; options: Options; variantSet: ConfigObject; objects: ConfigObject[] };

const ACCEPTED_KINDS = [
  'none (or the empty ConfigMap kpt sends)',
  'v1 ConfigMap (options: strategy, conflicts, originDir, upstreamDir, upstreamRef, upstreamCommit)',
  `${PACKAGE_VARIANT_API} PackageVariant`,
  `${PACKAGE_VARIANT_SET_API} PackageVariantSet`,
  'v1 List holding one PackageVariant or PackageVariantSet and the objects it uses',
];

const DEFAULT_OPTIONS: Options = { conflicts: 'upstream-wins' };

function isVariant(item: ConfigObject): boolean {
  return item.apiVersion === PACKAGE_VARIANT_API && item.kind === 'PackageVariant';
}

function isVariantSet(item: ConfigObject): boolean {
  return item.apiVersion === PACKAGE_VARIANT_SET_API && item.kind === 'PackageVariantSet';
}

function fail(results: Result[]): never {
  throw new FunctionError(results);
}

function readList(data: ConfigObject, location: DataLocation): FunctionConfig {
  const problems = validate(validators.list, data, 'functionConfig List', location);
  if (problems.length) fail(problems);
  const items = data.items as ConfigObject[];
  const variants = items.flatMap((item, index) => (isVariant(item) || isVariantSet(item) ? [{ item, index }] : []));
  if (variants.length !== 1) {
    const found = variants.map(({ item, index }) => `items[${index}] ${item.kind} ${item.metadata.name}`).join(', ');
    fail([
      errorResult(
        `functionConfig List must hold exactly one PackageVariant or PackageVariantSet, found ${variants.length}${found ? `: ${found}` : ''}`,
        { field: { path: 'items' }, ...(location.file ? { file: location.file } : {}) },
      ),
    ]);
  }
  const [{ item, index }] = variants as [{ item: ConfigObject; index: number }];
  const optionsIndex = items.findIndex(isOptionsConfigMap);
  const options = optionsIndex === -1 ? DEFAULT_OPTIONS : readOptions(items[optionsIndex]!, { ...location, prefix: ['items', optionsIndex] });
  const objects = items.filter((other, i) => other !== item && i !== optionsIndex);
  const at = { ...location, prefix: ['items', index] };
  if (isVariant(item)) {
    const issues = validate(validators.packageVariant, item, `PackageVariant ${item.metadata.name}`, at);
    if (issues.length) fail(issues);
    return { kind: 'package-variant', options, variant: item, objects };
  }
  const issues = validate(validators.packageVariantSet, item, `PackageVariantSet ${item.metadata.name}`, at);
  if (issues.length) fail(issues);
  return { kind: 'package-variant-set', options, variantSet: item, objects };
}

/** In a List, the options ConfigMap goes by this name, so it is never taken for an injection candidate. */
export const OPTIONS_CONFIGMAP_NAME = 'package-variant-options';

function isOptionsConfigMap(item: ConfigObject): boolean {
  return item.apiVersion === 'v1' && item.kind === 'ConfigMap' && item.metadata?.name === OPTIONS_CONFIGMAP_NAME;
}

function readOptions(written: ConfigObject, location: DataLocation): Options {
  // Validation fills in defaults: on a copy, the input's data stays as read.
  const config = copyPlain(written) as ConfigObject;
  const problems = validate(validators.optionsConfigMap, config, `functionConfig ConfigMap ${config.metadata.name}`, location);
  if (problems.length) fail(problems);
  return { ...DEFAULT_OPTIONS, ...(config.data as Partial<Options>) };
}

function isEmptyInputConfigMap(data: Record<string, unknown>): boolean {
  const kindOk = data.kind === undefined || data.kind === 'ConfigMap';
  const apiOk = data.apiVersion === undefined || data.apiVersion === 'v1';
  const dataField = data.data;
  const empty = dataField === undefined || dataField === null || (typeof dataField === 'object' && Object.keys(dataField).length === 0);
  return kindOk && apiOk && empty && data.binaryData === undefined;
}

/** Reads and validates the functionConfig; throws FunctionError listing every problem. */
export function readFunctionConfig(list: ResourceList): FunctionConfig {
  const resource = list.functionConfig;
  if (!resource) return { kind: 'none', options: DEFAULT_OPTIONS };
  const data = configData(resource);
  const file = functionConfigFile(list);
  const location: DataLocation = { prefix: [], node: () => resource.node as Node, ...(list.source ? { lineCounter: list.source.lineCounter } : {}), ...(file ? { file } : {}) };
  // kpt sends an empty ConfigMap (sometimes without apiVersion and kind) when given no config.
  if (isEmptyInputConfigMap(data)) return { kind: 'none', options: DEFAULT_OPTIONS };
  const config = data as ConfigObject;
  if (config.apiVersion === 'v1' && config.kind === 'ConfigMap') return { kind: 'options', options: readOptions(config, location) };
  if (isVariant(config)) {
    const problems = validate(validators.packageVariant, config, `PackageVariant ${String(config.metadata?.name ?? '')}`.trim(), location);
    if (problems.length) fail(problems);
    return { kind: 'package-variant', options: DEFAULT_OPTIONS, variant: config, objects: [] };
  }
  if (isVariantSet(config)) {
    const problems = validate(validators.packageVariantSet, config, `PackageVariantSet ${String(config.metadata?.name ?? '')}`.trim(), location);
    if (problems.length) fail(problems);
    return { kind: 'package-variant-set', options: DEFAULT_OPTIONS, variantSet: config, objects: [] };
  }
  if (config.apiVersion === 'v1' && config.kind === 'List') return readList(config, location);
  fail([
    errorResult(
      `unsupported functionConfig ${String(config.apiVersion ?? '(no apiVersion)')} ${String(config.kind ?? '(no kind)')}; accepted: ${ACCEPTED_KINDS.join('; ')}`,
      { field: { path: 'functionConfig.kind' }, ...(location.file ? { file: location.file } : {}) },
    ),
  ]);
}

/**
 * The file the functionConfig came from. kpt's `--fn-config` sends it without a path, but when the
 * file lies in the package it is also an item, with one.
 */
export function functionConfigFile(list: ResourceList): { path: string; index?: number } | undefined {
  const config = list.functionConfig;
  if (!config) return undefined;
  if (config.fileRef()) return config.fileRef();
  const twin = list.items.find((item) => item.path !== undefined && item.apiVersion === config.apiVersion && item.kind === config.kind && item.name === config.name);
  return twin?.fileRef();
}

/**
 * The config as plain data, with kpt's bookkeeping annotations kept (the schemas allow them);
 * read-only, not a copy: a fleet's List holds a hundred thousand objects. Only the options' schema
 * fills in defaults, and readOptions validates a copy.
 */
function configData(resource: KrmResource): Record<string, unknown> {
  const data = resource.getData([]) as Record<string, unknown> | null;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    fail([errorResult('functionConfig must be a KRM object (a YAML map)', { field: { path: 'functionConfig' } })]);
  }
  return data;
}
