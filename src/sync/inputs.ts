/**
 * What `sync` is given: YAML or JSON files, or directories of them (their `*.yaml`, `*.yml` and
 * `*.json` files, not their subdirectories, as `kubectl apply -f` reads a directory), holding Porch's
 * Repository, PackageVariant and PackageVariantSet objects and any other objects, which stand in for
 * the cluster (injection sources, `objectSelector` targets). A `v1 List` gives its items.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as validators from '../config/generated/validators';
import { PACKAGE_VARIANT_API, PACKAGE_VARIANT_SET_API, type ConfigObject } from '../config/function-config';
import { fieldResult, validate, type DataLocation } from '../config/validate';
import { isValidObjectName } from '../fanout/naming';
import { MAX_INPUT_OBJECTS } from '../krm/input-bounds';
import { groupDigits } from '../yaml/group-digits';
import { InputError, InputShare, readInputDocuments, type InputDocument } from './input-documents';

export { InputError };

export const REPOSITORY_API = 'config.porch.kpt.dev/v1alpha1';

/** An input object with where it was read, for messages. */
export interface InputObject {
  readonly object: ConfigObject;
  /** `file`, or `file (document 2)`, or `file (document 2, items[3])`. */
  readonly where: string;
  /** The file it was read from. */
  readonly file: string;
  /**
   * Why the object could not be made in a cluster, naming the file, line and field: a PackageVariant
   * or set Kubernetes would refuse makes no downstream, and the others go on.
   */
  readonly refused?: string;
}

export interface SyncInputs {
  readonly repositories: readonly InputObject[];
  readonly variants: readonly InputObject[];
  readonly variantSets: readonly InputObject[];
  /** Every object but the PackageVariants and sets, Repositories included (a set's selectors read them). */
  readonly objects: readonly InputObject[];
}

const INPUT_FILE = /\.(ya?ml|json)$/;

function inputFiles(paths: readonly string[]): string[] {
  const files: string[] = [];
  for (const path of paths) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (error) {
      throw new InputError(`${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (error as Error).message}`);
    }
    if (!isDirectory) files.push(path);
    else for (const name of readdirSync(path).sort()) if (INPUT_FILE.test(name) && statSync(join(path, name)).isFile()) files.push(join(path, name));
  }
  return files;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

type Kind = 'repository' | 'variant' | 'variant-set' | 'other';

function kindOf(object: ConfigObject): Kind {
  if (object.apiVersion === REPOSITORY_API && object.kind === 'Repository') return 'repository';
  if (object.apiVersion === PACKAGE_VARIANT_API && object.kind === 'PackageVariant') return 'variant';
  if (object.apiVersion === PACKAGE_VARIANT_SET_API && object.kind === 'PackageVariantSet') return 'variant-set';
  return 'other';
}

const VALIDATORS = { repository: validators.repository, variant: validators.packageVariant, 'variant-set': validators.packageVariantSet } as const;
const LABELS = { repository: 'Repository', variant: 'PackageVariant', 'variant-set': 'PackageVariantSet' } as const;

/** Why Kubernetes would refuse the object for its name (a custom resource's is a DNS-1123 subdomain), so that Porch never sees it; undefined when it would not. */
function refusedName(object: ConfigObject, kind: 'variant' | 'variant-set', location: DataLocation): string | undefined {
  const { name } = object.metadata;
  if (isValidObjectName(name)) return undefined;
  const why = `${JSON.stringify(name)} is a name Kubernetes refuses: a ${LABELS[kind]}'s name is a DNS-1123 subdomain, at most 253 characters of lower-case letters, digits, '-' and '.', beginning and ending with a letter or digit`;
  return fieldResult(`${LABELS[kind]} ${name}`, ['metadata', 'name'], why, location).message;
}

/** Reads every object of the files and directories named, within the function's input limits; throws InputError naming each problem. */
export function readSyncInputs(paths: readonly string[]): SyncInputs {
  if (paths.length === 0) throw new InputError('name the files or directories that hold the Repository, PackageVariant and PackageVariantSet objects');
  const problems: string[] = [];
  const found: { kind: Kind; input: InputObject }[] = [];
  const share = new InputShare();
  for (const file of inputFiles(paths)) {
    let documents: InputDocument[];
    try {
      documents = readInputDocuments(file, share, problems);
    } catch (error) {
      if (error instanceof InputError) throw new InputError([...problems, error.message].join('\n'));
      if ((error as NodeJS.ErrnoException).code === undefined) throw error;
      problems.push(`${file}: ${(error as Error).message}`);
      continue;
    }
    for (const { where, data, node, lines } of documents) {
      if (data === null || data === undefined) continue;
      if (!isObject(data)) {
        problems.push(`${where}: not a KRM object (a map with apiVersion, kind and metadata.name)`);
        continue;
      }
      const objects = data.apiVersion === 'v1' && data.kind === 'List' && Array.isArray(data.items) ? data.items.map((item, i) => ({ item, prefix: ['items', i] as (string | number)[] })) : [{ item: data as unknown, prefix: [] as (string | number)[] }];
      if (found.length + objects.length > MAX_INPUT_OBJECTS) {
        throw new InputError([...problems, `${where}: more than ${groupDigits(MAX_INPUT_OBJECTS)} objects with those before it: sync reads at most ${groupDigits(MAX_INPUT_OBJECTS)} in a run, as the function does (see "Safety" in the README)`].join('\n'));
      }
      for (const { item, prefix } of objects) {
        const at = prefix.length ? `${where}, items[${prefix[1]}]` : where;
        if (!isObject(item) || typeof item.apiVersion !== 'string' || typeof item.kind !== 'string' || !isObject(item.metadata) || typeof item.metadata.name !== 'string' || item.metadata.name === '') {
          problems.push(`${at}: not a KRM object (a map with apiVersion, kind and metadata.name)`);
          continue;
        }
        const object = item as ConfigObject;
        const kind = kindOf(object);
        const location: DataLocation = { prefix, node, lineCounter: lines, readFrom: file };
        if (kind !== 'other') {
          const issues = validate(VALIDATORS[kind], object, `${LABELS[kind]} ${object.metadata.name}`, location);
          if (issues.length) {
            problems.push(...issues.map((issue) => `${file}: ${issue.message}`));
            continue;
          }
        }
        const refused = kind === 'variant' || kind === 'variant-set' ? refusedName(object, kind, location) : undefined;
        found.push({ kind, input: { object, where: at, file, ...(refused ? { refused: `${file}: ${refused}` } : {}) } });
      }
    }
  }
  if (problems.length) throw new InputError(problems.join('\n'));
  const of = (kind: Kind) => found.filter((f) => f.kind === kind).map((f) => f.input);
  return { repositories: of('repository'), variants: of('variant'), variantSets: of('variant-set'), objects: found.filter((f) => f.kind === 'repository' || f.kind === 'other').map((f) => f.input) };
}
