/** What a Kptfile records about where its package comes from: `upstream.git` and `upstreamLock.git`. */
import { parseDocument, visit } from 'yaml';
import { PLAIN_NULL, readFailsafeBlockMap } from '../yaml/data-reader';
import { chompAtEnd } from '../yaml/yaml-format';

export interface GitUpstream {
  readonly repo: string;
  readonly directory: string;
  readonly ref: string;
}

export interface GitLock extends GitUpstream {
  readonly commit: string;
}

export interface UpstreamInfo {
  /** `upstream.git`, when the Kptfile records a git upstream. */
  readonly upstream?: GitUpstream;
  /** `upstreamLock.git`, when it records the commit the package was fetched from. */
  readonly lock?: GitLock;
  readonly updateStrategy?: string;
}

export class KptfileError extends Error {}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * A Kptfile's data as kpt reads it into its typed fields: every scalar is its text (`ref: 1.10` is
 * the tag `1.10`, not the number 1.1; a commit of digits keeps its digits), and only a plain null
 * (`~`, `null`, nothing) is none; a block scalar at the end reads as the spec reads it (chompAtEnd).
 * Throws the first YAML error. A Kptfile in the simple block subset is read without the parser.
 */
export function kptfileData(text: string): unknown {
  return readFailsafeBlockMap(text) ?? parsedKptfileData(text);
}

/** kptfileData by `yaml`'s parser, whatever the text. */
export function parsedKptfileData(text: string): unknown {
  const doc = parseDocument(text, { schema: 'failsafe' });
  if (doc.errors.length) throw doc.errors[0]!;
  chompAtEnd(doc.contents, text);
  visit(doc, {
    Scalar(_key, node) {
      if (node.type === 'PLAIN' && typeof node.value === 'string' && PLAIN_NULL.test(node.value)) node.value = null;
    },
  });
  return doc.toJS();
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export function readUpstreamInfo(kptfile: string, where: string): UpstreamInfo {
  let data: unknown;
  try {
    data = kptfileData(kptfile);
  } catch (error) {
    throw new KptfileError(`${where} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const root = record(data);
  if (!root || root.kind !== 'Kptfile') throw new KptfileError(`${where} is not a Kptfile (kind: Kptfile)`);
  const upstream = record(root.upstream);
  const git = record(upstream?.git);
  const lock = recordedLock(root);
  return {
    ...(git ? { upstream: { repo: text(git.repo), directory: text(git.directory), ref: text(git.ref) } } : {}),
    ...(lock ? { lock } : {}),
    ...(upstream?.updateStrategy !== undefined ? { updateStrategy: text(upstream.updateStrategy) } : {}),
  };
}

/** `upstreamLock.git` of a Kptfile's data (as kptfileData reads it), when it records one. */
export function recordedLock(root: Record<string, unknown>): GitLock | undefined {
  const lock = record(record(root.upstreamLock)?.git);
  return lock && { repo: text(lock.repo), directory: text(lock.directory), ref: text(lock.ref), commit: text(lock.commit) };
}
