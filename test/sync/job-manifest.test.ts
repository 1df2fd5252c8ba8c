/**
 * The Kubernetes Indexed Job the README gives for a sharded sync is a valid batch/v1 Job: read from
 * the README and validated against Kubernetes' own Job schema (../shared/data's OpenAPI
 * definitions, with unknown fields refused as kubectl's validation refuses them), and its command
 * is the command line sync accepts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { checkSyncArguments } from '../../src/cli/sync';
import { REPO_ROOT, SHARED } from '../helpers';

type Schema = Record<string, unknown>;

/** Kubernetes' definitions as JSON Schema: $refs kept, objects closed to unknown fields, int-or-string and quantities as they are written. */
function kubernetesSchemas(): Record<string, Schema> {
  const definitions = JSON.parse(gunzipSync(readFileSync(join(SHARED, 'data/kubernetes-openapi-v1.21.2.json.gz'))).toString('utf8')).definitions as Record<string, Schema>;
  const close = (schema: unknown): unknown => {
    if (Array.isArray(schema)) return schema.map(close);
    if (schema === null || typeof schema !== 'object') return schema;
    const out: Schema = {};
    for (const [key, value] of Object.entries(schema)) if (!key.startsWith('x-kubernetes') && key !== 'format') out[key] = key === 'properties' ? Object.fromEntries(Object.entries(value as Schema).map(([k, v]) => [k, close(v)])) : close(value);
    if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
    return out;
  };
  const closed = Object.fromEntries(Object.entries(definitions).map(([name, schema]) => [name, close(schema) as Schema]));
  closed['io.k8s.apimachinery.pkg.util.intstr.IntOrString'] = { type: ['string', 'integer'] };
  closed['io.k8s.apimachinery.pkg.api.resource.Quantity'] = { type: ['string', 'number'] };
  return closed;
}

const readmeJob = (): Record<string, unknown> => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const block = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).find((text) => /^kind: Job$/m.test(text));
  expect(block).toBeDefined();
  return parse(block!) as Record<string, unknown>;
};

describe("the README's Indexed Job for a sharded sync", () => {
  const job = readmeJob();
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validate = ajv.addSchema({ $id: 'k8s', definitions: kubernetesSchemas() }).compile({ $ref: 'k8s#/definitions/io.k8s.api.batch.v1.Job' });

  it('is a batch/v1 Job by Kubernetes schema, with nothing the schema does not know', () => {
    const valid = validate(job);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    const mistyped = { ...job, spec: { ...(job.spec as object), completion: 8 } };
    expect(validate(mistyped)).toBe(false);
  });

  it('runs one shard a pod, the index from the completion index, with a command sync accepts', () => {
    const spec = job.spec as { completionMode: string; completions: number; template: { spec: { containers: { args: string[] }[] } } };
    expect(spec.completionMode).toBe('Indexed');
    const script = spec.template.spec.containers[0]!.args.join(' ');
    const shards = /--shard "\$JOB_COMPLETION_INDEX\/(\d+)"/.exec(script);
    expect(Number(shards![1])).toBe(spec.completions);
    expect(checkSyncArguments({ paths: ['/fleet'], shard: `${spec.completions - 1}/${spec.completions}`, noRender: true, statusOut: '/status/s.yaml' })).toBeUndefined();
  });
});
