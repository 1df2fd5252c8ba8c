/**
 * The update command parses only what can change the result. That must not change the result:
 * for every recorded kpt package vector, and every composite package of the package differential,
 * the command's files hold the same data as the function's output for the complete ResourceList.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { isMap, parse, parseAllDocuments, stringify } from 'yaml';
import { updateFromDirectories } from '../../src/update/update';
import { chompAtEnd } from '../../src/yaml/yaml-format';
import { normalise } from '../conformance/merge3-cases';
import { inFileOrder, runPackages } from '../conformance/kpt-packages';
import { loadPackageFixtures, writeFixtureTree, type Tree } from '../differential/package-fixtures';
import { resourceList, runFunction } from '../helpers';

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
      else out.set(relative(root, full), normalise(documentsOf(readFileSync(full, 'utf8')).filter(Boolean)));
    }
  };
  walk(root);
  return out;
}

/** The documents of a YAML text as YAML 1.2 reads them: a block scalar ending the text without a line break has none (`yaml` adds one). */
function documentsOf(text: string): Record<string, any>[] {
  return parseAllDocuments(text).map((doc) => {
    chompAtEnd(doc.contents, text);
    return doc.toJS() as Record<string, any>;
  });
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

/**
 * One package version's resource documents (Kptfiles included) as ResourceList items, tagged: every
 * map, as kpt reads them, given `metadata` for its path where it has none.
 */
function items(t: Tree, tag: 'original' | 'updated' | undefined): string[] {
  const out: string[] = [];
  for (const [path, content] of Object.entries(t.files)) {
    if (!isResourceFile(path) || holdsNonMap(t, path)) continue;
    documentsOf(Buffer.from(content).toString('utf8')).forEach((data: Record<string, any> | null, index) => {
      if (data === null) return;
      data.metadata ??= {};
      data.metadata.annotations = { ...(data.metadata.annotations ?? {}), 'internal.config.kubernetes.io/path': path, 'internal.config.kubernetes.io/index': String(index), ...(tag ? { 'config.kubernetes.io/merge-source': tag } : {}) };
      out.push(stringify(data));
    });
  }
  return out;
}

const isResourceFile = (path: string) => /(^|\/)Kptfile$|\.ya?ml$/.test(path);
/** A file with a document that is not a map: the function cannot take it, the update follows the non-KRM rule for it. */
const holdsNonMap = (t: Tree, path: string) => t.files[path] !== undefined && parseAllDocuments(Buffer.from(t.files[path]).toString('utf8')).some((doc) => doc.contents !== null && !isMap(doc.contents));
const resourcesOf = (t: Tree): Tree => ({ files: Object.fromEntries(Object.entries(t.files).filter(([path]) => isResourceFile(path))), modes: {} });

const byPath = (docs: Record<string, any>[]) => {
  const out = new Map<string, Record<string, unknown>[]>();
  for (const doc of inFileOrder(docs)) {
    const path = doc.metadata.annotations['internal.config.kubernetes.io/path'] as string;
    delete doc.metadata.annotations['internal.config.kubernetes.io/path'];
    delete doc.metadata.annotations['internal.config.kubernetes.io/index'];
    if (Object.keys(doc.metadata.annotations).length === 0) delete doc.metadata.annotations;
    if (Object.keys(doc.metadata).length === 0) delete doc.metadata;
    out.set(path, [...(out.get(path) ?? []), ...normalise([doc])]);
  }
  return out;
};

const composite = loadPackageFixtures().filter((f) => f.strategy === 'resource-merge' && f.kpt.exitCode === 0);

describe('update command = the function on the whole composite package', () => {
  it('has composite packages to compare', () => expect(composite.length).toBeGreaterThan(10));

  it.each(composite.map((f) => [f.file, f] as const))('%s', (_name, f) => {
    const dir = mkdtempSync(join(tmpdir(), 'pv-equiv-pkg-'));
    try {
      // Resources only: the function cannot see other files, which decide packages deleted upstream too.
      for (const [side, t] of [['local', f.local], ['origin', f.origin], ['upstream', f.upstream]] as const) writeFixtureTree(join(dir, side), resourcesOf(t));
      const outcome = updateFromDirectories({ local: join(dir, 'local'), origin: join(dir, 'origin'), upstream: join(dir, 'upstream') });
      expect(outcome.results.filter((r) => r.severity === 'error')).toEqual([]);
      const files = new Map([...readTree(join(dir, 'local'))].filter(([path, docs]) => docs.length > 0 && !holdsNonMap(f.local, path)));
      const whole = runFunction(resourceList([...items(f.local, undefined), ...items(f.origin, 'original'), ...items(f.upstream, 'updated')]));
      expect(whole.exitCode).toBe(0);
      const expected = byPath((parse(whole.output) as { items: Record<string, any>[] }).items);
      expect(new Map([...files].sort())).toEqual(new Map([...expected].sort()));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
