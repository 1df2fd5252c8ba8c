/**
 * A PackageVariant's `spec.labels` and `spec.annotations`, which Porch sets on every
 * PackageRevision it creates for the variant (porch-semantics.md §5), in cluster metadata that git
 * does not hold. sync records them where a reader of the repository finds a revision's metadata:
 * the `metadata.labels` and `metadata.annotations` of the package's root Kptfile, which Porch shows
 * as the revision's `spec.packageMetadata`, kpt keeps with the package, and nothing applies to a
 * cluster (a Kptfile is local configuration). The variant's values win over the package's, as
 * Porch's adoption merges them; none the package has is removed. Checked as the API server checks
 * metadata, and kept out of the prefixes kpt and sync write themselves.
 */
import { isMap, isScalar } from 'yaml';
import type { ConfigObject } from '../config/function-config';
import { labelValueProblem, qualifiedNameProblems } from '../fanout/selector';
import type { KrmResource } from '../krm/resource';
import { errorResult, FunctionError, type Result } from '../krm/results';

/** Key prefixes kpt reads on a Kptfile or puts on what it reads, and sync's own ownership record. */
const RESERVED_PREFIXES = ['config.kubernetes.io', 'internal.config.kubernetes.io', 'config.k8s.io', 'internal.config.k8s.io', 'kpt.dev', 'package-variant.github.io'];
/** The API server's bound on all of an object's annotations together (TotalAnnotationSizeLimitB). */
const MAX_ANNOTATION_BYTES = 256 * 1024;

type Field = 'labels' | 'annotations';

const fieldOf = (variant: ConfigObject, field: Field): Readonly<Record<string, string>> => ((variant.spec ?? {}) as Record<Field, Record<string, string> | undefined>)[field] ?? {};

/** Why the API server (or sync, for a reserved prefix) would refuse the variant's labels and annotations. */
export function metadataProblems(variant: ConfigObject, label: string): Result[] {
  const problems: Result[] = [];
  const add = (field: Field, message: string) => problems.push(errorResult(`${label}: spec.${field}: ${message}`, { field: { path: `spec.${field}` } }));
  for (const field of ['labels', 'annotations'] as const) {
    const entries = Object.entries(fieldOf(variant, field));
    for (const [key, value] of entries) {
      const slash = key.indexOf('/');
      const prefix = slash === -1 ? undefined : key.slice(0, slash).toLowerCase();
      // The API server checks annotation keys in lower case (which matters only to the prefix), label keys as written.
      for (const message of field === 'labels' ? qualifiedNameProblems(key) : qualifiedNameProblems(prefix === undefined ? key : `${prefix}${key.slice(slash)}`, 'annotation key')) add(field, message);
      const bad = field === 'labels' ? labelValueProblem(value) : undefined;
      if (bad) add(field, bad);
      if (prefix !== undefined && RESERVED_PREFIXES.includes(prefix)) add(field, `${JSON.stringify(key)}: the prefix ${prefix}/ is kpt's or sync's own on a Kptfile, where sync records the variant's ${field}`);
    }
    const bytes = entries.reduce((sum, [key, value]) => sum + Buffer.byteLength(key) + Buffer.byteLength(value), 0);
    if (field === 'annotations' && bytes > MAX_ANNOTATION_BYTES) add(field, `${bytes} bytes: annotations may hold at most ${MAX_ANNOTATION_BYTES} bytes together`);
  }
  return problems;
}

/** Records the variant's labels and annotations on the root Kptfile; throws FunctionError where its metadata cannot take them. */
export function recordMetadata(kptfile: KrmResource, variant: ConfigObject): void {
  for (const field of ['labels', 'annotations'] as const) {
    const entries = Object.entries(fieldOf(variant, field));
    if (entries.length === 0) continue;
    const metadata = kptfile.getNode(['metadata']);
    const present = isMap(metadata) ? metadata.get(field, true) : undefined;
    if (isScalar(present) && present.value === null) kptfile.setIn(['metadata', field], {});
    else if (!isMap(metadata) || (present !== undefined && !isMap(present))) {
      throw new FunctionError(errorResult(`the Kptfile's metadata.${field} is not a map: the variant's ${field} cannot be recorded there`, { field: { path: `metadata.${field}` } }));
    }
    for (const [key, value] of entries) kptfile.setIn(['metadata', field, key], value);
  }
}
