/** State one merge run collects: the resource changes to make and the results to report. */
import { ID, KPT_RESOURCE_ID, LEGACY_ID, LEGACY_INDEX, INDEX, LEGACY_PATH, PATH } from '../../krm/annotations';
import { KrmResource } from '../../krm/resource';
import { takenFromUpstream } from '../../yaml/yaml-format';
import { errorResult, FunctionError, type Result } from '../../krm/results';
import { collate, MergeInputError, MergeTypeError } from '../collate/collate';
import { ConflictSink } from '../conflicts/conflict';
import { conflictResults, keylessResults, type ConflictPolicy } from '../conflicts/to-results';
import type { Element, Side } from '../elements/element';
import { formatPath, ROOT } from '../path';
import type { SchemaRegistry } from '../schema/registry';
import { resourceSchema } from '../schema/resource-schema';
import { applyDecision } from '../apply/apply-decision';
import { describeResource, UPSTREAM_IDENTIFIER } from '../resources/identity';
import { isRootKptfile } from '../resources/scopes';
import { MERGE_SOURCE } from '../resources/sources';
import type { ResourceTuple } from '../resources/identity';
import type { Decision } from '../visitors/decision';
import { LocalChangesVisitor } from '../visitors/local-changes';
import { visit, type ElementVisitor } from '../visitors/visitor';
import { forgetComparisons, replaceContent, sameContent } from '../yaml-values';

export interface MergeCounts {
  merged: number;
  added: number;
  deleted: number;
  keptModified: number;
  conflicts: number;
}

const IDENTIFIER_PATH = ['metadata', 'annotations', UPSTREAM_IDENTIFIER];

export class MergeRun {
  readonly results: Result[] = [];
  readonly removed = new Set<KrmResource>();
  readonly added: KrmResource[] = [];
  /** Local resources upstream moved to another file (their path followed upstream's). */
  readonly moved = new Set<KrmResource>();
  /** The tuple each copy of an upstream resource came from. */
  readonly copiedFrom = new Map<KrmResource, ResourceTuple>();
  readonly counts: MergeCounts = { merged: 0, added: 0, deleted: 0, keptModified: 0, conflicts: 0 };

  constructor(
    readonly registry: SchemaRegistry,
    readonly policy: ConflictPolicy,
  ) {}

  /** The collated element tree of one resource, over the given sides. */
  collate(tuple: ResourceTuple, sides: readonly Side[]): Element {
    const any = (tuple.local ?? tuple.upstream ?? tuple.origin) as KrmResource;
    const slots: { [side in Side]?: KrmResource['node'] } = {};
    for (const side of sides) if (tuple[side]) slots[side] = tuple[side]!.node;
    return collate(slots, ROOT, resourceSchema(this.registry.rootFor(any.group, any.kind)));
  }

  localChanges(tuple: ResourceTuple) {
    return this.guarded(tuple.local as KrmResource, () => visit(this.collate(tuple, ['origin', 'local']), new LocalChangesVisitor()));
  }

  /** Runs a walk over a resource, turning input problems it finds into an error naming the resource. */
  private guarded<T>(resource: KrmResource, walk: () => T): T {
    try {
      return walk();
    } catch (error) {
      if (!(error instanceof MergeTypeError || error instanceof MergeInputError)) throw error;
      throw new FunctionError(
        errorResult(`cannot merge ${describeResource(resource)}: ${error.message}`, {
          resourceRef: resource.ref(),
          field: { path: formatPath(error.path) },
          ...(resource.fileRef() ? { file: resource.fileRef()! } : {}),
        }),
      );
    }
  }

  /** Runs a visitor over a resource and applies its decisions to local's node. */
  applyVisitor(tuple: ResourceTuple, visitor: ElementVisitor<Decision>, sink?: ConflictSink): void {
    const local = tuple.local as KrmResource;
    const element = this.collate(tuple, ['origin', 'upstream', 'local']);
    const decision = this.guarded(local, () => visit(element, visitor));
    // Applying edits local's nodes: comparisons remembered so far no longer hold.
    const applied = applyDecision(decision, element.slots);
    forgetComparisons();
    if (applied.changed) local.markChanged();
    if (sink?.conflicts.length) {
      this.counts.conflicts += sink.conflicts.length;
      this.results.push(...conflictResults(sink.conflicts, local, this.policy));
    }
    if (sink?.keyless.length) this.results.push(...keylessResults(sink.keyless, local));
  }

  /** A copy of the tuple's upstream resource, without what tied it to its own input item. */
  addFromUpstream(tuple: ResourceTuple): void {
    const upstream = tuple.upstream as KrmResource;
    const copy = KrmResource.fromTree(takenFromUpstream(upstream.node), upstream.doc, 'new');
    for (const key of [MERGE_SOURCE, ID, LEGACY_ID, KPT_RESOURCE_ID]) copy.removeAnnotation(key);
    this.added.push(copy);
    this.copiedFrom.set(copy, tuple);
  }

  /**
   * force-delete-replace of a resource local has too: upstream's content replaces local's whole (its
   * data, nulls, order and comments, as a copy would), but in local's node, so that its document
   * keeps the lines upstream did not change, and with the bookkeeping `kpt pkg get` wrote (the
   * identifier annotation, the merge comment on `metadata`). It goes to upstream's file.
   */
  replaceWithUpstream(tuple: ResourceTuple): void {
    const local = tuple.local as KrmResource;
    const path = local.path;
    const identifier = local.getNode(IDENTIFIER_PATH);
    replaceContent(local.node, takenFromUpstream((tuple.upstream as KrmResource).node), 'metadata');
    for (const key of [MERGE_SOURCE, ID, LEGACY_ID, KPT_RESOURCE_ID]) local.removeAnnotation(key);
    if (identifier !== undefined && !local.has(IDENTIFIER_PATH)) local.setIn(IDENTIFIER_PATH, identifier);
    local.markChanged();
    if (local.path !== path) this.moved.add(local);
  }

  remove(resource: KrmResource): void {
    this.removed.add(resource);
  }

  /**
   * A subpackage's Kptfile records where upstream's version of it came from: its `upstream` and
   * `upstreamLock` follow upstream's (kpt's updateUpstream for packages other than the root).
   */
  followUpstreamRecord(tuple: ResourceTuple): void {
    const { upstream, local } = tuple;
    if (!upstream || !local?.isKptfile || isRootKptfile(local)) return;
    for (const section of ['upstream', 'upstreamLock']) {
      const node = upstream.getNode([section]);
      if (!node || sameContent(node, local.getNode([section]))) continue;
      // A copy of upstream's node keeps its spellings: a commit of digits only is no number.
      local.setIn([section], node.clone());
    }
  }

  /** The file path merges like a field: upstream's move is followed unless local moved it. */
  followUpstreamPath(tuple: ResourceTuple): void {
    const { origin, upstream, local } = tuple;
    if (!origin || !upstream || !local || upstream.path === origin.path || local.path !== origin.path || upstream.path === undefined) return;
    local.setAnnotation(PATH, upstream.path);
    local.setAnnotation(LEGACY_PATH, upstream.path);
    const index = upstream.annotation(INDEX) ?? '0';
    local.setAnnotation(INDEX, index);
    local.setAnnotation(LEGACY_INDEX, index);
    this.moved.add(local);
  }
}
