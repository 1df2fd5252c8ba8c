/**
 * Attributes a file-level difference between kpt's package and ours to a row of the README's
 * deviation table, and checks that ours is the documented result there. Each detector recognises
 * its situation from the fixture's three versions and kpt's output alone.
 */
import { isDeepStrictEqual } from 'node:util';
import { comparable, isExecutable, isKptfile, isYaml, sameContent, type FileDifference } from './package-compare';
import type { Content, PackageFixture, Tree } from './package-fixtures';

export interface PackageClaim {
  deviation: string;
  /** Set when our result is not the documented one. */
  mismatch?: string;
}

/** Rows of the README table (its kpt column), by what each detector recognises. */
export const PACKAGE_DEVIATIONS = {
  deletedFile: 'a non-KRM file deleted locally comes back from upstream',
  mode: "a file taken from upstream keeps the local file's mode: upstream's `chmod` never arrives",
  prefix: "a path that only begins with a subpackage's name (`bin/` beside `b/`, `config.yaml` beside `c/`) counts as inside it: that file is not updated, or force-delete-replace loses it",
  dotGit: 'files whose path contains `.git` (`.gitignore`, `.github/`) are never updated',
  crash: 'fails (`open ...: no such file or directory`) on a subpackage deleted upstream that holds one added locally',
  rootKptfile: 'fast-forward and force-delete-replace never update the root Kptfile',
  bareList: "a YAML document that is a list (not a map) merges as one value: upstream's change replaces a local one",
  scalarDocument: 'a YAML document that is a scalar fails the update (`wrong node kind`)',
} as const;

const dirOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');

function packageDirs(...trees: Tree[]): string[] {
  return [...new Set(trees.flatMap((t) => Object.keys(t.files).filter(isKptfile).map(dirOf)))].filter((d) => d !== '');
}

const isNonKrm = (path: string) => !isKptfile(path) && !isYaml(path);

type Expected = { content: Content | undefined } | 'unknown';

/** What our rules give for one file of a package that is merged (not added, removed or kept whole). */
function expectedByRule(f: PackageFixture, path: string): Expected {
  const [local, origin, upstream] = [f.local.files[path], f.origin.files[path], f.upstream.files[path]];
  if (f.strategy !== 'resource-merge') return { content: upstream };
  if (isNonKrm(path)) {
    if (local !== undefined) return { content: origin === undefined || !sameContent(path, local, origin) ? local : upstream };
    return { content: origin === undefined ? upstream : undefined };
  }
  if (sameContent(path, local, origin)) return { content: upstream };
  if (sameContent(path, upstream, origin)) return { content: local };
  return 'unknown';
}

function followsRule(f: PackageFixture, ours: Tree, path: string): string | undefined {
  const expected = expectedByRule(f, path);
  if (expected === 'unknown' || sameContent(path, expected.content, ours.files[path])) return undefined;
  return `${path} should be ${expected.content === undefined ? 'absent' : 'as the rule gives it'}, ours is ${ours.files[path] === undefined ? 'absent' : 'different'}`;
}

const MERGED_KPTFILE_FIELDS = ['info', 'pipeline', 'inventory'] as const;

function kptfileField(tree: Tree, field: string): unknown {
  const text = tree.files.Kptfile;
  return text === undefined ? undefined : (comparable('Kptfile', text) as Record<string, unknown>)[field];
}

/** Whether a version holds a file whose first document is a YAML list. */
const holdsList = (f: PackageFixture, path: string) => [f.origin, f.upstream, f.local].some((t) => t.files[path] !== undefined && /^- /m.test(String(t.files[path]).split('\n').find((l) => l.trim() && !l.startsWith('#')) ?? ''));

const detectors: ((f: PackageFixture, kpt: Tree, ours: Tree, d: FileDifference) => PackageClaim | undefined)[] = [
  (f, _kpt, ours, d) => {
    if (d.kind !== 'content' || !isYaml(d.path) || !holdsList(f, d.path)) return undefined;
    // Ours follows the non-KRM rule: a list local changed stays local's.
    const [local, origin, upstream] = [f.local.files[d.path], f.origin.files[d.path], f.upstream.files[d.path]];
    const expected = sameContent(d.path, local, origin) ? upstream : local;
    return { deviation: PACKAGE_DEVIATIONS.bareList, ...(sameContent(d.path, ours.files[d.path], expected) ? {} : { mismatch: 'ours does not follow the non-KRM rule for it' }) };
  },
  (f, kpt, ours, d) => {
    if (d.path !== 'Kptfile' || f.strategy === 'resource-merge' || d.kind !== 'content') return undefined;
    const wrong = MERGED_KPTFILE_FIELDS.filter((field) => !isDeepStrictEqual(kptfileField(ours, field), kptfileField(f.upstream, field)));
    const lockDiffers = ['upstream', 'upstreamLock'].some((field) => !isDeepStrictEqual(kptfileField(ours, field), kptfileField(kpt, field)));
    const mismatch = wrong.length ? `ours does not take upstream's ${wrong.join(', ')}` : lockDiffers ? "ours records another upstream or lock than kpt's" : undefined;
    return { deviation: PACKAGE_DEVIATIONS.rootKptfile, ...(mismatch ? { mismatch } : {}) };
  },
  (f, _kpt, ours, d) => {
    if (!d.path.includes('.git')) return undefined;
    const mismatch = followsRule(f, ours, d.path);
    return { deviation: PACKAGE_DEVIATIONS.dotGit, ...(mismatch ? { mismatch } : {}) };
  },
  (f, kpt, ours, d) => {
    const dirs = packageDirs(f.origin, f.upstream, f.local, kpt);
    if (!dirs.some((dir) => d.path.startsWith(dir) && !d.path.startsWith(`${dir}/`))) return undefined;
    const mismatch = d.kind === 'mode' ? undefined : followsRule(f, ours, d.path);
    return { deviation: PACKAGE_DEVIATIONS.prefix, ...(mismatch ? { mismatch } : {}) };
  },
  (f, _kpt, ours, d) => {
    if (d.kind !== 'mode') return undefined;
    const local = isExecutable(f.local, d.path);
    const upstream = f.upstream.files[d.path] === undefined ? local : isExecutable(f.upstream, d.path);
    const expected = local !== isExecutable(f.origin, d.path) ? local : upstream;
    const mismatch = isExecutable(ours, d.path) === expected ? undefined : `ours is ${expected ? 'not ' : ''}executable`;
    return { deviation: PACKAGE_DEVIATIONS.mode, ...(mismatch ? { mismatch } : {}) };
  },
  (f, _kpt, ours, d) => {
    if (d.kind !== 'only-kpt' || !isNonKrm(d.path) || f.origin.files[d.path] === undefined || f.local.files[d.path] !== undefined) return undefined;
    return { deviation: PACKAGE_DEVIATIONS.deletedFile, ...(ours.files[d.path] !== undefined ? { mismatch: 'ours brings it back too' } : {}) };
  },
];

export function attributePackageDifference(f: PackageFixture, kpt: Tree, ours: Tree, d: FileDifference): PackageClaim | undefined {
  for (const detect of detectors) {
    const claim = detect(f, kpt, ours, d);
    if (claim) return claim;
  }
  return undefined;
}

/**
 * kpt refused where we did not: its crash on a deleted subpackage holding a local one, where ours
 * keeps the package; a scalar document, which ours leaves as it is while it updates the rest.
 */
export function attributeRefusal(f: PackageFixture, ours: Tree, messages: readonly string[]): PackageClaim | undefined {
  if (/expected MappingNode but got ScalarNode/.test(f.kpt.error ?? '')) {
    const scalars = Object.keys(f.local.files).filter((p) => isYaml(p) && !/^\s*[\w"'-]+\s*:/m.test(String(f.local.files[p])));
    const kept = scalars.length > 0 && scalars.every((p) => sameContent(p, ours.files[p], f.local.files[p]));
    return { deviation: PACKAGE_DEVIATIONS.scalarDocument, ...(kept ? {} : { mismatch: 'ours does not keep the scalar document as it is' }) };
  }
  if (!/no such file or directory/.test(f.kpt.error ?? '')) return undefined;
  const kept = messages.find((m) => /subpackage "([^"]+)" was deleted upstream but changed locally; it is kept/.test(m));
  const dir = kept && /subpackage "([^"]+)"/.exec(kept)![1]!;
  const intact = dir !== undefined && Object.keys(f.local.files).filter((p) => p.startsWith(`${dir}/`)).every((p) => ours.files[p] !== undefined);
  return { deviation: PACKAGE_DEVIATIONS.crash, ...(intact ? {} : { mismatch: 'ours does not keep the deleted subpackage whole, with a warning' }) };
}
