import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { packageVariantFunction } from '../src/function';
import { runKrmFunction, type RunOutcome } from '../src/krm/run';

export const REPO_ROOT = join(__dirname, '..');
export const SHARED = join(REPO_ROOT, '..', 'shared');

export function runFunction(input: string): RunOutcome & { results: Record<string, unknown>[] } {
  const outcome = runKrmFunction(input, packageVariantFunction);
  const parsed = parse(outcome.output) as { results?: Record<string, unknown>[] };
  return { ...outcome, results: parsed.results ?? [] };
}

/** A ResourceList text with the given items (YAML strings, each one object) and functionConfig. */
export function resourceList(items: string[], functionConfig?: string): string {
  const indent = (text: string) => text.trimEnd().split('\n').map((line, i) => (i === 0 ? `- ${line}` : `  ${line}`)).join('\n');
  const config = functionConfig ? `functionConfig:\n${functionConfig.trimEnd().split('\n').map((l) => `  ${l}`).join('\n')}\n` : '';
  const body = items.length ? `items:\n${items.map(indent).join('\n')}\n` : 'items: []\n';
  return `apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n${body}${config}`;
}

export function corpusFiles(dir: string): { name: string; text: string }[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }));
}

/** A namespaced CustomResourceDefinition, as YAML, whose one (storage) version has this `spec` schema. */
export function crdYaml(group: string, kind: string, version: string, specSchema: Record<string, unknown>): string {
  const plural = `${kind.toLowerCase()}s`;
  return stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { kind, plural },
      scope: 'Namespaced',
      versions: [{ name: version, served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: specSchema } } } }],
    },
  });
}
