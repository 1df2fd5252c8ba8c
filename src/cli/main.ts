import { readFileSync, writeSync } from 'node:fs';
import { packageVariantFunction } from '../function';
import { runKrmFunction } from '../krm/run';
import { USAGE, VERSION } from './usage';

function writeAll(fd: number, text: string): void {
  const buffer = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < buffer.length) offset += writeSync(fd, buffer, offset);
}

function readStdin(): string {
  try {
    return readFileSync(0, 'utf8');
  } catch (error) {
    // A closed or absent stdin reads as empty; the runtime reports that as an error result.
    if ((error as NodeJS.ErrnoException).code === 'EAGAIN' || (error as NodeJS.ErrnoException).code === 'EOF') return '';
    throw error;
  }
}

export function main(argv: readonly string[]): number {
  const [first] = argv;
  if (first === '--help' || first === '-h' || first === 'help') {
    writeAll(1, USAGE);
    return 0;
  }
  if (first === '--version' || first === '-v') {
    writeAll(1, `${VERSION}\n`);
    return 0;
  }
  if (first !== undefined) {
    writeAll(2, `package-variant: unknown argument "${first}"\n\n${USAGE}`);
    return 2;
  }
  const { output, exitCode } = runKrmFunction(readStdin(), packageVariantFunction);
  writeAll(1, output);
  return exitCode;
}

process.exitCode = main(process.argv.slice(2));
