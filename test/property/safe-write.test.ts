/**
 * The safe writer (src/disk/plan-writer.ts) under failure: for random plans over random packages,
 * any one file operation made to fail, two of them, or the process "killed" at any operation (every
 * later operation refused), the package is either as it was or fully updated, the error says which,
 * and what a killed or half-undone run leaves is put back by the next run (recovery.ts). Seeds are
 * fixed: CI is deterministic.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { readDiskTree } from '../../src/disk/disk-tree';
import { planUpdate } from '../../src/disk/plan';
import { executePlan, WriteError } from '../../src/disk/plan-writer';
import { diskOps, type FileOps } from '../../src/disk/safe-write/file-ops';
import { recoverInterrupted } from '../../src/disk/safe-write/recovery';
import { isReservedName } from '../../src/krm/package-paths';
import { COMMITTED_FILE } from '../../src/disk/safe-write/reserved';
import { PackageTree, type TreeFile } from '../../src/package/tree';

type Files = Map<string, TreeFile>;

interface Snapshot {
  readonly files: Files;
  readonly dirs: Set<string>;
  /** The writer's own files left behind. */
  readonly reserved: string[];
}

function snapshot(root: string): Snapshot {
  const files: Files = new Map();
  const dirs = new Set<string>();
  const reserved: string[] = [];
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      const stat = lstatSync(join(root, path));
      if (isReservedName(name)) reserved.push(path);
      else if (stat.isDirectory()) {
        dirs.add(path);
        walk(path);
      } else files.set(path, { bytes: readFileSync(join(root, path)), mode: stat.mode & 0o777 });
    }
  };
  walk('');
  return { files, dirs, reserved };
}

const same = (a: TreeFile | undefined, b: TreeFile | undefined) => (!a || !b ? a === b : a.bytes.equals(b.bytes) && a.mode === b.mode);

function sameFiles(a: Files, b: ReadonlyMap<string, TreeFile>): boolean {
  return a.size === b.size && [...a].every(([path, file]) => same(file, b.get(path)));
}

/** An operation that fails like the disk would, or a process that is gone. */
class InjectedFailure extends Error {
  readonly code = 'EIO';
  readonly syscall = 'injected';
}
class Killed extends Error {}

class FaultyOps implements FileOps {
  count = 0;
  killed = false;

  constructor(
    private readonly failAt: ReadonlySet<number>,
    private readonly killAt = -1,
    private readonly noHardLinks = false,
  ) {}

  private run<T>(operation: () => T): T {
    const n = this.count;
    this.count += 1;
    if (this.killed || n === this.killAt) {
      this.killed = true;
      throw new Killed('killed');
    }
    if (this.failAt.has(n)) throw new InjectedFailure(`EIO: i/o error, injected`);
    return operation();
  }

  kind = (path: string) => this.run(() => diskOps.kind(path));
  mkdir = (path: string) => this.run(() => diskOps.mkdir(path));
  rmdir = (path: string) => this.run(() => diskOps.rmdir(path));
  create = (path: string, bytes: Uint8Array, mode: number) => this.run(() => diskOps.create(path, bytes, mode));
  // A flush changes nothing a running system sees; counted (it can fail) but not done, which keeps the test fast.
  sync = () => this.run(() => undefined);
  link = (existing: string, path: string) =>
    this.run(() => {
      if (this.noHardLinks) throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM', syscall: 'link' });
      diskOps.link(existing, path);
    });
  copy = (existing: string, path: string) => this.run(() => diskOps.copy(existing, path));
  rename = (from: string, to: string) => this.run(() => diskOps.rename(from, to));
  unlink = (path: string) => this.run(() => diskOps.unlink(path));
  read = (path: string) => this.run(() => diskOps.read(path));
  sameFile = (a: string, b: string) => this.run(() => diskOps.sameFile(a, b));
}

// ---------------------------------------------------------------------------------------------
// Packages and updates
// ---------------------------------------------------------------------------------------------

const DIRS = ['', 'a', 'a/b', 'c', 'new', 'new/deep'];
const NAMES = ['Kptfile', 'x.yaml', 'y.yaml', 'README.md', 'run.sh'];
const SLOTS = DIRS.flatMap((d) => NAMES.map((n) => (d ? `${d}/${n}` : n)));

const content = fc.oneof(fc.constantFrom('', 'a\n', 'kind: ConfigMap\n'), fc.string({ maxLength: 40 }));
const mode = fc.constantFrom(0o644, 0o755, 0o600);

interface Case {
  readonly before: Map<string, { text: string; mode: number }>;
  readonly after: Map<string, { text: string; mode: number }>;
}

const aCase: fc.Arbitrary<Case> = fc
  .record({
    present: fc.subarray(SLOTS.filter((s) => !s.startsWith('new')), { minLength: 1 }),
    // A file named like a directory upstream brings: the update needs a directory where a file is.
    fileWhereDir: fc.boolean(),
    edits: fc.array(fc.record({ slot: fc.constantFrom(...SLOTS), action: fc.constantFrom('change', 'mode', 'remove', 'add'), text: content, mode }), { maxLength: 12 }),
    texts: fc.array(content, { minLength: SLOTS.length, maxLength: SLOTS.length }),
    modes: fc.array(mode, { minLength: SLOTS.length, maxLength: SLOTS.length }),
  })
  .map(({ present, fileWhereDir, edits, texts, modes }) => {
    const before = new Map<string, { text: string; mode: number }>([['Kptfile', { text: 'kind: Kptfile\n', mode: 0o644 }]]);
    for (const slot of present) before.set(slot, { text: texts[SLOTS.indexOf(slot)]!, mode: modes[SLOTS.indexOf(slot)]! });
    if (fileWhereDir) {
      for (const slot of [...before.keys()]) if (slot.startsWith('c/')) before.delete(slot);
      before.set('c', { text: 'a file\n', mode: 0o644 });
    }
    const after = new Map(before);
    for (const { slot, action, text, mode: m } of edits) {
      const old = after.get(slot);
      if (action === 'remove') after.delete(slot);
      else if (action === 'mode' && old) after.set(slot, { text: old.text, mode: m });
      else if (action === 'change' && old) after.set(slot, { text: `${old.text}${text}!`, mode: old.mode });
      else if (action === 'add') after.set(slot, { text, mode: m });
    }
    // The root Kptfile changes with every update, as the recorded version does.
    after.set('Kptfile', { text: 'kind: Kptfile\nupstream: v2\n', mode: 0o644 });
    if ([...after.keys()].some((p) => p.startsWith('c/'))) after.delete('c');
    return { before, after };
  });

const asFiles = (files: Map<string, { text: string; mode: number }>): Files => new Map([...files].map(([p, f]) => [p, { bytes: Buffer.from(f.text), mode: f.mode }]));

let scratch: string;
beforeAll(() => {
  // Thousands of small packages: a memory file system where there is one keeps the test quick.
  scratch = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'pv-safe-write-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let counter = 0;
function setUp(c: Case): { root: string; before: PackageTree; after: PackageTree } {
  counter += 1;
  const root = join(scratch, String(counter));
  for (const [path, file] of c.before) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), file.text);
    chmodSync(join(root, path), file.mode);
  }
  const before = readDiskTree(root);
  return { root, before, after: new PackageTree(asFiles(c.after)) };
}

/** How many operations the writer performs on this case when nothing fails. */
function operationCount(c: Case): number {
  const { root, before, after } = setUp(c);
  const counting = new FaultyOps(new Set());
  try {
    executePlan(planUpdate(root, before, after), counting);
  } catch (error) {
    if (!(error instanceof WriteError)) throw error;
  }
  return counting.count;
}

/** Runs the writer on a fresh copy of the case's package with these operations. */
function attempt(c: Case, ops: FileOps): { root: string; before: PackageTree; after: PackageTree; error?: WriteError } {
  const { root, before, after } = setUp(c);
  try {
    executePlan(planUpdate(root, before, after), ops);
    return { root, before, after };
  } catch (error) {
    if (error instanceof WriteError || error instanceof Killed) return { root, before, after, ...(error instanceof WriteError ? { error } : {}) };
    throw error;
  }
}

describe('the safe writer, with failures injected at every file operation', () => {
  it('one failing operation, at each operation in turn: the package is as it was (and the message says so) or fully updated', () => {
    fc.assert(
      fc.property(aCase, fc.boolean(), (c, noHardLinks) => {
        const total = operationCount(c);
        for (let failAt = 0; failAt <= total; failAt += 1) {
          const { root, before, after, error } = attempt(c, new FaultyOps(new Set([failAt]), -1, noHardLinks));
          const now = snapshot(root);
          if (error === undefined) {
            expect(sameFiles(now.files, after.files)).toBe(true);
          } else {
            expect(error.state).toBe('unchanged');
            expect(error.message).toMatch(/(Nothing was written|was put back|were put back): the package is as it was\.$/);
            expect(sameFiles(now.files, before.files)).toBe(true);
            expect([...now.dirs].sort()).toEqual([...before.dirs].sort());
            expect(now.reserved).toEqual([]);
          }
          // A failure while removing what a complete update kept aside leaves it to the next run.
          recoverInterrupted(diskOps, root);
          const recovered = snapshot(root);
          expect(recovered.reserved).toEqual([]);
          expect(sameFiles(recovered.files, error === undefined ? after.files : before.files)).toBe(true);
        }
      }),
      { seed: 1301, numRuns: 40 },
    );
  });

  it('two failing operations (the second may hit the undo): what the message says holds, and the next run restores the package', () => {
    fc.assert(
      fc.property(aCase, fc.array(fc.nat(60), { minLength: 8, maxLength: 8 }), (c, gaps) => {
        const total = operationCount(c);
        for (let first = 0; first <= total; first += 1) {
          const second = first + 1 + gaps[first % gaps.length]!;
          const { root, before, after, error } = attempt(c, new FaultyOps(new Set([first, second])));
          const now = snapshot(root);
          if (!error) expect(sameFiles(now.files, after.files)).toBe(true);
          else if (error.state === 'unchanged') expect(sameFiles(now.files, before.files)).toBe(true);
          else expect(error.message).toMatch(/the package is partly updated\. \.package-variant\.journal records the update/);
          recoverInterrupted(diskOps, root);
          const recovered = snapshot(root);
          expect(recovered.reserved).toEqual([]);
          expect(sameFiles(recovered.files, error ? before.files : after.files)).toBe(true);
        }
      }),
      { seed: 1302, numRuns: 30 },
    );
  });

  it('killed at each operation in turn: every file is old or new, never anything else, and the next run puts the package back (or finishes it)', () => {
    fc.assert(
      fc.property(aCase, (c) => {
        const total = operationCount(c);
        for (let killAt = 0; killAt < total; killAt += 1) {
          const { root, before, after } = attempt(c, new FaultyOps(new Set(), killAt));
          const now = snapshot(root);
          for (const [path, file] of now.files) expect(same(file, before.files.get(path)) || same(file, after.files.get(path))).toBe(true);
          for (const path of [...before.files.keys()].filter((p) => after.files.has(p))) expect(now.files.has(path)).toBe(true);
          const complete = now.reserved.includes(COMMITTED_FILE);
          recoverInterrupted(diskOps, root);
          const recovered = snapshot(root);
          expect(recovered.reserved).toEqual([]);
          expect(sameFiles(recovered.files, complete ? after.files : before.files)).toBe(true);
        }
      }),
      { seed: 1303, numRuns: 40 },
    );
  });
});
