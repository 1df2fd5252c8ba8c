/** How a wrong command line is answered, for every command. */
import { writeAll } from './stdio';

/** A short error and where help is, as git and kpt answer a wrong command line. */
export function usageError(message: string, command = ''): number {
  writeAll(2, `package-variant${command && ` ${command}`}: ${message}\nRun 'package-variant${command && ` ${command}`} --help' for usage.\n`);
  return 2;
}

export const isHelp = (arg: string) => arg === '--help' || arg === '-h';
