/**
 * Repositories a sync found settled, so that the next run need not read them again. When the plan
 * of a repository is every downstream unchanged (nothing to write, no error, no render run), the
 * run records it in the user's state directory under a key of everything that plan was made from:
 * this program, the run's settings and objects, the repository, its downstreams, and the refs of the
 * repository and of every upstream they come from as the fetch found them. A later run whose key is
 * the same (no ref moved, no input changed) takes the plan from the record and reads nothing more
 * of the repository than its fetch.
 *
 * A record is believed only under the user's seal (journal-seal.ts), whole, for the very
 * downstreams asked for; anything else in the directory is passed over, and the repository is
 * planned from its content. A render is never taken from a record: kpt's functions may answer
 * differently on another day.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, mkdirSync, openSync, readFileSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { isSealed, sealOf, stateDir } from '../disk/safe-write/journal-seal';
import type { Result } from '../krm/results';
import type { DesiredDownstream } from './desired';
import type { PlannedDownstream } from './plan';
import type { SyncRepository } from './repositories';
import type { PlanSettings } from './settings';

/** Far larger than the record of any repository's downstreams; a larger file is not one this program wrote. */
const MAX_RECORD_BYTES = 16 << 20;

const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

let program: string | undefined;

/** This program, as the bytes of the file it runs from: a record outlives no change to it. */
function programDigest(): string {
  program ??= sha256(readFileSync(__filename));
  return program;
}

/** What every repository's plan of a run depends on besides its own: the settings and the objects standing in for the cluster. */
export function runDigest(settings: PlanSettings): string {
  return sha256(
    JSON.stringify({
      program: programDigest(),
      lifecycle: settings.lifecycle,
      diff: settings.diff,
      render: settings.render !== undefined,
      adoptNow: settings.adoptNow === true,
      allowDelete: settings.allowDelete === true,
      approveDeletions: settings.approveDeletions === true,
      // --only narrows which packages a plan looks at for deletion, not only which downstreams it asks for.
      only: settings.only ?? null,
      namespaces: [...settings.namespaces].sort(),
      candidates: settings.candidates,
    }),
  );
}

const sortedRefs = (refs: ReadonlyMap<string, string>): [string, string][] => [...refs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** The key of a repository's plan: the run, the repository and its downstreams, and the refs of it and of each upstream (by namespace/name). */
export function settledKey(run: string, repository: SyncRepository, group: readonly DesiredDownstream[], refs: ReadonlyMap<string, string>, upstreams: ReadonlyMap<string, ReadonlyMap<string, string>>): string {
  return sha256(
    JSON.stringify({
      run,
      repository,
      group,
      refs: sortedRefs(refs),
      upstreams: [...upstreams].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, upstreamRefs]) => [name, sortedRefs(upstreamRefs)]),
    }),
  );
}

/** Severities a recorded plan may carry: what a settled repository's mutations say, never an error. */
const RECORDED_SEVERITIES: ReadonlySet<unknown> = new Set(['info', 'warning']);
const RESULT_FIELDS: ReadonlySet<string> = new Set(['message', 'severity', 'resourceRef', 'field', 'file', 'tags']);

/** A result that reads back from its record as it was, and says nothing that asks for attention. */
const recordableResult = (result: Result): boolean => RECORDED_SEVERITIES.has(result.severity) && isDeepStrictEqual(JSON.parse(JSON.stringify(result)), result);

/** Whether a repository's plan may be recorded: every downstream unchanged, nothing written, nothing that asks for attention. */
export function recordable(entries: readonly PlannedDownstream[]): boolean {
  return entries.every((e) => e.action === 'unchanged' && e.refs.length === 0 && e.diff === undefined && e.branchDiff === undefined && e.stalled === undefined && e.results.every(recordableResult));
}

const recordsDir = (env: NodeJS.ProcessEnv) => join(stateDir(env), 'sync-settled');
const recordFile = (env: NodeJS.ProcessEnv, repository: SyncRepository) => join(recordsDir(env), `${sha256(JSON.stringify([repository.namespace, repository.name, repository.url]))}.json`);

/** The file's bytes when it is a regular file of this user's, written by nobody else, of at most `max` bytes. */
function readFileBounded(path: string, max: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    const own = typeof process.getuid !== 'function' || stat.uid === process.getuid();
    if (!stat.isFile() || !own || (stat.mode & 0o022) !== 0 || stat.size > max) return undefined;
    const bytes = Buffer.alloc(stat.size);
    let read = 0;
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) return undefined;
      read += n;
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((s) => typeof s === 'string');

const isRecordedResult = (value: unknown): value is Result =>
  value !== null && typeof value === 'object' && Object.keys(value).every((key) => RESULT_FIELDS.has(key)) && typeof (value as Result).message === 'string' && RECORDED_SEVERITIES.has((value as Result).severity);

/** The entry as recorded, when it is exactly an unchanged entry of `d`. */
function recordedEntry(value: unknown, d: DesiredDownstream): PlannedDownstream | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { repository, pkg, variant, action, detail, refs, results, targets, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0 || repository !== d.repository.name || pkg !== d.pkg || variant !== d.label || action !== 'unchanged') return undefined;
  if (typeof detail !== 'string' || !isStrings(refs) || refs.length > 0 || !Array.isArray(results) || !results.every(isRecordedResult)) return undefined;
  if (targets !== undefined && !isStrings(targets)) return undefined;
  return { repository, pkg, variant, action, detail, refs: [], results, ...(targets !== undefined ? { targets } : {}) };
}

/** Whether the user's key seals `body`; a key that cannot be read seals nothing. */
function sealedByUser(body: string, seal: unknown, env: NodeJS.ProcessEnv): boolean {
  try {
    return isSealed(body, seal, env);
  } catch {
    return false;
  }
}

/** The plan recorded for the repository under `key`, for exactly these downstreams; undefined when there is none to believe. */
export function readSettled(env: NodeJS.ProcessEnv, repository: SyncRepository, key: string, group: readonly DesiredDownstream[]): PlannedDownstream[] | undefined {
  const bytes = readFileBounded(recordFile(env, repository), MAX_RECORD_BYTES);
  if (!bytes) return undefined;
  let record: unknown;
  try {
    record = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  const { body, seal } = (record ?? {}) as { body?: unknown; seal?: unknown };
  if (typeof body !== 'string' || !sealedByUser(body, seal, env)) return undefined;
  let parsed: { key?: unknown; entries?: unknown };
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    return undefined;
  }
  if (parsed.key !== key || !Array.isArray(parsed.entries) || parsed.entries.length !== group.length) return undefined;
  const entries = parsed.entries.map((entry, i) => recordedEntry(entry, group[i]!));
  return entries.every((e): e is PlannedDownstream => e !== undefined) ? entries : undefined;
}

/** Records the repository's plan under `key`, whole: written beside the record, then renamed over it. */
export function recordSettled(env: NodeJS.ProcessEnv, repository: SyncRepository, key: string, entries: readonly PlannedDownstream[]): void {
  const body = JSON.stringify({ key, entries });
  const file = recordFile(env, repository);
  const draft = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(recordsDir(env), { recursive: true, mode: 0o700 });
    writeFileSync(draft, JSON.stringify({ body, seal: sealOf(body, env) }), { mode: 0o600, flag: 'wx' });
    renameSync(draft, file);
  } catch {
    // A record not kept costs the next run a full plan, nothing more.
    rmSync(draft, { force: true });
  }
}
