/**
 * The refs of a cache entry below a prefix, read from its files as git's files backend keeps them
 * (a loose ref a file holding its object's name, the others in `packed-refs`, a loose one over a
 * packed one): what `git for-each-ref` would list, without a process. An entry is configured by this
 * program (cache-entry.ts: repository format 0, so no other ref backend), but what sits in it is
 * not trusted: a name git would not take for a ref, a file that holds no object name, anything but
 * a file, is passed over as git passes over a broken ref.
 */
import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { isObjectName } from './object-reader';

/** git's rules for a ref's name (check-ref-format), for names read from files. */
export function isRefName(name: string): boolean {
  if (name.endsWith('/') || name.endsWith('.') || name.includes('..') || name.includes('@{') || name === '@') return false;
  // Controls, space and ~ ^ : ? * [ \ are never part of a name.
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name)) return false;
  return name.split('/').every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'));
}

/** The loose refs below `dir` (the ref `prefix`), by name, as bytes: a name is only decoded once it is known whole. */
function looseRefs(dir: Buffer, prefix: Buffer, into: Map<string, { bytes: Buffer; object: string }>): void {
  let children: Dirent[];
  try {
    children = readdirSync(dir, { withFileTypes: true, encoding: 'buffer' }) as unknown as Dirent[];
  } catch {
    return;
  }
  for (const child of children) {
    const name = child.name as unknown as Buffer;
    const path = Buffer.concat([dir, Buffer.from('/'), name]);
    const ref = Buffer.concat([prefix, name]);
    if (child.isDirectory()) looseRefs(path, Buffer.concat([ref, Buffer.from('/')]), into);
    else if (child.isFile()) {
      let text: string;
      try {
        text = readFileSync(path, 'latin1').trim();
      } catch {
        // Gone since it was listed: deleted, or packed (then packed-refs, read after, has it).
        continue;
      }
      if (isObjectName(text)) into.set(ref.toString('latin1'), { bytes: ref, object: text });
    }
  }
}

/** Refs whose names begin with `prefix` (`refs/…/`), by name, sorted as git sorts them (by their bytes). */
export function readRefs(gitDir: string, prefix: string): Map<string, string> {
  const found = new Map<string, { bytes: Buffer; object: string }>();
  looseRefs(Buffer.from(join(gitDir, prefix)), Buffer.from(prefix), found);
  let packed = '';
  try {
    packed = readFileSync(join(gitDir, 'packed-refs'), 'latin1');
  } catch {
    // None packed.
  }
  for (const line of packed.split('\n')) {
    const space = line.indexOf(' ');
    const object = line.slice(0, space);
    const name = line.slice(space + 1);
    if (!isObjectName(object) || !name.startsWith(prefix) || found.has(name)) continue;
    found.set(name, { bytes: Buffer.from(name, 'latin1'), object });
  }
  const refs = new Map<string, string>();
  for (const { bytes, object } of [...found.values()].sort((a, b) => Buffer.compare(a.bytes, b.bytes))) {
    const name = bytes.toString('utf8');
    if (isRefName(name)) refs.set(name, object);
  }
  return refs;
}
