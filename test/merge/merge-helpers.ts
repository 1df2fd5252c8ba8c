import { parse } from 'yaml';
import { resourceList, runFunction } from '../helpers';

/** Adds the merge-source tag (and a path) to a resource written as YAML text. */
export function tagged(yaml: string, source: 'original' | 'updated' | undefined, path = 'r.yaml'): string {
  const annotations = [`internal.config.kubernetes.io/path: ${path}`, ...(source ? [`config.kubernetes.io/merge-source: ${source}`] : [])];
  const lines = annotations.map((a) => `    ${a}\n`).join('');
  if (/^  annotations:\n/m.test(yaml)) return yaml.replace(/^  annotations:\n/m, (line) => `${line}${lines}`);
  return yaml.replace(/^metadata:( #[^\n]*)?\n/m, (line) => `${line}  annotations:\n${lines}`);
}

export interface Merged {
  exitCode: number;
  output: string;
  items: Record<string, any>[];
  messages: string[];
  results: Record<string, any>[];
}

export function merge(versions: { origin?: string[]; upstream?: string[]; local?: string[] }, config?: string): Merged {
  const items = [
    ...(versions.local ?? []).map((y) => tagged(y, undefined)),
    ...(versions.origin ?? []).map((y) => tagged(y, 'original')),
    ...(versions.upstream ?? []).map((y) => tagged(y, 'updated')),
  ];
  return run(resourceList(items, config));
}

export function run(input: string): Merged {
  const outcome = runFunction(input);
  const list = parse(outcome.output) as { items: Record<string, any>[] };
  return { ...outcome, items: list.items, messages: outcome.results.map((r) => String(r.message)) };
}

/** The three versions of one resource. */
export function merge1(origin: string, upstream: string, local: string, config?: string): Merged {
  return merge({ origin: [origin], upstream: [upstream], local: [local] }, config);
}
