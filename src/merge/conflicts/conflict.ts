import type { FieldPath } from '../path';

export type ConflictKind =
  /** Both sides changed the value, differently. */
  | 'both-changed'
  /** Local changed it; upstream deleted it. */
  | 'changed-vs-deleted'
  /** Local deleted it; upstream changed it. */
  | 'deleted-vs-changed';

interface ConflictBase {
  readonly path: FieldPath;
  readonly local: string;
  readonly upstream: string;
}

/** Two elements of a list would have one value of a field that must be unique: which, and where they came from. */
export interface ValueClash {
  readonly field: string;
  readonly value: string;
  /** The keys of local's element and of upstream's. */
  readonly localKey: string;
  readonly upstreamKey: string;
}

/** A place where local's change gave way to upstream's (or, with `conflicts: error`, stopped the merge). */
export type MergeConflict =
  | (ConflictBase & { readonly kind: ConflictKind })
  /** The merged list would hold two elements with one value of a field that must be unique (two ports named grpc). */
  | (ConflictBase & { readonly kind: 'same-value'; readonly clash: ValueClash });

/**
 * A list element the merge keeps although it lacks a key field (taken with upstream's list, which
 * only upstream changed): the result is not valid Kubernetes, and the user should know.
 */
export interface KeylessKept {
  readonly path: FieldPath;
  readonly index: number;
  readonly fields: readonly string[];
  readonly keys: readonly string[];
}

export class ConflictSink {
  readonly conflicts: MergeConflict[] = [];
  readonly keyless: KeylessKept[] = [];

  add(conflict: MergeConflict): void {
    this.conflicts.push(conflict);
  }

  keptKeyless(kept: KeylessKept): void {
    this.keyless.push(kept);
  }
}
