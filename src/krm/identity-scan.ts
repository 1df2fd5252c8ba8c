/**
 * Reads a document's identity (apiVersion, kind, name, namespace, the `# kpt-merge:` comment and the
 * upstream-identifier annotation) from its lines, so a package's untouched resources need no parse.
 * Answers undefined when it cannot be sure; the caller then parses.
 */
import { keyOf, leadingWhiteSpace, simpleScalar, valueOf } from '../yaml/line-scan';

/** What identity is made of, whether read from a parsed resource or scanned from its text. */
export interface IdentityFacts {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
  /** The line comment on `metadata:`. */
  readonly metadataComment?: string;
  readonly upstreamIdentifier?: string;
  readonly path?: string;
}

/** `krm`: the document is a map, so a resource (kpt's rule); a sequence or a scalar is not. */
export type ScannedIdentity = IdentityFacts & { readonly krm: true };

export type ScanOutcome = ScannedIdentity | { readonly krm: false } | undefined;

const UPSTREAM_IDENTIFIER = 'internal.kpt.dev/upstream-identifier';

/**
 * Meaningful lines (neither blank nor comments) of a range of a text, by position: a line's string
 * is made only when the scan reads it. Indentation is counted as `trimStart` counts it (line-scan.ts).
 */
class ScannedLines {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly indents: number[] = [];

  /** The meaningful lines that start in [from, to), at most `limit` of them. */
  constructor(
    private readonly text: string,
    from: number,
    to: number,
    limit = Infinity,
  ) {
    for (let start = from; start < to && this.starts.length < limit; ) {
      const newline = text.indexOf('\n', start);
      const end = newline === -1 ? text.length : newline;
      const indent = leadingWhiteSpace(text, start, end);
      if (start + indent < end && text.charCodeAt(start + indent) !== HASH) {
        this.starts.push(start);
        this.ends.push(end);
        this.indents.push(indent);
      }
      start = end + 1;
    }
  }

  get count(): number {
    return this.starts.length;
  }

  indent(at: number): number {
    return this.indents[at]!;
  }

  /** Whether line `at` starts with `-` after its indentation. */
  dashed(at: number): boolean {
    return this.text.charCodeAt(this.starts[at]! + this.indents[at]!) === DASH;
  }

  /** All the lines, at the indentation of the first. */
  all(): Block {
    return { from: 0, to: this.count, indent: this.count > 0 ? this.indent(0) : -1 };
  }

  /** The lines under line `parent` of `block` (deeper than it), at the indentation of the first. */
  children(block: Block, parent: number): Block {
    let to = parent + 1;
    while (to < block.to && this.indent(to) > this.indent(parent)) to += 1;
    return { from: parent + 1, to, indent: to > parent + 1 ? this.indent(parent + 1) : -1 };
  }

  /** The first line of `block` at its indentation that holds `key` (not a `- ` entry). */
  field(block: Block, key: string): Field | undefined {
    for (let at = block.from; at < block.to; at += 1) {
      if (this.indent(at) !== block.indent || this.dashed(at)) continue;
      const line = this.text.slice(this.starts[at], this.ends[at]);
      if (keyOf(line) === key) return { value: simpleScalar(valueOf(line)), line, at };
    }
    return undefined;
  }
}

/** A run of lines, [from, to), and the indentation of its first (-1: none). */
interface Block {
  readonly from: number;
  readonly to: number;
  readonly indent: number;
}

/** A field a line scan read: its line as written, and its value when a plain or simply quoted scalar. */
interface Field {
  readonly value: string | undefined;
  readonly line: string;
  readonly at: number;
}

const HASH = 0x23;
const DASH = 0x2d;

/** The start of a meaningful line at column 0: neither white space (as `trimStart` has it) nor a comment. */
const COLUMN_ZERO = /(?:^|\n)[^\s#]/g;

/**
 * The meaningful lines at column 0, found by a pattern: most of a document's lines are indented, and
 * only the few under `metadata` (or a CRD's `spec`) are read.
 */
class TopLines {
  private readonly starts: number[] = [];
  readonly lines: string[] = [];

  constructor(private readonly text: string) {
    for (const match of text.matchAll(COLUMN_ZERO)) {
      const start = match.index! + match[0].length - 1;
      const newline = text.indexOf('\n', start);
      this.starts.push(start);
      this.lines.push(text.slice(start, newline === -1 ? text.length : newline));
    }
  }

  /** The first line that holds `key` (not a `- ` entry). */
  field(key: string): Field | undefined {
    const at = this.lines.findIndex((line) => line[0] !== '-' && keyOf(line) === key);
    return at === -1 ? undefined : { value: simpleScalar(valueOf(this.lines[at]!)), line: this.lines[at]!, at };
  }

  /** The meaningful lines under line `at`: up to the next line at column 0. */
  below(at: number): ScannedLines {
    return new ScannedLines(this.text, this.starts[at]! + this.lines[at]!.length + 1, this.starts[at + 1] ?? this.text.length);
  }
}

/** Anchors, aliases and tags, which a line scan cannot follow, on one line. */
const SPECIAL_ON_LINE = /(^|[\s:,[{-])[&*!]/;

/** Tabs, carriage returns, directives and document markers: the structure a line scan cannot see. */
const BREAKS_THE_STRUCTURE = /\t|\r|^(---|\.\.\.|%)/m;

/** Whether a line the scan read holds an anchor, an alias or a tag: elsewhere, prose may hold `*` or `&`. */
const special = (field: Field | undefined): boolean => field !== undefined && SPECIAL_ON_LINE.test(field.line);


/**
 * The group and kind a CustomResourceDefinition's text defines (`spec.group`, `spec.names.kind`),
 * when a line scan can read them: only the lines read must be plain, so the prose of a schema's
 * descriptions does not matter.
 */
export function scanDefinedKind(text: string): { readonly group: string; readonly kind: string } | undefined {
  if (BREAKS_THE_STRUCTURE.test(text)) return undefined;
  const top = new TopLines(text);
  const spec = top.field('spec');
  if (!spec || valueOf(spec.line) !== '') return undefined;
  const lines = top.below(spec.at);
  const below = lines.all();
  const group = lines.field(below, 'group');
  const names = lines.field(below, 'names');
  if (!group?.value || !names || valueOf(names.line) !== '') return undefined;
  const kind = lines.field(lines.children(below, names.at), 'kind');
  if (!kind?.value) return undefined;
  return [spec, group, names, kind].some(special) ? undefined : { group: group.value, kind: kind.value };
}

export function scanIdentity(text: string): ScanOutcome {
  if (BREAKS_THE_STRUCTURE.test(text)) return undefined;
  const first = new ScannedLines(text, 0, text.length, 1);
  if (first.count === 0) return undefined;
  // A sequence is no resource; other `- ` lines at column 0 are compact lists under a key.
  if (first.indent(0) === 0 && first.dashed(0)) return { krm: false };
  const top = new TopLines(text);
  if (top.lines.some((line) => line[0] !== '-' && keyOf(line) === undefined)) return undefined;
  // A map is a resource whatever it names of its identity (kpt's rule): what it lacks is empty.
  const apiVersion = top.field('apiVersion');
  const kind = top.field('kind');
  const metadata = top.field('metadata');
  if ((apiVersion && !apiVersion.value) || (kind && !kind.value) || (metadata && valueOf(metadata.line) !== '')) return undefined;
  const lines = metadata && top.below(metadata.at);
  const below = lines?.all();
  const name = below && lines!.field(below, 'name');
  const namespace = below && lines!.field(below, 'namespace');
  if ((name && !name.value) || (namespace && namespace.value === undefined)) return undefined;
  const annotations = below && lines!.field(below, 'annotations');
  const entry = annotations && lines!.field(lines!.children(below!, annotations.at), UPSTREAM_IDENTIFIER);
  if (entry && entry.value === undefined) return undefined;
  if ([apiVersion, kind, metadata, name, namespace, annotations, entry].some(special)) return undefined;
  const comment = metadata && /^metadata:\s+#(.*)$/.exec(metadata.line)?.[1];
  return {
    krm: true,
    apiVersion: apiVersion?.value ?? '',
    kind: kind?.value ?? '',
    name: name?.value ?? '',
    namespace: namespace?.value ?? '',
    ...(comment !== undefined ? { metadataComment: comment } : {}),
    ...(entry?.value !== undefined ? { upstreamIdentifier: entry.value } : {}),
  };
}
