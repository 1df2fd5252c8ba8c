/** Package trees for tests, written as path -> text (or bytes); `mode` marks executables. */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PackageTree, type TreeFile } from '../../src/package/tree';

export type Files = Record<string, string | Buffer | { content: string | Buffer; mode: number }>;

export function tree(files: Files, extraDirs: string[] = []): PackageTree {
  const map = new Map<string, TreeFile>();
  for (const [path, value] of Object.entries(files)) {
    const entry = typeof value === 'string' || Buffer.isBuffer(value) ? { content: value, mode: 0o644 } : value;
    map.set(path, { bytes: Buffer.isBuffer(entry.content) ? entry.content : Buffer.from(entry.content, 'utf8'), mode: entry.mode });
  }
  const base = new PackageTree(map);
  return extraDirs.length ? new PackageTree(map, new Set([...base.dirs, ...extraDirs])) : base;
}

export function writeFiles(root: string, files: Files): void {
  for (const [path, value] of Object.entries(files)) {
    const entry = typeof value === 'string' || Buffer.isBuffer(value) ? { content: value, mode: 0o644 } : value;
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), entry.content);
    chmodSync(join(root, path), entry.mode);
  }
}

export const kptfile = (name: string, extra = '') => `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n${extra}`;
export const configMap = (name: string, data: Record<string, string>) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n${Object.entries(data)
    .map(([k, v]) => `  ${k}: ${JSON.stringify(v)}\n`)
    .join('')}`;

export const text = (t: PackageTree | undefined, path: string) => t?.files.get(path)?.bytes.toString('utf8');

/** origin/, local/ and upstream/ in a new directory: a Kptfile and a ConfigMap whose value upstream changes from 1 to 2. */
export function oneChangeUpdate(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const base = { Kptfile: kptfile('pkg'), 'cm.yaml': configMap('cm', { v: '1' }) };
  writeFiles(join(dir, 'origin'), base);
  writeFiles(join(dir, 'local'), base);
  writeFiles(join(dir, 'upstream'), { ...base, 'cm.yaml': configMap('cm', { v: '2' }) });
  return dir;
}
