/**
 * Reads a document's identity (apiVersion, kind, name, namespace, the `# kpt-merge:` comment and the
 * upstream-identifier annotation) from its lines, so a package's untouched resources need no parse.
 * Answers undefined when it cannot be sure; the caller then parses.
 */
import { keyOf, meaningfulLines, simpleScalar, valueOf, type Line } from '../yaml/line-scan';

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

/** The lines under `parent` (deeper than it), and the indent of its first child. */
function children(lines: readonly Line[], parent: number): { lines: Line[]; indent: number } {
  const out: Line[] = [];
  for (let i = parent + 1; i < lines.length && lines[i]!.indent > lines[parent]!.indent; i += 1) out.push(lines[i]!);
  return { lines: out, indent: out[0]?.indent ?? -1 };
}

function field(lines: readonly Line[], indent: number, key: string): { value: string | undefined; at: number } | undefined {
  const at = lines.findIndex((l) => l.indent === indent && keyOf(l.text) === key && !l.text.trimStart().startsWith('-'));
  return at === -1 ? undefined : { value: simpleScalar(valueOf(lines[at]!.text)), at };
}

/** Anchors, aliases and tags, which a line scan cannot follow, on one line. */
const SPECIAL_ON_LINE = /(^|[\s:,[{-])[&*!]/;

/** Tabs, carriage returns, directives and document markers: the structure a line scan cannot see. */
const BREAKS_THE_STRUCTURE = /\t|\r|^(---|\.\.\.|%)/m;

/** Whether a line the scan read holds an anchor, an alias or a tag: elsewhere, prose may hold `*` or `&`. */
const special = (line: Line | undefined): boolean => line !== undefined && SPECIAL_ON_LINE.test(line.text);


/**
 * The group and kind a CustomResourceDefinition's text defines (`spec.group`, `spec.names.kind`),
 * when a line scan can read them: only the lines read must be plain, so the prose of a schema's
 * descriptions does not matter.
 */
export function scanDefinedKind(text: string): { readonly group: string; readonly kind: string } | undefined {
  if (BREAKS_THE_STRUCTURE.test(text)) return undefined;
  const lines = meaningfulLines(text);
  const spec = field(lines, 0, 'spec');
  if (!spec || valueOf(lines[spec.at]!.text) !== '') return undefined;
  const below = children(lines, spec.at);
  const group = field(below.lines, below.indent, 'group');
  const names = field(below.lines, below.indent, 'names');
  if (!group?.value || !names || valueOf(below.lines[names.at]!.text) !== '') return undefined;
  const inNames = children(below.lines, names.at);
  const kind = field(inNames.lines, inNames.indent, 'kind');
  if (!kind?.value) return undefined;
  const read = [lines[spec.at], below.lines[group.at], below.lines[names.at], inNames.lines[kind.at]];
  return read.some(special) ? undefined : { group: group.value, kind: kind.value };
}

export function scanIdentity(text: string): ScanOutcome {
  if (BREAKS_THE_STRUCTURE.test(text)) return undefined;
  const lines = meaningfulLines(text);
  // A sequence is no resource; other `- ` lines at column 0 are compact lists under a key.
  if (lines[0]?.text.startsWith('-')) return { krm: false };
  if (lines.length === 0 || lines.some((l) => l.indent === 0 && !l.text.startsWith('-') && keyOf(l.text) === undefined)) return undefined;
  // A map is a resource whatever it names of its identity (kpt's rule): what it lacks is empty.
  const apiVersion = field(lines, 0, 'apiVersion');
  const kind = field(lines, 0, 'kind');
  const metadata = field(lines, 0, 'metadata');
  if ((apiVersion && !apiVersion.value) || (kind && !kind.value) || (metadata && valueOf(lines[metadata.at]!.text) !== '')) return undefined;
  const below = metadata ? children(lines, metadata.at) : { lines: [], indent: -1 };
  const name = field(below.lines, below.indent, 'name');
  const namespace = field(below.lines, below.indent, 'namespace');
  if ((name && !name.value) || (namespace && namespace.value === undefined)) return undefined;
  const annotations = field(below.lines, below.indent, 'annotations');
  let upstreamIdentifier: string | undefined;
  const read = [apiVersion && lines[apiVersion.at], kind && lines[kind.at], metadata && lines[metadata.at], name && below.lines[name.at], namespace && below.lines[namespace.at], annotations && below.lines[annotations.at]];
  if (annotations) {
    const entries = children(below.lines, annotations.at);
    const entry = field(entries.lines, entries.indent, UPSTREAM_IDENTIFIER);
    if (entry && entry.value === undefined) return undefined;
    upstreamIdentifier = entry?.value;
    read.push(entry && entries.lines[entry.at]);
  }
  if (read.some(special)) return undefined;
  const comment = metadata && /^metadata:\s+#(.*)$/.exec(lines[metadata.at]!.text)?.[1];
  return {
    krm: true,
    apiVersion: apiVersion?.value ?? '',
    kind: kind?.value ?? '',
    name: name?.value ?? '',
    namespace: namespace?.value ?? '',
    ...(comment !== undefined ? { metadataComment: comment } : {}),
    ...(upstreamIdentifier !== undefined ? { upstreamIdentifier } : {}),
  };
}
