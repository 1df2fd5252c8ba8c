/**
 * Step 3: config injection. Items annotated `kpt.dev/config-injection` are injection points; the
 * PackageVariant's injectors pick, for each, one of the candidates (the functionConfig List's
 * other objects, standing for the management cluster), whose `data` (ConfigMap) or `spec` (any
 * other kind) replaces the point's.
 */
import type { ConfigObject } from '../config/function-config';
import type { KrmResource } from '../krm/resource';
import type { Result } from '../krm/results';
import { CrdSchemas } from './crd-schema';
import { PACKAGE_CONTEXT_NAME } from './package-items';
import { variantSpec, type Injector } from './spec';
import { describeItem, itemResult, type Step } from './step';
import { syncValue } from './yaml-edit';

const CONFIG_INJECTION = 'kpt.dev/config-injection';
/** The design's name; Porch's code writes `kpt.dev/injected-resource`. */
const INJECTED_RESOURCE_NAME = 'kpt.dev/injected-resource-name';

export type Outcome =
  | { readonly injected: true; readonly candidate: string; readonly field: 'data' | 'spec'; readonly value: unknown }
  | { readonly injected: false; readonly reason: string };

export interface InjectionPoint {
  readonly resource: KrmResource;
  readonly required: boolean;
  /** `config.injection.<Kind>.<name>`: no version, so it stays stable across API versions (Porch's choice). */
  readonly conditionType: string;
  readonly outcome: Outcome;
}

export interface InjectionStep extends Step {
  readonly points: readonly InjectionPoint[];
}

const ANNOTATION_FIELD = `metadata.annotations["${CONFIG_INJECTION}"]`;
const INJECTION_PATH = ['metadata', 'annotations', CONFIG_INJECTION];

function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

const namespaceText = (namespace: string) => (namespace ? `in namespace "${namespace}"` : 'without a namespace');

/** Finds, for each point, the candidate the injectors select, without changing anything. */
class Resolver {
  private readonly byType = new Map<string, ConfigObject[]>();
  private readonly namespace: string;
  private readonly injectors: readonly Injector[];

  constructor(
    variant: ConfigObject,
    candidates: readonly ConfigObject[],
    private readonly schemas: CrdSchemas,
  ) {
    this.namespace = variant.metadata.namespace ?? '';
    this.injectors = variantSpec(variant).injectors ?? [];
    for (const candidate of candidates) {
      const key = `${candidate.apiVersion}\n${candidate.kind}`;
      const list = this.byType.get(key);
      if (list) list.push(candidate);
      else this.byType.set(key, [candidate]);
    }
  }

  resolve(point: KrmResource): Outcome {
    if (this.injectors.length === 0) return { injected: false, reason: 'no injectors defined' };
    const { group, version } = splitApiVersion(point.apiVersion);
    const kind = point.kind;
    const sameType = this.byType.get(`${point.apiVersion}\n${kind}`) ?? [];
    // The security boundary: only candidates in the PackageVariant's own namespace are seen.
    const visible = sameType.filter((c) => (c.metadata.namespace ?? '') === this.namespace);
    const applicable = this.injectors.filter(
      (injector) => (injector.group ?? group) === group && (injector.version ?? version) === version && (injector.kind ?? kind) === kind,
    );
    for (const injector of applicable) {
      const candidate = visible.find((c) => c.metadata.name === injector.name);
      if (candidate) return this.inject(candidate, group, version, kind);
    }
    const ignored = sameType
      .filter((c) => !visible.includes(c) && applicable.some((injector) => injector.name === c.metadata.name))
      .map((c) => `ignored ${kind} ${c.metadata.name} ${namespaceText(c.metadata.namespace ?? '')}: candidates must be ${namespaceText(this.namespace)}, like the PackageVariant`);
    const reason =
      visible.length === 0
        ? `no in-cluster resources of type ${point.apiVersion}.${kind} ${namespaceText(this.namespace)}`
        : 'no resource matched any injection selector for this injection point';
    return { injected: false, reason: [reason, ...ignored].join('; ') };
  }

  private inject(candidate: ConfigObject, group: string, version: string, kind: string): Outcome {
    const name = candidate.metadata.name;
    const field = group === '' && kind === 'ConfigMap' ? 'data' : 'spec';
    const value = candidate[field];
    if (value === undefined) return { injected: false, reason: `field "${field}" not found in resource "${name}"` };
    const problem = this.schemas.check(group, version, kind, field, value);
    if (problem) return { injected: false, reason: `resource "${name}" ${problem}` };
    return { injected: true, candidate: name, field, value };
  }
}

/**
 * Why kpt's own objects are never injection points, or undefined for any other object. These are
 * the objects kpt writes and reads itself, whatever their path: every Kptfile, the package context
 * (which kpt and Porch generate), and the inventory `kpt live init` writes. Other local-config
 * objects, function configs among them, are what the design means injection for.
 */
function kptOwnObject(resource: KrmResource): string | undefined {
  if (resource.isKptfile) return 'injecting its spec would rewrite the package\'s own definition, and kpt refuses a Kptfile with fields it does not know';
  if (resource.apiVersion === 'v1' && resource.kind === 'ConfigMap' && resource.name === PACKAGE_CONTEXT_NAME) {
    return 'kpt and Porch generate the package context (its name and package-path are reserved); set its keys with spec.packageContext';
  }
  if (resource.group === 'kpt.dev' && resource.kind === 'ResourceGroup') return 'it is the inventory `kpt live` keeps of the applied resources';
  return undefined;
}

function findPoints(items: readonly KrmResource[]): { resource: KrmResource; value: string }[] {
  return items
    // The annotation first: most items have none, and their identity need not be read.
    .filter((item) => item.has(INJECTION_PATH) && item.isKrmObject)
    .map((resource) => ({ resource, value: resource.annotation(CONFIG_INJECTION) ?? '' }));
}

export function planInjection(variant: ConfigObject, items: readonly KrmResource[], candidates: readonly ConfigObject[]): InjectionStep {
  const errors: Result[] = [];
  const found = findPoints(items);
  const byType = new Map<string, KrmResource>();
  for (const { resource, value } of found) {
    const ownObject = kptOwnObject(resource);
    if (ownObject) {
      errors.push(itemResult(resource, 'error', `${describeItem(resource)} is annotated "${CONFIG_INJECTION}", but kpt's own objects are never injection points: ${ownObject}; remove the annotation`, ANNOTATION_FIELD));
      continue;
    }
    if (value !== 'required' && value !== 'optional') {
      errors.push(itemResult(resource, 'error', `${describeItem(resource)} has invalid "${CONFIG_INJECTION}" annotation value "${value}": use required or optional`, ANNOTATION_FIELD));
    }
    const type = `config.injection.${resource.kind}.${resource.name}`;
    const first = byType.get(type);
    if (first) {
      errors.push(
        itemResult(
          resource,
          'error',
          `ambiguous injection condition type "${type}": ${describeItem(first)} and ${describeItem(resource)} are both injection points, and the type holds only kind and name; rename one in the upstream package`,
          ANNOTATION_FIELD,
        ),
      );
    } else {
      byType.set(type, resource);
    }
  }
  if (errors.length > 0) return { errors, points: [], apply: () => [] };
  const resolver = new Resolver(variant, candidates, new CrdSchemas(items));
  const points = found.map(({ resource, value }) => ({
    resource,
    required: value === 'required',
    conditionType: `config.injection.${resource.kind}.${resource.name}`,
    outcome: resolver.resolve(resource),
  }));
  return { errors, points, apply: () => points.map(applyPoint) };
}

function applyPoint(point: InjectionPoint): Result {
  const { resource, outcome } = point;
  const what = `${point.required ? 'required' : 'optional'} injection point ${describeItem(resource)}`;
  if (!outcome.injected) return itemResult(resource, point.required ? 'warning' : 'info', `${what} not injected: ${outcome.reason}`);
  const changed = syncValue(resource.doc, resource.node, outcome.field, outcome.value);
  resource.setAnnotation(INJECTED_RESOURCE_NAME, outcome.candidate);
  if (changed) resource.markChanged();
  return itemResult(resource, 'info', `${what}: injected the ${outcome.field} of ${resource.kind} ${outcome.candidate}`, outcome.field);
}
