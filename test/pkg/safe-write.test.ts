/**
 * The safe writer on the probes: a full disk, a file that cannot be replaced, a file where
 * a directory is needed, a directory turned into a symbolic link since the package was read; the
 * order of the renames (Kptfiles last); and what the next run does with what a dead run left.
 * Random failures at every operation are test/property/safe-write.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDiskTree } from '../../src/disk/disk-tree';
import { planUpdate, type UpdatePlan } from '../../src/disk/plan';
import { executePlan, WriteError } from '../../src/disk/plan-writer';
import { diskOps, type FileOps } from '../../src/disk/safe-write/file-ops';
import { RecoveryError } from '../../src/disk/safe-write/recovery';
import { writeJournal } from '../../src/disk/safe-write/journal';
import { sealOf } from '../../src/disk/safe-write/journal-seal';
import { packageInode } from '../../src/disk/safe-write/package-identity';
import { COMMITTED_FILE, JOURNAL_FILE } from '../../src/disk/safe-write/reserved';
import { PackageTree, type TreeFile } from '../../src/package/tree';
import { updateFromDirectories } from '../../src/update/update';
import { REPO_ROOT } from '../helpers';
import { configMap, kptfile, writeFiles, type Files } from './trees';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'pv-safe-write-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const BEFORE: Files = {
  Kptfile: kptfile('pkg'),
  'a.yaml': configMap('a', { v: '1' }),
  'b.yaml': configMap('b', { v: '1' }),
  'gone.md': 'gone\n',
  'sub/Kptfile': kptfile('sub'),
};
const AFTER: Files = {
  Kptfile: kptfile('pkg', 'info:\n  description: v2\n'),
  'a.yaml': configMap('a', { v: '2' }),
  'b.yaml': configMap('b', { v: '2' }),
  'new/c.yaml': configMap('c', {}),
  'sub/Kptfile': kptfile('sub', 'info:\n  description: v2\n'),
};

const asTree = (files: Files) => new PackageTree(new Map(Object.entries(files).map(([p, c]) => [p, { bytes: Buffer.from(c as string), mode: 0o644 } as TreeFile])));

function planned(): UpdatePlan {
  writeFiles(dir, BEFORE);
  return planUpdate(dir, readDiskTree(dir), asTree(AFTER));
}

/** The package's files now, as text; the writer's own files apart. */
function contents(): Files {
  const tree = readDiskTree(dir);
  return Object.fromEntries([...tree.files].map(([p, f]) => [p, f.bytes.toString('utf8')]));
}

const systemError = (code: string, syscall: string, text: string) => Object.assign(new Error(`${code}: ${text}, ${syscall} '/somewhere'`), { code, syscall });

/** Disk operations, one of which fails: `fails` says which (operation name and path) and how. */
function failing(fails: (operation: string, path: string) => Error | undefined, log: string[] = []): FileOps {
  const wrap =
    <A extends unknown[], R>(name: string, operation: (...args: A) => R) =>
    (...args: A): R => {
      const path = String(args[args.length === 3 ? 0 : args.length - 1]).slice(dir.length + 1);
      log.push(`${name} ${path}`);
      const error = fails(name, path);
      if (error) throw error;
      return operation(...args);
    };
  return {
    kind: wrap('kind', diskOps.kind),
    mkdir: wrap('mkdir', diskOps.mkdir),
    rmdir: wrap('rmdir', diskOps.rmdir),
    create: wrap('create', diskOps.create),
    sync: wrap('sync', diskOps.sync),
    link: wrap('link', diskOps.link),
    copy: wrap('copy', diskOps.copy),
    rename: wrap('rename', diskOps.rename),
    unlink: wrap('unlink', diskOps.unlink),
    read: wrap('read', diskOps.read),
    sameFile: wrap('sameFile', diskOps.sameFile),
  };
}

describe('the safe writer', () => {
  it('writes the plan whole, leaves none of its own files, and renames the Kptfiles last, the root one at the very end', () => {
    const plan = planned();
    const log: string[] = [];
    executePlan(plan, failing(() => undefined, log));
    expect(contents()).toEqual(AFTER);
    expect(readdirSync(dir).sort()).toEqual(['Kptfile', 'a.yaml', 'b.yaml', 'new', 'sub']);
    const renames = log.filter((l) => l.startsWith('rename ') && !l.includes(JOURNAL_FILE) && !l.includes(COMMITTED_FILE));
    expect(renames.map((l) => l.replace(/\.package-variant-[0-9a-f]+\/\d+\.(new|old)/, '(staged)'))).toEqual([
      'rename a.yaml',
      'rename b.yaml',
      'rename new/c.yaml',
      'rename (staged)',
      'rename sub/Kptfile',
      'rename Kptfile',
    ]);
  });

  it('stages in its own directory at the root, except beside a file on another file system: a rename never crosses one', () => {
    const plan = planned();
    const log: string[] = [];
    // Another file system mounted at `sub`; `new`, which the update creates, lies on the root's.
    const ops: FileOps = { ...failing(() => undefined, log), device: (path) => (path === join(dir, 'sub') ? 2n : 1n) };
    executePlan(plan, ops);
    expect(contents()).toEqual(AFTER);
    expect(readdirSync(dir).sort()).toEqual(['Kptfile', 'a.yaml', 'b.yaml', 'new', 'sub']);
    const created = log.filter((l) => l.startsWith('create ') && !l.includes('journal')).map((l) => l.replace(/[0-9a-f]{8}/, 'RUN'));
    expect(created).toEqual([
      'create .package-variant-RUN/0.new',
      'create .package-variant-RUN/1.new',
      'create .package-variant-RUN/2.new',
      'create sub/.package-variant-RUN-4.new',
      'create .package-variant-RUN/5.new',
    ]);
    const kept = log.filter((l) => l.startsWith('link ')).map((l) => l.replace(/[0-9a-f]{8}/, 'RUN'));
    expect(kept).toEqual(['link .package-variant-RUN/0.old', 'link .package-variant-RUN/1.old', 'link sub/.package-variant-RUN-4.old', 'link .package-variant-RUN/5.old']);
  });

  it('a full disk while writing the last file: nothing was written, the Kptfile still records the old version', () => {
    const plan = planned();
    const ops = failing((op, path) => (op === 'create' && path.endsWith('/5.new') ? systemError('ENOSPC', 'open', 'no space left on device') : undefined));
    expect(() => executePlan(plan, ops)).toThrow(new WriteError('could not write Kptfile: ENOSPC: no space left on device.\nNothing was written: the package is as it was.', 'unchanged'));
    expect(contents()).toEqual(BEFORE);
    expect(readdirSync(dir).sort()).toEqual(['Kptfile', 'a.yaml', 'b.yaml', 'gone.md', 'sub']);
  });

  it('a file that cannot be replaced (read-only): the ones already replaced are put back', () => {
    const plan = planned();
    const ops = failing((op, path) => (op === 'rename' && path === 'b.yaml' ? systemError('EACCES', 'rename', 'permission denied') : undefined));
    // (Putting back b.yaml, never replaced, is no rename: the kept name is only removed.)
    expect(() => executePlan(plan, ops)).toThrow(new WriteError('could not replace b.yaml: EACCES: permission denied.\nThe file already replaced was put back: the package is as it was.', 'unchanged'));
    expect(contents()).toEqual(BEFORE);
    expect(readdirSync(dir).sort()).toEqual(['Kptfile', 'a.yaml', 'b.yaml', 'gone.md', 'sub']);
  });

  it('when putting back fails too, it says the package is partly updated, and the next run puts it back', () => {
    const plan = planned();
    const renames = new Map<string, number>();
    // b.yaml cannot be replaced, and then a.yaml, already replaced, cannot be put back.
    const ops = failing((op, path) => {
      if (op !== 'rename') return undefined;
      renames.set(path, (renames.get(path) ?? 0) + 1);
      return (path === 'b.yaml' && renames.get(path) === 1) || (path === 'a.yaml' && renames.get(path) === 2) ? systemError('EIO', 'rename', 'i/o error') : undefined;
    });
    let error: WriteError | undefined;
    try {
      executePlan(plan, ops);
    } catch (e) {
      error = e as WriteError;
    }
    expect(error?.state).toBe('partial');
    // The run's staging directory still holds a.yaml's old content, so it stays too.
    expect(error?.message).toMatch(
      /^could not replace b\.yaml: EIO: i\/o error\.\nPutting the package back failed too \(putting back a\.yaml: EIO: i\/o error; removing the directory \.package-variant-[0-9a-f]+, which the update created: Error: ENOTEMPTY: [^)]*\): the package is partly updated\./,
    );
    expect(existsSync(join(dir, JOURNAL_FILE))).toBe(true);
    const notices: string[] = [];
    writeFiles(`${dir}-origin`, BEFORE);
    const outcome = updateFromDirectories({ local: dir, origin: `${dir}-origin`, upstream: `${dir}-origin`, notify: (n) => notices.push(n) });
    rmSync(`${dir}-origin`, { recursive: true, force: true });
    expect(outcome.plan?.writes).toEqual([]);
    expect(notices).toEqual([expect.stringMatching(/^an earlier update of .* \(pid \d+ on .*\) was interrupted; the package is put back as it was before it \(1 file restored, 0 new files removed\)$/)]);
    expect(contents()).toEqual(BEFORE);
  });

  it('a directory that became a symbolic link since the package was read is not written through', () => {
    const plan = planned();
    renameSync(join(dir, 'sub'), join(dir, 'real-sub'));
    symlinkSync('real-sub', join(dir, 'sub'));
    expect(() => executePlan(plan)).toThrow(/^sub is a symbolic link, and the update never writes through one\.\nNothing was written: the package is as it was\.$/);
    expect(readFileSync(join(dir, 'real-sub', 'Kptfile'), 'utf8')).toBe(kptfile('sub'));
  });

  it("will not write over an earlier update's journal, but does over one that came with the package's content", () => {
    const plan = planned();
    writeJournal(diskOps, dir, { version: 2, package: packageInode(dir), run: 'r', pid: 1, host: 'h', started: 's', createDirs: [], removeDirs: [], entries: [] });
    expect(() => executePlan(plan)).toThrow(/\.package-variant\.journal holds an earlier update that was interrupted/);
    expect(contents()).toEqual(BEFORE);
    writeFileSync(join(dir, JOURNAL_FILE), '{}');
    executePlan(plan);
    expect(contents()).toEqual(AFTER);
    expect(existsSync(join(dir, JOURNAL_FILE))).toBe(false);
  });
});

describe('what the next run does with what a dead run left', () => {
  it('a journal of its own it cannot read stops the update with what to do', () => {
    writeFiles(dir, BEFORE);
    const body = { version: 3, package: packageInode(dir) };
    writeFileSync(join(dir, JOURNAL_FILE), JSON.stringify({ ...body, seal: sealOf(JSON.stringify(body)) }));
    expect(() => updateFromDirectories({ local: dir, origin: dir, upstream: dir })).toThrow(RecoveryError);
    expect(() => updateFromDirectories({ local: dir, origin: dir, upstream: dir })).toThrow(
      /is not a journal this version of package-variant wrote\. .*restore the package \(git checkout and git clean, for instance\), then remove .*\.package-variant\.journal$/,
    );
  });

  it('a journal that is not its own (unsealed, unreadable, or sealed for another directory) is ignored with a notice, never replayed', () => {
    writeFiles(dir, BEFORE);
    const other = mkdtempSync(join(tmpdir(), 'pv-other-'));
    const forOther = { version: 2, package: packageInode(other), run: 'r', pid: 1, host: 'h', started: 's', createDirs: [], removeDirs: [], entries: [{ path: 'a.yaml', op: 'write' }] };
    rmSync(other, { recursive: true, force: true });
    for (const text of ['{"version": 2, "entr', JSON.stringify({ ...forOther, package: packageInode(dir) }), JSON.stringify({ ...forOther, seal: sealOf(JSON.stringify(forOther)) })]) {
      writeFileSync(join(dir, JOURNAL_FILE), text);
      const notices: string[] = [];
      updateFromDirectories({ local: dir, origin: dir, upstream: dir, notify: (n) => notices.push(n) });
      expect(notices).toEqual([expect.stringMatching(/^ignored .*\.package-variant\.journal: .*, so it came with the package's content and is never replayed/)]);
      expect(contents()).toEqual(BEFORE);
    }
  });

  it('an update complete but for its old contents is finished', () => {
    const plan = planned();
    let finishing = false;
    const ops = failing((op, path) => {
      if (op === 'rename' && path === COMMITTED_FILE) finishing = true;
      return finishing && op === 'unlink' ? systemError('EIO', 'unlink', 'i/o error') : undefined;
    });
    expect(executePlan(plan, ops).warnings).toEqual(expect.arrayContaining(['removing the old a.yaml: EIO: i/o error']));
    expect(contents()).toEqual(AFTER);
    const notices: string[] = [];
    updateFromDirectories({ local: dir, origin: dir, upstream: dir, notify: (n) => notices.push(n) });
    expect(notices).toEqual([expect.stringMatching(/was interrupted once complete; the old contents it kept are removed$/)]);
    expect(readdirSync(dir).sort()).toEqual(['Kptfile', 'a.yaml', 'b.yaml', 'new', 'sub']);
  });
});

describe('the command line says in which state it left the package', () => {
  it('a file where upstream needs a directory: exit 1, the reason, and that nothing was written', () => {
    const local = join(dir, 'local');
    writeFiles(local, { ...BEFORE, docs: 'a file\n' });
    writeFiles(join(dir, 'origin'), { ...BEFORE, docs: 'a file\n' });
    writeFiles(join(dir, 'upstream'), { ...AFTER, 'docs/guide.md': 'guide\n' });
    const run = spawnSync(process.execPath, [join(REPO_ROOT, 'dist/main.js'), 'update', local, '--origin', join(dir, 'origin'), '--upstream', join(dir, 'upstream')], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toBe(
      'package-variant update: docs is a file where the update needs a directory (upstream made it one): move the file away and update again.\npackage-variant update: Nothing was written: the package is as it was.\n',
    );
    expect(readFileSync(join(local, 'docs'), 'utf8')).toBe('a file\n');
    expect(readFileSync(join(local, 'Kptfile'), 'utf8')).toBe(kptfile('pkg'));
  });
});
