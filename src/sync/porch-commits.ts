/**
 * The commits Porch writes for a package revision (porch-lifecycle.md §7.2): their messages, and the
 * `kpt:` annotation that ends each one, JSON as Go's encoding/json writes it, so that Porch's
 * `ExtractGitAnnotations` reads what a sync wrote and `loadTasks` finds each revision's first task.
 */

/** A reference to a PackageRevision by its Porch name. */
export interface RevisionRef {
  readonly name: string;
}

export type PorchTask =
  | { readonly type: 'clone'; readonly clone: { readonly upstreamRef: { readonly upstreamRef: RevisionRef } } }
  | { readonly type: 'edit'; readonly edit: { readonly sourceRef: RevisionRef } }
  | {
      readonly type: 'upgrade';
      readonly upgrade: { readonly oldUpstreamRef: RevisionRef; readonly newUpstreamRef: RevisionRef; readonly localPackageRevisionRef: RevisionRef; readonly strategy: 'resource-merge' };
    }
  | { readonly type: 'init'; readonly init: Record<string, never> }
  | { readonly type: 'render' };

/** The tasks Porch counts as a revision's first (`loadTasks` stops at clone and init). */
export type FirstTaskType = 'clone' | 'edit' | 'upgrade' | 'init';

export interface CommitAnnotation {
  readonly package: string;
  readonly workspaceName: string;
  /** The revision number as text: "0" for a draft or proposal. */
  readonly revision: string;
  readonly task?: PorchTask;
}

export const MESSAGES = {
  clone: 'Creating new revision by cloning',
  edit: 'Creating new revision by copying previous revision',
  upgrade: 'Upgrading revision',
  init: 'Creating new empty revision',
  render: 'Rendering package',
} as const;

export const cloneTask = (upstream: string): PorchTask => ({ type: 'clone', clone: { upstreamRef: { upstreamRef: { name: upstream } } } });
export const editTask = (source: string): PorchTask => ({ type: 'edit', edit: { sourceRef: { name: source } } });
export const upgradeTask = (oldUpstream: string, newUpstream: string, local: string): PorchTask => ({
  type: 'upgrade',
  upgrade: { oldUpstreamRef: { name: oldUpstream }, newUpstreamRef: { name: newUpstream }, localPackageRevisionRef: { name: local }, strategy: 'resource-merge' },
});
/** Porch's init with nothing to say: a package that came from no upstream. */
export const INIT_TASK: PorchTask = { type: 'init', init: {} };

export const approvalMessage = (pkgpath: string, revision: number): string => `Approving package revision ${pkgpath}/${revision}`;
/** The commit that takes a package off its Repository's branch (Porch's placeholder deletion). */
export const deletionMessage = (pkgpath: string): string => `Delete ${pkgpath}`;

const GO_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A JSON string as Go's encoder writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped, other controls as \u00XX. */
function goString(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0)!;
    if (GO_ESCAPES[char]) out += GO_ESCAPES[char];
    else if (code < 0x20 || char === '<' || char === '>' || char === '&' || code === 0x2028 || code === 0x2029) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += '\\ufffd';
    else out += char;
  }
  return `${out}"`;
}

/** Objects of strings and objects, keys in the order given (Go's struct order), as Go's encoder writes them. */
function goJson(value: unknown): string {
  if (typeof value === 'string') return goString(value);
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined && v !== '');
  return `{${entries.map(([k, v]) => `${goString(k)}:${goJson(v)}`).join(',')}}`;
}

/**
 * A draft commit's message (clone, edit, upgrade, render) with its annotation: Porch's
 * formatCommitMessage ends these with a line break of their own, so three come before `kpt:`
 * where an approval has two.
 */
export const draftMessage = (message: string, annotation: CommitAnnotation): string => annotatedMessage(`${message}\n`, annotation);

/** A commit message ending in its annotation: `<message>\n\nkpt:<json>\n` (Porch's `AnnotateCommitMessage`). */
export function annotatedMessage(message: string, annotation: CommitAnnotation): string {
  const ordered = { package: annotation.package, workspaceName: annotation.workspaceName, revision: annotation.revision, task: annotation.task };
  return `${message}\n\nkpt:${goJson(ordered)}\n`;
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Every well-formed `kpt:` annotation of a commit message, in order. A line that starts with `kpt:`
 * but holds no annotation is passed over: messages come from repositories, which anyone may write.
 */
export function readAnnotations(message: string): CommitAnnotation[] {
  const found: CommitAnnotation[] = [];
  for (const raw of message.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('kpt:')) continue;
    let data: unknown;
    try {
      data = JSON.parse(line.slice(4));
    } catch {
      continue;
    }
    if (!isRecord(data)) continue;
    const text = (key: string): string => (typeof data[key] === 'string' ? (data[key] as string) : '');
    const task = isRecord(data.task) && typeof data.task.type === 'string' ? (data.task as unknown as PorchTask) : undefined;
    found.push({ package: text('package'), workspaceName: text('workspaceName'), revision: text('revision'), ...(task ? { task } : {}) });
  }
  return found;
}
