/** Reads a package directory into a PackageTree: every file byte for byte with its mode; `.git` skipped. */
import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { joinPath, ROOT } from './scopes';
import { PackageTree, type TreeFile } from './tree';

export class PackageReadError extends Error {}

export function readDiskTree(root: string): PackageTree {
  let isDir = false;
  try {
    isDir = statSync(root).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new PackageReadError(`${root} is not a directory`);
  const files = new Map<string, TreeFile>();
  const dirs = new Set<string>();
  const links = new Set<string>();
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(root, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = joinPath(rel, entry.name);
      if (entry.isSymbolicLink()) links.add(path);
      else if (entry.isDirectory()) {
        if (entry.name === '.git') continue;
        dirs.add(path);
        walk(path);
      } else if (entry.isFile()) {
        const full = join(root, path);
        files.set(path, { bytes: readFileSync(full), mode: lstatSync(full).mode & 0o7777 });
      }
    }
  };
  walk(ROOT);
  return new PackageTree(files, dirs, links);
}
