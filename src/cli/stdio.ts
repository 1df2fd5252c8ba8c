import { readFileSync, writeSync } from 'node:fs';

export function writeAll(fd: number, text: string | Uint8Array): void {
  const buffer = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  let offset = 0;
  while (offset < buffer.length) offset += writeSync(fd, buffer, offset);
}

/** Stdin's bytes: decoded by the caller (krm/utf8.ts), so that bytes that are not UTF-8 survive. */
export function readStdin(): Buffer {
  try {
    return readFileSync(0);
  } catch (error) {
    // A closed or absent stdin reads as empty; the runtime reports that as an error result.
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN' || (error as NodeJS.ErrnoException).code === 'EOF') return Buffer.alloc(0);
    throw error;
  }
}
