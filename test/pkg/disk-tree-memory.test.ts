/**
 * Reading a package allocates little (issue 29): the files of a few kilobytes that packages are made
 * of share blocks of memory, as an allocation per file (and the collector's work on each) cost more
 * than reading them. Each file still holds exactly its own bytes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDiskTree } from '../../src/disk/disk-tree';
import { writeFiles } from './trees';

describe('the files of a package read from disk', () => {
  const root = mkdtempSync(join(tmpdir(), 'disk-tree-memory-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  // Over 4 KB each: Node's own pool of small buffers does not take them.
  const files = { 'a.yaml': `a: ${'x'.repeat(5000)}\n`, 'b.yaml': `b: ${'y'.repeat(6000)}\n`, 'big.yaml': `c: ${'z'.repeat(100_000)}\n`, 'empty.yaml': '' };
  writeFiles(root, files);
  const read = readDiskTree(root);

  it('shares one block among small files', () => {
    expect(read.files.get('a.yaml')!.bytes.buffer).toBe(read.files.get('b.yaml')!.bytes.buffer);
  });

  it('gives each file exactly its bytes, a large one its own memory', () => {
    for (const [path, text] of Object.entries(files)) expect(read.files.get(path)!.bytes.toString('utf8')).toBe(text);
    expect(read.files.get('big.yaml')!.bytes.buffer).not.toBe(read.files.get('a.yaml')!.bytes.buffer);
  });
});
