/**
 * Proof that a journal is this user's package-variant's own: an HMAC over its text with a key kept
 * outside every package, in the user's state directory ($PACKAGE_VARIANT_STATE_DIR, else
 * $XDG_STATE_HOME/package-variant, else ~/.local/state/package-variant), private to the user. A
 * journal that came with a package's content (kpt pkg get copies it, git checks it out) cannot carry
 * a seal made with that key, so it is never replayed: what undo would do with it (remove and rename
 * files) is only ever done for an update this program wrote down itself. sync's records of settled
 * repositories (sync/settled.ts) are believed under the same seal.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, constants, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const KEY_BYTES = 32;

export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PACKAGE_VARIANT_STATE_DIR) return env.PACKAGE_VARIANT_STATE_DIR;
  const base = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  return join(base, 'package-variant');
}

const keyFile = (env: NodeJS.ProcessEnv) => join(stateDir(env), 'journal-key');

function readKey(file: string): Buffer | undefined {
  try {
    const key = readFileSync(file);
    return key.length === KEY_BYTES ? key : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The key, made on first use: written whole under a name of this process's, then linked into place, so no run reads half a key. */
function key(env: NodeJS.ProcessEnv): Buffer {
  const file = keyFile(env);
  const existing = readKey(file);
  if (existing) return existing;
  mkdirSync(stateDir(env), { recursive: true, mode: 0o700 });
  const own = `${file}-new-${process.pid}`;
  const fd = openSync(own, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, randomBytes(KEY_BYTES));
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(own, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(own);
  }
  const made = readKey(file);
  if (!made) throw new Error(`${file} is not a key package-variant made (it is not ${KEY_BYTES} bytes); remove it`);
  return made;
}

const mac = (secret: Buffer, text: string) => createHmac('sha256', secret).update(text, 'utf8').digest();

/** The seal of `text`, making the key if there is none yet. */
export function sealOf(text: string, env: NodeJS.ProcessEnv = process.env): string {
  return mac(key(env), text).toString('hex');
}

/** Whether `seal` is this user's seal of `text`; never makes a key (without one, nothing was sealed). */
export function isSealed(text: string, seal: unknown, env: NodeJS.ProcessEnv = process.env): boolean {
  if (typeof seal !== 'string' || !/^[0-9a-f]{64}$/.test(seal)) return false;
  const secret = readKey(keyFile(env));
  return secret !== undefined && timingSafeEqual(mac(secret, text), Buffer.from(seal, 'hex'));
}
