/**
 * What a command prints. A write that fails (a full disk, a closed pipe) is remembered, never
 * thrown: the command goes on or is already done, and its exit code says what became of its work.
 */
import { inertLine } from '../package/path-text';
import { writeAll } from './stdio';

export class Report {
  constructor(private readonly command: string) {}

  /** The streams that could not be written, and why. */
  readonly failed = new Map<1 | 2, string>();

  private write(fd: 1 | 2, text: string): void {
    if (this.failed.has(fd)) return;
    try {
      writeAll(fd, text);
    } catch (error) {
      this.failed.set(fd, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
    }
  }

  /** One line, made inert: a control character in a name it quotes cannot forge a line or drive the terminal. */
  line(fd: 1 | 2, text: string): void {
    this.write(fd, `${inertLine(text)}\n`);
  }

  /** Text that is already safe (a diff, whose names are quoted as git quotes them). */
  text(fd: 1 | 2, text: string): void {
    this.write(fd, text);
  }

  /** A message on stderr, each of its lines prefixed and made inert. */
  say = (message: string): void => {
    for (const line of message.split('\n')) this.line(2, `${this.command}: ${line}`);
  };
}

