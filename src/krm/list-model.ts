/**
 * A ResourceList in memory: its items, results and functionConfig, and, for a list read from text,
 * where each part of it lies in that text. Reading is in resource-list.ts, writing a list whose
 * text cannot take block YAML spliced into it in whole-list.ts.
 */
import type { Document } from 'yaml';
import type { KrmResource } from './resource';
import type { Result } from './results';

/** How the input wrote its list: a flow-style or JSON list cannot take block text spliced into it. */
export type ListShape = 'block' | 'flow' | 'json';

export interface ItemSpan {
  /** Offset of the `- ` indicator. */
  readonly dash: number;
  readonly end: number;
}

export interface ItemsLayout {
  /** Where the `items` key ends, to write `items: []` when every item is removed. */
  readonly keyEnd: number;
  /** Column of the `- ` indicators. */
  readonly indent: number;
  readonly spans: ReadonlyMap<KrmResource, ItemSpan>;
  /** Where new items go; absent when `items` is not a block sequence and must be rendered whole. */
  readonly appendAt?: number;
  /** The text range of the whole `items` value, replaced when it is not a block sequence. */
  readonly valueRange: readonly [number, number];
}

export interface ResourceListSource {
  readonly text: string;
  /** The list's document (for item-by-item reading, its frame), parsed when first asked for. */
  readonly doc: () => Document.Parsed;
  /** Whether the input carries results already (only a whole-document parse reads such a list). */
  readonly hasResults: boolean;
  readonly layout: ItemsLayout;
  readonly lineCounter: LineLocator;
  /** A flow-style or JSON list cannot take block text spliced into it: it is written whole. */
  readonly shape: ListShape;
  /** The input's line ending: rewritten text uses it too. */
  readonly eol: '\n' | '\r\n';
}

export class ResourceList {
  items: KrmResource[];
  readonly results: Result[] = [];

  /** `source` is the text it was read from; a list built in memory (the update command) has none. */
  constructor(
    readonly apiVersion: string,
    items: KrmResource[],
    readonly functionConfig: KrmResource | undefined,
    readonly source?: ResourceListSource,
  ) {
    this.items = items;
  }
}

/** Where an offset lies, as line and column of the input. */
export interface LineLocator {
  linePos(offset: number): { line: number; col: number };
}

