/**
 * Which shard a downstream repository belongs to, for `--shard I/N`: N runs cover a fleet with no
 * coordinator, each taking the repositories whose key (`<namespace>/<name>` of the Repository
 * object) hashes to its index. The hash is the first four bytes of the key's SHA-256, as an
 * unsigned big-endian number, modulo N: the same on every machine, and the same key always in the
 * same shard.
 */
import { createHash } from 'node:crypto';

export interface Shard {
  /** 0 to count - 1, as Kubernetes' JOB_COMPLETION_INDEX. */
  readonly index: number;
  readonly count: number;
}

export function shardOf(key: string, count: number): number {
  return createHash('sha256').update(key, 'utf8').digest().readUInt32BE(0) % count;
}

/** `I/N` from the command line; undefined when it is not one. */
export function readShard(text: string): Shard | undefined {
  const match = /^(\d{1,6})\/(\d{1,6})$/.exec(text);
  if (!match) return undefined;
  const [index, count] = [Number(match[1]), Number(match[2])];
  return count >= 1 && index < count ? { index, count } : undefined;
}
