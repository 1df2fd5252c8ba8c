/**
 * Which package directory a lock or journal was made for: its inode, which a copy of the package
 * (kpt pkg get, git clone, cp) does not share, and which survives a reboot and a move of the
 * directory. A lock or journal that names another is not this package's: it came with content.
 */
import { statSync } from 'node:fs';

export function packageInode(dir: string): string {
  return statSync(dir, { bigint: true }).ino.toString();
}
