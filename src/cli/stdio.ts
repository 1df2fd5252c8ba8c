import { readFileSync, writeSync } from 'node:fs';

export function writeAll(fd: number, text: string): void {
  const buffer = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < buffer.length) offset += writeSync(fd, buffer, offset);
}

export function readStdin(): string {
  try {
    return readFileSync(0, 'utf8');
  } catch (error) {
    // A closed or absent stdin reads as empty; the runtime reports that as an error result.
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN' || (error as NodeJS.ErrnoException).code === 'EOF') return '';
    throw error;
  }
}
