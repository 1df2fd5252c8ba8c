/**
 * Diffs a reviewer can read (issue 27): the lines `git diff --no-index` (renames found, as `git diff`
 * finds them) adds and removes from the package as the user had it to kpt's output and to ours.
 *
 * Two things are left out of both counts. A file new to the package that ours writes byte for byte as
 * upstream has it: a reviewer reads upstream's file either way, and kpt's is not shorter to read
 * where its writer puts a literal block on one line. And kpt's bookkeeping is counted on its side
 * (a `# kpt-merge` comment and an identifier on each resource it adds, which we leave out): kpt's
 * count is the bound, not the target. Where a README deviation makes ours larger (we take a change
 * kpt drops), the case is listed with the surplus that deviation gives, exactly.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Cases where a README deviation makes our diff larger: the deviation (its kpt column), and the lines it adds. */
export const LARGER_BY_DEVIATION: Record<string, { deviation: string; lines: number }> = {
  'blueprints--iam-foundation--v0.1.0--v0.1.1--1': { deviation: 'type-only changes (`"1"` to `1`) are ignored', lines: 2 },
  'blueprints--iam-foundation--v0.1.0--v0.1.1--2': { deviation: 'type-only changes (`"1"` to `1`) are ignored', lines: 2 },
  'blueprints--landing-zone-lite--v0.1.0--v0.1.1--1': { deviation: 'fast-forward and force-delete-replace never update the root Kptfile', lines: 1 },
  'blueprints--landing-zone-lite--v0.1.0--v0.1.1--2': { deviation: 'fast-forward and force-delete-replace never update the root Kptfile', lines: 1 },
  'catalog--nephio_optional_webui--v2.0.0--v3.0.0--2': { deviation: 'an element or map deleted locally but changed upstream comes back partially', lines: 14 },
};

interface FileDiff {
  readonly lines: number;
  /** Where the file was absent before: its path after. */
  readonly added?: string;
}

/** What `git diff --no-index` adds and removes from `before` to `after`, file by file (text files). */
function fileDiffs(before: string, after: string): FileDiff[] {
  const run = spawnSync('git', ['diff', '--no-index', '--numstat', '-z', '--find-renames', '--', before, after], {
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0 && run.status !== 1) throw new Error(`git diff --no-index: ${run.stderr}`);
  const fields = run.stdout.split('\0');
  const diffs: FileDiff[] = [];
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [added, removed] = fields[i]!.split('\t');
    const lines = added === '-' ? 0 : Number(added) + Number(removed);
    diffs.push(fields[i + 1] === '/dev/null' ? { lines, added: fields[i + 2]!.slice(after.length + 1) } : { lines });
  }
  return diffs;
}

const bytes = (dir: string, path: string) => (existsSync(join(dir, path)) ? readFileSync(join(dir, path)) : undefined);

/** The lines ours and kpt's change from `before`, each without the files new to the package that ours writes as upstream has them. */
export function diffSizes(before: string, dirs: { readonly pkg: string; readonly kpt: string; readonly upstream: string }): { ours: number; kpt: number } {
  const ours = fileDiffs(before, dirs.pkg);
  const asUpstream = new Set(ours.flatMap((d) => (d.added !== undefined && bytes(dirs.upstream, d.added)?.equals(bytes(dirs.pkg, d.added)!) ? [d.added] : [])));
  const count = (diffs: readonly FileDiff[]) => diffs.filter((d) => d.added === undefined || !asUpstream.has(d.added)).reduce((sum, d) => sum + d.lines, 0);
  return { ours: count(ours), kpt: count(fileDiffs(before, dirs.kpt)) };
}
