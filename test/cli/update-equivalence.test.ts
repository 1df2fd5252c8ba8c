/**
 * The update command parses only what can change the result. That must not change the result:
 * for every recorded kpt package vector, the command's files hold the same data as the function's
 * output for the complete ResourceList.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { updateFromDirectories } from '../../src/pkg/update';
import { normalise } from '../conformance/merge3-cases';
import { runPackages } from '../conformance/kpt-packages';

function writeSide(root: string, cases: ReturnType<typeof runPackages>[number]['cases'], side: 'origin' | 'update' | 'local'): void {
  mkdirSync(root, { recursive: true });
  for (const c of cases) {
    const text = c[side];
    const file = c.options!.file!;
    if (text === null || !(/\.ya?ml$/.test(file) || file === 'Kptfile')) continue;
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
}

function readTree(root: string): Map<string, Record<string, unknown>[]> {
  const out = new Map<string, Record<string, unknown>[]>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.set(relative(root, full), normalise(parseAllDocuments(readFileSync(full, 'utf8')).map((d) => d.toJS() as Record<string, unknown>).filter(Boolean)));
    }
  };
  walk(root);
  return out;
}

const packages = runPackages().filter((run) => run.exitCode === 0);

describe('update command = the function on the whole package', () => {
  it('has packages to compare', () => expect(packages.length).toBeGreaterThan(15));

  it.each(packages.map((run) => [run.experiment, run] as const))('experiment %s', (_name, run) => {
    const dir = mkdtempSync(join(tmpdir(), 'pv-equiv-'));
    try {
      writeSide(join(dir, 'origin'), run.cases, 'origin');
      writeSide(join(dir, 'upstream'), run.cases, 'update');
      writeSide(join(dir, 'local'), run.cases, 'local');
      const strategy = run.cases[0]!.options?.strategy as 'resource-merge' | 'fast-forward' | 'force-delete-replace' | undefined;
      const outcome = updateFromDirectories({ local: join(dir, 'local'), origin: join(dir, 'origin'), upstream: join(dir, 'upstream'), ...(strategy ? { strategy } : {}) });
      expect(outcome.results.filter((r) => r.severity === 'error')).toEqual([]);
      const files = readTree(join(dir, 'local'));
      const expected = new Map([...run.files].filter(([, docs]) => docs.length > 0));
      expect(new Map([...files].filter(([, docs]) => docs.length > 0))).toEqual(expected);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
