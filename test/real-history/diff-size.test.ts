/**
 * Diffs a reviewer can read (issue 27): on every upgrade of the real-history corpus that both tools
 * make, our `git diff` of the package is no larger than kpt's. Each case is rebuilt from the mirrors
 * as real-history.test.ts rebuilds it; the package as the user had it is kept aside, and the lines
 * `git diff --no-index` (renames found, as `git diff` finds them) adds and removes from it to kpt's
 * output and to ours are counted.
 *
 * Two things are left out of both counts. A file new to the package that ours writes byte for byte as
 * upstream has it: a reviewer reads upstream's file either way, and kpt's is not shorter to read
 * where its writer puts a literal block on one line. And kpt's bookkeeping is counted on its side
 * (a `# kpt-merge` comment and an identifier on each resource it adds, which we leave out): kpt's
 * count is the bound, not the target. Where a README deviation makes ours larger (we take a change
 * kpt drops), the case is listed with the surplus that deviation gives, exactly.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIRROR_HINT } from '../../scripts/lib/git-trees.cjs';
import { readmeDeviations } from '../differential/deviations';
import { absentMirrors, buildCaseDir, loadCases, MIRRORS, type RealHistoryCase } from './corpus';
import { runOurs } from './run-ours';

const CASE_TIMEOUT_MS = 60_000;
const cases = loadCases();
const absent = absentMirrors(cases);
if (absent.length) console.warn(`real-history diff sizes skipped: mirrors ${absent.join(', ')} not under ${MIRRORS} (${MIRROR_HINT})`);
const describeIfMirrors: jest.Describe = absent.length ? describe['skip'] : describe;

/** Cases where a README deviation makes our diff larger: the deviation (its kpt column), and the lines it adds. */
const LARGER_BY_DEVIATION: Record<string, { deviation: string; lines: number }> = {
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

describeIfMirrors('real history: our git diff is no larger than kpt’s', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'pv-diff-size-'));
  const cache = join(scratch, 'trees');
  const sizes: { ours: number; kpt: number }[] = [];

  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
    const total = (key: 'ours' | 'kpt') => sizes.reduce((sum, s) => sum + s[key], 0);
    console.log(`real history diff sizes: ${sizes.length} upgrades both made, ${total('ours')} lines ours, ${total('kpt')} kpt's`);
  });

  it('lists only upgrades of the corpus, each with a row of the README deviation table', () => {
    const ids = new Set(cases.map((c) => c.id));
    const rows = new Set(readmeDeviations());
    expect(Object.keys(LARGER_BY_DEVIATION).filter((id) => !ids.has(id))).toEqual([]);
    expect(Object.values(LARGER_BY_DEVIATION).filter((d) => !rows.has(d.deviation))).toEqual([]);
  });

  it.each(cases.filter((c) => c.kpt.exitCode === 0).map((c) => [c.id, c] as const))(
    '%s',
    async (id, fixture: RealHistoryCase) => {
      const dir = buildCaseDir(fixture, join(scratch, id), cache);
      try {
        const before = join(dir.root, 'before');
        cpSync(dir.pkg, before, { recursive: true });
        const outcome = await runOurs(dir);
        // An upgrade we refuse is the real-history suite's to judge.
        if (outcome.exitCode !== 0) return;
        const ours = fileDiffs(before, dir.pkg);
        // Files new to the package that hold upstream's very bytes.
        const asUpstream = new Set(ours.flatMap((d) => (d.added !== undefined && bytes(dir.upstream, d.added)?.equals(bytes(dir.pkg, d.added)!) ? [d.added] : [])));
        const count = (diffs: readonly FileDiff[]) => diffs.filter((d) => d.added === undefined || !asUpstream.has(d.added)).reduce((sum, d) => sum + d.lines, 0);
        const size = { ours: count(ours), kpt: count(fileDiffs(before, dir.kpt)) };
        sizes.push(size);
        const larger = LARGER_BY_DEVIATION[id];
        if (larger) expect(size.ours - size.kpt).toBe(larger.lines);
        else expect(size.ours).toBeLessThanOrEqual(size.kpt);
      } finally {
        rmSync(dir.root, { recursive: true, force: true });
      }
    },
    CASE_TIMEOUT_MS,
  );
});
