import type { FieldPath } from '../path';

export type ConflictKind =
  /** Both sides changed the value, differently. */
  | 'both-changed'
  /** Local changed it; upstream deleted it. */
  | 'changed-vs-deleted'
  /** Local deleted it; upstream changed it. */
  | 'deleted-vs-changed';

/** A place where local's change gave way to upstream's (or, with `conflicts: error`, stopped the merge). */
export interface MergeConflict {
  readonly path: FieldPath;
  readonly kind: ConflictKind;
  readonly local: string;
  readonly upstream: string;
}

export class ConflictSink {
  readonly conflicts: MergeConflict[] = [];

  add(conflict: MergeConflict): void {
    this.conflicts.push(conflict);
  }
}
