/**
 * The differential fixtures (test/fixtures/differential/case-NNN.yaml, written by
 * scripts/gen-differential-fixtures.mjs, and rule-N-*.yaml, by scripts/gen-rule-fixtures.mjs): three
 * packages and what real `kpt pkg update` made of them. The rule fixtures that are real upgrades hold
 * a recipe instead of the packages, rebuilt here from the mirror of the repository they come from.
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Document, isMap, parse, parseAllDocuments, type Node, type YAMLSeq } from 'yaml';
import { MIRROR_HINT, mirrorRoot } from '../../scripts/lib/git-trees.cjs';
import { missingMirror, rebuildMirroredCase, type MirroredRuleCase } from '../../scripts/lib/mirrored-rule-fixture.cjs';
import { parseYaml } from '../../src/yaml/yaml-format';
import { REPO_ROOT } from '../helpers';
import { skipLine } from '../skip-notice';

export const FIXTURE_DIR = join(REPO_ROOT, 'test', 'fixtures', 'differential');
export const ORACLE = join(REPO_ROOT, 'scripts', 'kpt-oracle.sh');

export type Files = Record<string, string>;
export type Strategy = 'resource-merge' | 'fast-forward' | 'force-delete-replace';

export interface KptOutcome {
  /** 0: kpt pkg update succeeded; 3: kpt refused (kpt-oracle.sh's exit codes). */
  exitCode: number;
  files?: Files;
  error?: string;
}

export interface Fixture {
  /** File name, e.g. case-007.yaml, or rule-5-comments.yaml. */
  file: string;
  /** A seeded random case (scripts/gen-differential-fixtures.mjs): its number and seed. */
  case?: number;
  seed?: number;
  /** A case of one merge rule (scripts/gen-rule-fixtures.mjs): the rule's number and what it shows. */
  rule?: number;
  title?: string;
  strategy: Strategy;
  ops: string[];
  origin: Files;
  upstream: Files;
  local: Files;
  kpt: KptOutcome;
}

/** A rule fixture that cannot be rebuilt here: the mirror its recipe reads is not under MIRRORS. */
export interface UnbuiltFixture {
  file: string;
  mirror: string;
}

/** Where the mirrors of public repositories are: $PV_MIRROR_DIR, else the user's cache directory (scripts/lib/git-trees.cjs). */
export const MIRRORS = mirrorRoot();

/** A fixture as its file holds it: the packages, or a real upgrade's recipe (scripts/lib/mirrored-rule-fixture.cjs). */
type Recorded = (Omit<Fixture, 'file'> & { mirrored?: undefined }) | (MirroredRuleCase & Pick<Fixture, 'strategy' | 'ops'> & { rule: number; title: string });

/** Every fixture that can be read here, and the mirrored ones whose mirror is absent. */
export function loadFixtureSet(dir = FIXTURE_DIR): { fixtures: Fixture[]; unbuilt: UnbuiltFixture[] } {
  const fixtures: Fixture[] = [];
  const unbuilt: UnbuiltFixture[] = [];
  const files = readdirSync(dir).filter((f) => /^(case-\d+|rule-\d+-[\w.-]+)\.yaml$/.test(f));
  for (const file of files.sort()) {
    const data = parse(readFileSync(join(dir, file), 'utf8'), { maxAliasCount: -1 }) as Recorded;
    if (data.mirrored === undefined) {
      fixtures.push({ file, ...data, ops: data.ops ?? [], origin: data.origin ?? {}, upstream: data.upstream ?? {}, local: data.local ?? {} });
      continue;
    }
    const mirror = missingMirror(data, MIRRORS);
    if (mirror) unbuilt.push({ file, mirror });
    else fixtures.push({ file, rule: data.rule, title: data.title, strategy: data.strategy, ops: data.ops ?? [], ...rebuildMirroredCase(data, MIRRORS) });
  }
  return { fixtures, unbuilt };
}

export function loadFixtures(dir = FIXTURE_DIR): Fixture[] {
  return loadFixtureSet(dir).fixtures;
}

/** The one line a suite prints when it leaves out fixtures whose mirror is absent. */
export function noteUnbuilt(unbuilt: readonly UnbuiltFixture[]): void {
  if (unbuilt.length === 0) return;
  const mirrors = [...new Set(unbuilt.map((u) => u.mirror))].sort();
  skipLine(unbuilt.map((u) => u.file).join(', '), `mirror ${mirrors.join(', ')} not under ${MIRRORS} (${MIRROR_HINT})`);
}

export function writeTree(dir: string, files: Files): void {
  mkdirSync(dir, { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
}

export const PATH_ANNOTATION = 'internal.config.kubernetes.io/path';
const LEGACY_PATH_ANNOTATION = 'config.kubernetes.io/path';

const isResourceFile = (file: string) => /\.ya?ml$/.test(file) && !file.endsWith('Kptfile');

/** One package's items as kpt would send them: path annotations, and the merge-source tag if any. */
function packageItems(files: Files, tag: 'original' | 'updated' | undefined): Node[] {
  const items: Node[] = [];
  for (const [path, text] of Object.entries(files)) {
    if (!isResourceFile(path)) continue;
    // parseYaml puts `metadata: # kpt-merge: ns/name` on the key, where kpt (go-yaml) has it
    text.split(/^---[ \t]*$/m).forEach((part, index) => {
      const doc = parseYaml(part).doc;
      if (isMap(doc.contents)) {
        if (!isMap(doc.getIn(['metadata', 'annotations']))) doc.setIn(['metadata', 'annotations'], doc.createNode({}));
        doc.setIn(['metadata', 'annotations', PATH_ANNOTATION], path);
        doc.setIn(['metadata', 'annotations', 'internal.config.kubernetes.io/index'], String(index));
        if (tag) doc.setIn(['metadata', 'annotations', 'config.kubernetes.io/merge-source'], tag);
        items.push(doc.contents);
      }
    });
  }
  return items;
}

/** The ResourceList for the function: local untagged, origin `original`, upstream `updated`. */
export function fixtureResourceList(f: Pick<Fixture, 'origin' | 'upstream' | 'local' | 'strategy'>): string {
  const list = new Document({ apiVersion: 'config.kubernetes.io/v1', kind: 'ResourceList', items: [] });
  const items = list.get('items') as YAMLSeq;
  items.items.push(...packageItems(f.local, undefined), ...packageItems(f.origin, 'original'), ...packageItems(f.upstream, 'updated'));
  list.set('functionConfig', list.createNode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'options' }, data: { strategy: f.strategy } }));
  return list.toString({ lineWidth: 0 });
}

export type Doc = Record<string, unknown> & { kind?: string; metadata?: { name?: string; namespace?: string; annotations?: Record<string, unknown> } };

export interface PackageDoc {
  path: string;
  /** Shared between calls: read it, never change it. */
  doc: Doc;
  text: string;
}

/** Parsed files, most recently used last: real packages repeat the same files across versions and cases. */
const parsedFiles = new Map<string, PackageDoc[]>();
const PARSED_FILES_KEPT = 1000;

function fileDocs(path: string, text: string): PackageDoc[] {
  const key = `${path}\0${text}`;
  const known = parsedFiles.get(key);
  if (known) {
    parsedFiles.delete(key);
    parsedFiles.set(key, known);
    return known;
  }
  const out: PackageDoc[] = [];
  const docs = parseAllDocuments(text);
  for (const d of docs) {
    const doc = d.toJS() as unknown;
    if (doc !== null && typeof doc === 'object' && !Array.isArray(doc)) out.push({ path, doc: doc as Doc, text: docs.length > 1 ? text.slice(d.range[0], d.range[2]) : text });
  }
  parsedFiles.set(key, out);
  if (parsedFiles.size > PARSED_FILES_KEPT) parsedFiles.delete(parsedFiles.keys().next().value!);
  return out;
}

/** A package's resources as data, each with its file and its own text (the file's, if it holds one). */
export function packageDocs(files: Files): PackageDoc[] {
  return Object.entries(files).flatMap(([path, text]) => (isResourceFile(path) ? fileDocs(path, text) : []));
}

/** The items of the function's output, each with the file its path annotation names. */
export function outputDocs(items: Doc[]): { path: string; doc: Doc }[] {
  return items
    .filter((d) => d.kind !== 'Kptfile')
    .map((doc) => {
      const annotations = doc.metadata?.annotations ?? {};
      const path = String(annotations[PATH_ANNOTATION] ?? annotations[LEGACY_PATH_ANNOTATION] ?? '');
      return { path, doc };
    });
}

/** The `# kpt-merge: ns/name` identity a local resource was fetched with, if its text carries one. */
export function mergeComment(text: string): { namespace: string; name: string } | undefined {
  const m = /^metadata:[ \t]*#[ \t]*kpt-merge:[ \t]*([^/\s]*)\/(\S+)[ \t]*$/m.exec(text);
  return m ? { namespace: m[1]!, name: m[2]! } : undefined;
}

/**
 * kpt's error lines, as the generator records them: no scratch paths, and the modified-file lists
 * kpt prints in (varying) map order sorted. Keep in step with kptErrorText in
 * scripts/gen-differential-fixtures.mjs.
 */
export function kptErrorText(stderr: string): string {
  return stderr
    .split('\n')
    .filter((l) => /error/i.test(l) && !/^kpt-oracle: kpt pkg update/.test(l))
    .map((l) => l.replace(/\/[^\s'"]*kpt-(oracle|diff)[^\s'"]*/g, '<scratch>').trim())
    .map((l) => l.replace(/\[([^\]]*)\]/g, (_, files: string) => `[${files.split(/\s+/).filter(Boolean).sort().join(' ')}]`))
    .join('\n');
}

/** Every file below `dir`, by relative path. */
export function readTree(dir: string): Files {
  const out: Files = {};
  const walk = (sub: string): void => {
    for (const entry of readdirSync(join(dir, sub)).sort()) {
      const rel = sub ? `${sub}/${entry}` : entry;
      if (statSync(join(dir, rel)).isDirectory()) walk(rel);
      else out[rel] = readFileSync(join(dir, rel), 'utf8');
    }
  };
  walk('');
  return out;
}
