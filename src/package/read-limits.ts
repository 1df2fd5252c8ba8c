/**
 * What `update` reads, bounded so that a huge file is an error naming it, not a process killed for
 * its memory. In one version of a package: the resource files (Kptfile, `*.yaml`, `*.yml`: parsed)
 * up to 64 MiB together, the most the function reads from stdin (src/cli/stdio.ts), so that a package update can merge is
 * one `kpt fn render` can run; any other file up to 256 MiB (compared and copied as bytes); all
 * files up to 1 GiB. Ignored files (`.krmignore`) are not read, so not counted.
 */
import { isKrmFileName } from './krm-files';

const MiB = 1024 * 1024;

export const MAX_RESOURCE_BYTES = 64 * MiB;
export const MAX_FILE_BYTES = 256 * MiB;
export const MAX_PACKAGE_BYTES = 1024 * MiB;

const size = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

/** The bytes one version of a package may still read; `fail` makes the error for a path and what is wrong with it. */
export class ReadBudget {
  private resources = 0;
  private total = 0;

  constructor(private readonly fail: (path: string, problem: string) => Error) {}

  spend(path: string, bytes: number): void {
    if (isKrmFileName(path)) {
      this.resources += bytes;
      if (this.resources > MAX_RESOURCE_BYTES) {
        const what = this.resources === bytes ? `is ${size(bytes)}` : `takes the resource files past ${size(MAX_RESOURCE_BYTES)}`;
        throw this.fail(path, `${what}: update reads up to ${size(MAX_RESOURCE_BYTES)} of resource files (Kptfile, *.yaml, *.yml) in a package, the most the function takes`);
      }
    } else if (bytes > MAX_FILE_BYTES) {
      throw this.fail(path, `is ${size(bytes)}: update reads a file of up to ${size(MAX_FILE_BYTES)}`);
    }
    this.total += bytes;
    if (this.total > MAX_PACKAGE_BYTES) throw this.fail(path, `takes the package past ${size(MAX_PACKAGE_BYTES)}, the most update reads of one version`);
  }
}
