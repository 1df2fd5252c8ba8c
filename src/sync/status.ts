/**
 * What Porch's controllers would write in the status of each variant and set after a sync
 * (porch-lifecycle.md §6), for a CI job to gate on (`--status-out FILE`): the conditions `Stalled`
 * and `Ready` with Porch's reasons and messages, and a variant's `downstreamTargets`, the
 * PackageRevisions (Porch's names) that stand for its downstream. No timestamps: the same run
 * writes the same file.
 */
import { stringify } from 'yaml';
import type { ConfigObject } from '../config/function-config';
import { namespaceOfLabel, type SetRecord, type VariantRecord } from './desired';
import { ATTENTION, type PlannedDownstream } from './plan';
import { repositoryKey } from './repositories';

interface Condition {
  readonly type: 'Stalled' | 'Ready';
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message: string;
}

const VALID: Condition = { type: 'Stalled', status: 'False', reason: 'Valid', message: 'all validation checks passed' };

const header = (object: ConfigObject) => ({
  apiVersion: object.apiVersion,
  kind: object.kind,
  metadata: { name: object.metadata.name, namespace: object.metadata.namespace || 'default', ...(object.metadata.labels ? { labels: object.metadata.labels } : {}) },
});

function variantConditions(record: VariantRecord, entry: PlannedDownstream | undefined, notPushed: string | undefined): Condition[] {
  if (record.stalled !== undefined) {
    return [
      { type: 'Stalled', status: 'True', reason: 'ValidationError', message: record.stalled },
      { type: 'Ready', status: 'False', reason: 'Error', message: 'invalid packagevariant object' },
    ];
  }
  if (entry?.stalled) {
    return [
      { type: 'Stalled', status: 'True', reason: 'ValidationError', message: entry.detail },
      { type: 'Ready', status: 'False', reason: 'Error', message: entry.detail },
    ];
  }
  if (!entry || ATTENTION.has(entry.action)) return [VALID, { type: 'Ready', status: 'False', reason: 'Error', message: entry?.detail ?? 'not synced' }];
  if (notPushed !== undefined) return [VALID, { type: 'Ready', status: 'False', reason: 'Error', message: notPushed }];
  return [VALID, { type: 'Ready', status: 'True', reason: 'NoErrors', message: 'successfully ensured downstream package variant' }];
}

function setConditions(record: SetRecord): Condition[] {
  if (record.problem) {
    const { reason, message } = record.problem;
    return [
      { type: 'Stalled', status: 'True', reason, message },
      { type: 'Ready', status: 'False', reason, message },
    ];
  }
  return [VALID, { type: 'Ready', status: 'True', reason: 'Reconciled', message: 'package variants successfully reconciled' }];
}

/**
 * Every variant and set with its status, as one YAML stream. `notPushed` holds the repositories
 * (namespace/name) whose push failed, with why: their variants that were to write are not Ready, and
 * what stands for their downstream is not known.
 */
export function statusText(variants: readonly VariantRecord[], sets: readonly SetRecord[], downstreams: readonly PlannedDownstream[], notPushed: ReadonlyMap<string, string> = new Map()): string {
  const byVariant = new Map(downstreams.filter((d) => d.variant.startsWith('PackageVariant ')).map((d) => [d.variant, d]));
  const objects = [
    ...sets.map((record) => ({ ...header(record.object), status: { conditions: setConditions(record) } })),
    ...variants.map((record) => {
      const entry = byVariant.get(record.label);
      const failure = entry && entry.refs.length > 0 ? notPushed.get(repositoryKey(namespaceOfLabel(entry.variant), entry.repository)) : undefined;
      const targets = failure === undefined ? (entry?.targets ?? []) : [];
      return { ...header(record.object), status: { conditions: variantConditions(record, entry, failure), downstreamTargets: targets.map((name) => ({ name })) } };
    }),
  ];
  return objects.map((object) => stringify(object)).join('---\n');
}
