import { readSync, writeSync } from 'node:fs';
import { MAX_INPUT_BYTES, MAX_INPUT_UNITS } from '../krm/input-bounds';
import { groupDigits } from '../yaml/group-digits';
import { countUnits } from '../yaml/text-units';
import { decodeUtf8, encodeText } from '../yaml/utf8';

/**
 * stdin's bytes and their text (decoded by krm/utf8.ts, so bytes that are not UTF-8 survive), or why
 * the function cannot have them (unreadable, or too large).
 */
export type StdinInput = { readonly text: string; readonly bytes: Uint8Array } | { readonly error: string };

const CHUNK_BYTES = 64 * 1024;

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** Waits a millisecond, for a non-blocking descriptor that is not ready. */
function pause(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
}

/**
 * stdin in one buffer: the first 64 KiB in a small one (most inputs end there), then one of the
 * limit's size, whose pages cost memory only as they are filled; no chunks to join. Plain
 * Uint8Arrays: Buffer's own allocation costs a fresh process a few hundred microseconds on first
 * use, and the no-op run lives on start-up time.
 */
class InputBuffer {
  private buffer = new Uint8Array(CHUNK_BYTES);
  /** Bytes kept, and bytes seen (past the limit the rest is read and dropped). */
  kept = 0;
  seen = 0;

  constructor(private readonly limit: number) {}

  /** Where the next read goes: the buffer's free space, or a scratch chunk once the limit is passed. */
  space(): Uint8Array {
    if (this.kept === this.buffer.length && this.buffer.length <= this.limit) {
      const larger = new Uint8Array(this.limit + 1);
      larger.set(this.buffer);
      this.buffer = larger;
    }
    return this.kept < this.buffer.length ? this.buffer.subarray(this.kept) : new Uint8Array(CHUNK_BYTES);
  }

  took(read: number, into: Uint8Array): void {
    this.seen += read;
    if (into.buffer === this.buffer.buffer) this.kept += read;
  }

  get bytes(): Uint8Array {
    return this.buffer.subarray(0, this.kept);
  }
}

export function readStdin(limits: { readonly bytes: number; readonly units: number } = { bytes: MAX_INPUT_BYTES, units: MAX_INPUT_UNITS }): StdinInput {
  const input = new InputBuffer(limits.bytes);
  for (;;) {
    const space = input.space();
    let read: number;
    try {
      read = readSync(0, space, 0, Math.min(space.length, CHUNK_BYTES * 16), null);
    } catch (error) {
      const code = errorCode(error);
      // A terminal or closed pipe that gives nothing reads as empty: the runtime reports that.
      if ((code === 'EAGAIN' && input.seen === 0) || code === 'EOF') break;
      if (code === 'EAGAIN') {
        pause();
        continue;
      }
      return { error: `cannot read the ResourceList from stdin: ${(error as Error).message}` };
    }
    if (read === 0) break;
    input.took(read, space);
  }
  const refused = (what: string) => ({ error: `the input is ${what}; the function reads at most ${groupDigits(limits.bytes)} bytes in ${groupDigits(limits.units)} lines and flow entries (see "Safety" in the README)` });
  if (input.seen > limits.bytes) return refused(`${groupDigits(input.seen)} bytes`);
  const bytes = input.bytes;
  const text = decodeUtf8(bytes);
  const units = countUnits(text);
  return units > limits.units ? refused(`${groupDigits(units)} lines and flow entries`) : { text, bytes };
}

export function writeAll(fd: number, text: string | Uint8Array): void {
  const buffer = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  let offset = 0;
  while (offset < buffer.length) {
    try {
      offset += writeSync(fd, buffer, offset);
    } catch (error) {
      if (errorCode(error) !== 'EAGAIN') throw error;
      pause();
    }
  }
}

/** What the function reads: stdin's text, or why it has none. Its bytes are not kept, to spare their memory. */
export type FunctionInput = { readonly text: string } | { readonly error: string };

const WRITE_BLOCK_CHARS = 64 * 1024;

/**
 * Writes text handed over in pieces to `fd`, in blocks of about 64 KiB: a large output is never one
 * string or one buffer, and a small piece is never one system call.
 */
export class BlockWriter {
  private pending: string[] = [];
  private chars = 0;

  constructor(private readonly fd: number) {}

  write(piece: string): void {
    this.pending.push(piece);
    this.chars += piece.length;
    if (this.chars >= WRITE_BLOCK_CHARS) this.flush();
  }

  flush(): void {
    if (this.pending.length === 0) return;
    const block = this.pending.join('');
    this.pending = [];
    this.chars = 0;
    writeAll(this.fd, encodeText(block));
  }
}

/**
 * The exit code for an error that escaped the run: stdout that cannot be written (closed by
 * `| head`, a full disk) ends with one line on stderr and exit 1, never a stack trace; anything
 * else is rethrown.
 */
export function exitOnWriteError(error: unknown): number {
  if ((error as NodeJS.ErrnoException).syscall !== 'write') throw error;
  const code = errorCode(error);
  try {
    writeAll(2, code === 'EPIPE' ? 'package-variant: stdout was closed before the output was written (EPIPE)\n' : `package-variant: the output could not be written (${code})\n`);
  } catch {
    // stderr is closed too: the exit code is all that is left.
  }
  return 1;
}
