/**
 * Step 2: `spec.pipeline` functions go in front of the Kptfile's mutators and validators, named
 * `PackageVariant.<pv>.<fn>.<index>`. What this PackageVariant added on earlier runs is recognised
 * by that name and replaced, so re-runs and edits of the PackageVariant converge.
 */
import type { YAMLMap } from 'yaml';
import type { ConfigObject } from '../config/function-config';
import type { KrmResource } from '../krm/resource';
import type { Result } from '../krm/results';
import { variantSpec, type KptFunction } from './spec';
import { itemResult, variantError, type Step } from './step';
import { ensureList, ensureMap, mapListOrAbsent, mapOrAbsent, sameData, setListItems, stringField, toData } from './yaml-edit';

const LISTS = ['mutators', 'validators'] as const;
type ListName = (typeof LISTS)[number];

const PREFIX = 'PackageVariant';

export function generatedName(variantName: string, fn: KptFunction, index: number): string {
  return `${PREFIX}.${variantName}.${fn.name ?? ''}.${index}`;
}

/**
 * Whether a Kptfile function is one this PackageVariant added: `PackageVariant.<pv>.` then
 * `<fn>.<index>` with no dot in `<fn>`. Going by the prefix (not by splitting on dots) recognises
 * PackageVariants whose names hold dots, and names of other PackageVariants never match.
 */
export function isAddedBy(variantName: string, functionName: string | undefined): boolean {
  const prefix = `${PREFIX}.${variantName}.`;
  return functionName !== undefined && functionName.startsWith(prefix) && /^[^.]*\.[0-9]+$/.test(functionName.slice(prefix.length));
}

/** The Kptfile entry: name and image first, then the other fields in byte order, as Porch writes it. */
function entryFor(variantName: string, fn: KptFunction, index: number): Record<string, unknown> {
  const { name: _name, image, ...rest } = fn;
  const entry: Record<string, unknown> = { name: generatedName(variantName, fn, index) };
  if (image !== undefined) entry.image = image;
  for (const key of Object.keys(rest).sort()) entry[key] = rest[key];
  return entry;
}

function checkNames(variant: ConfigObject, lists: Record<ListName, KptFunction[]>): Result[] {
  return LISTS.flatMap((list) =>
    lists[list].flatMap((fn, i) =>
      fn.name?.includes('.')
        ? [
            variantError(
              variant,
              `spec.pipeline.${list}[${i}].name "${fn.name}" must not contain a dot: the function is added as ${PREFIX}.${variant.metadata.name}.<name>.<index>, and a dot would stop later runs from recognising and replacing it`,
              `spec.pipeline.${list}[${i}].name`,
            ),
          ]
        : [],
    ),
  );
}

function checkKptfile(kptfile: KrmResource): Result[] {
  const pipeline = mapOrAbsent(kptfile.node, 'pipeline');
  if (pipeline === false) return [itemResult(kptfile, 'error', 'Kptfile pipeline must be a map', 'pipeline')];
  if (!pipeline) return [];
  return LISTS.filter((list) => mapListOrAbsent(pipeline, list) === false).map((list) =>
    itemResult(kptfile, 'error', `Kptfile pipeline.${list} must be a list of functions (maps)`, `pipeline.${list}`),
  );
}

export function planPipeline(variant: ConfigObject, kptfile: KrmResource | undefined): Step {
  const spec = variantSpec(variant).pipeline ?? {};
  const lists: Record<ListName, KptFunction[]> = { mutators: spec.mutators ?? [], validators: spec.validators ?? [] };
  const errors = checkNames(variant, lists);
  const adds = LISTS.some((list) => lists[list].length > 0);
  if (!kptfile) {
    if (adds) errors.push(variantError(variant, 'spec.pipeline adds functions to the Kptfile, but the package has no Kptfile at its root', 'spec.pipeline'));
    return { errors, apply: () => [] };
  }
  errors.push(...checkKptfile(kptfile));
  return { errors, apply: () => applyPipeline(variant.metadata.name, kptfile, lists) };
}

function applyPipeline(variantName: string, kptfile: KrmResource, lists: Record<ListName, KptFunction[]>): Result[] {
  const { doc } = kptfile;
  const results: Result[] = [];
  let changed = false;
  for (const list of LISTS) {
    const pipeline = mapOrAbsent(kptfile.node, 'pipeline') || undefined;
    const current = (pipeline && mapListOrAbsent(pipeline, list)) || undefined;
    const items: YAMLMap[] = current?.items ?? [];
    const previous = items.filter((item) => isAddedBy(variantName, stringField(item, 'name')));
    const kept = items.filter((item) => !previous.includes(item));
    if (lists[list].length === 0 && previous.length === 0) continue;

    // An entry already there with the same content keeps its node: comments and formatting stay.
    const unused = new Set(previous);
    const added = lists[list].map((fn, i) => {
      const entry = entryFor(variantName, fn, i);
      const same = [...unused].find((item) => sameData(toData(item, doc), entry));
      if (same) {
        unused.delete(same);
        return same;
      }
      return doc.createNode(entry) as YAMLMap;
    });
    const next = [...added, ...kept];
    if (next.length === 0) {
      pipeline!.delete(list);
      changed = true;
    } else {
      changed = setListItems(ensureList(doc, ensureMap(doc, kptfile.node, 'pipeline'), list), next) || changed;
    }
    const names = (nodes: Iterable<YAMLMap>) => [...nodes].map((item) => stringField(item, 'name')).join(', ');
    if (added.length) results.push(itemResult(kptfile, 'info', `Kptfile pipeline: prepended ${list} ${names(added)}`, `pipeline.${list}`));
    if (unused.size) results.push(itemResult(kptfile, 'info', `Kptfile pipeline: removed ${list} this PackageVariant added before: ${names(unused)}`, `pipeline.${list}`));
  }
  const pipeline = mapOrAbsent(kptfile.node, 'pipeline');
  if (changed && pipeline && pipeline.items.length === 0) kptfile.node.delete('pipeline');
  if (changed) kptfile.markChanged();
  return results;
}
