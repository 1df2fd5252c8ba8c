/**
 * Issue 18, item 10: what the command prints when it cannot print, and the mode of a file upstream
 * moves. stdout or stderr on a full disk ends with a message (where stderr can take one), never a
 * stack trace, and the exit code says whether the package changed; a file that local made 0600
 * keeps 0600 when upstream moves its resources.
 */
import { spawn } from 'node:child_process';
import { chmodSync, closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { configMap } from '../pkg/trees';
import { MAIN, sandboxPerTest, writeTextFiles, V1, V2 } from './hostile-repos';
import { describeUnless } from '../skip-notice';

jest.setTimeout(60_000);

const box = sandboxPerTest();

const origin = () => join(box().root, 'origin');
const upstream = () => join(box().root, 'upstream');

/** The command with stdout, stderr or both on /dev/full; its exit code and what reached the streams not redirected. */
function onFullDisk(args: string[], full: 'stdout' | 'stderr'): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const fd = openSync('/dev/full', 'w');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: box().env, stdio: ['ignore', full === 'stdout' ? fd : 'pipe', full === 'stderr' ? fd : 'pipe'] });
    closeSync(fd);
    let stderr = '';
    let stdout = '';
    child.stderr?.on('data', (d) => (stderr += d));
    child.stdout?.on('data', (d) => (stdout += d));
    child.on('close', (code) => resolve({ code, stderr, stdout }));
  });
}

const describeIf = describeUnless(existsSync('/dev/full') ? undefined : 'this machine has no /dev/full', 'stdout and stderr on a full disk (test/hostile/output-and-modes.test.ts)');

describeIf('issue 18 item 10: stdout and stderr on a full disk', () => {
  beforeEach(() => {
    writeTextFiles(origin(), V1);
    writeTextFiles(upstream(), V2);
    writeTextFiles(box().pkg, V1);
  });
  const update = (...extra: string[]) => ['update', box().pkg, '--origin', origin(), '--upstream', upstream(), ...extra];

  it('stdout: the package is updated, stderr says the report is incomplete, exit 3; no stack trace', async () => {
    const run = await onFullDisk(update(), 'stdout');
    expect(run).toEqual({
      code: 3,
      stdout: '',
      stderr: 'package-variant update: 0 files added, 1 changed, 0 removed\npackage-variant update: could not write to stdout (ENOSPC): the report is incomplete; the package was updated\n',
    });
    expect(readFileSync(join(box().pkg, 'cm.yaml'), 'utf8')).toBe(V2['cm.yaml']);
  });

  it('stderr: the exit code alone says what became of the package: 3 updated, 1 not', async () => {
    // A lock that came with the content: the update says so on stderr, then runs.
    writeTextFiles(box().pkg, { '.package-variant.lock': '{"pid":1,"host":"elsewhere","started":"then"}\n' });
    const run = await onFullDisk(update(), 'stderr');
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(/\nchanged cm\.yaml\n$/);
    expect(readFileSync(join(box().pkg, 'cm.yaml'), 'utf8')).toBe(V2['cm.yaml']);
    const dry = await onFullDisk(update('--dry-run'), 'stderr');
    expect(dry.code).toBe(1);
  });

  it('a diff that cannot be written: exit 1, nothing was written, and stderr says so', async () => {
    const run = await onFullDisk(update('--diff'), 'stdout');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/could not write to stdout \(ENOSPC\): the report is incomplete; nothing was written\n$/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(join(box().pkg, 'cm.yaml'), 'utf8')).toBe(V1['cm.yaml']);
  });
});

describeIf('the function on a full disk', () => {
  it('one line on stderr and exit 1, never a stack trace', async () => {
    const fd = openSync('/dev/full', 'w');
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [MAIN], { stdio: ['pipe', fd, 'pipe'] });
      closeSync(fd);
      let stderr = '';
      child.stderr!.on('data', (d) => (stderr += d));
      child.on('close', (code) => resolve({ code, stderr }));
      child.stdin!.end('apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n');
    });
    expect(run).toEqual({ code: 1, stderr: 'package-variant: the output could not be written (ENOSPC)\n' });
  });
});

describe('issue 18 item 10: a moved file keeps the mode local gave it', () => {
  it('resources local keeps in a 0600 file, moved by upstream to a new file: the new file is 0600', async () => {
    const cm = (v: string) => configMap('secret-ish', { v });
    writeTextFiles(origin(), { Kptfile: V1.Kptfile!, 'old/cm.yaml': cm('1') });
    writeTextFiles(upstream(), { Kptfile: V1.Kptfile!, 'new/cm.yaml': cm('1') });
    writeTextFiles(box().pkg, { Kptfile: V1.Kptfile!, 'old/cm.yaml': cm('local') });
    chmodSync(join(box().pkg, 'old/cm.yaml'), 0o600);
    const run = await new Promise<number | null>((resolve) =>
      spawn(process.execPath, [MAIN, 'update', box().pkg, '--origin', origin(), '--upstream', upstream()], { env: box().env, stdio: 'ignore' }).on('close', resolve),
    );
    expect(run).toBe(0);
    expect(existsSync(join(box().pkg, 'old/cm.yaml'))).toBe(false);
    expect(readFileSync(join(box().pkg, 'new/cm.yaml'), 'utf8')).toBe(cm('local'));
    expect(statSync(join(box().pkg, 'new/cm.yaml')).mode & 0o777).toBe(0o600);
  });
});
