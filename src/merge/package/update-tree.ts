/**
 * One package updated in memory: local, origin and upstream trees in, the new local tree out.
 * Resources go through the function's merge (src/merge/package/krm-merge.ts), every other file follows kpt's
 * non-KRM rule (src/merge/package/non-krm.ts), both per package as the merge's package table decided; symbolic
 * links and `.krmignore`d paths are left out first (src/merge/package/left-out.ts).
 * Nothing here touches the disk: the caller turns the new tree into a plan (src/disk/plan.ts).
 */
import type { MergeStrategy } from '../../config/function-config';
import { hasError, type Result } from '../../krm/results';
import { encodeText } from '../../yaml/utf8';
import type { MergeReport, UpstreamRecord } from '..';
import { isKrmFileName } from '../../package/krm-files';
import { mergeResources, readKrmVersions, type KrmMergeOptions } from './krm-merge';
import { leaveOut } from './left-out';
import { FileVersions, localFileChanges, nonKrmChanges, removesEmptyDirectory } from './non-krm';
import { dirOf, ROOT } from '../../package/scopes';
import { PackageTree, type TreeFile } from '../../package/tree';

export interface TreeUpdateOptions extends KrmMergeOptions {
  /** Git mode: the new upstream version to record in the root Kptfile. */
  readonly record?: UpstreamRecord;
}

export interface TreeUpdate {
  readonly results: Result[];
  /** The updated package; undefined when the update failed (an error result). */
  readonly tree?: PackageTree;
  readonly report?: MergeReport;
}

const DEFAULT_MODE = 0o644;

export function updateTree(localTree: PackageTree, originTree: PackageTree, upstreamTree: PackageTree, options: TreeUpdateOptions): TreeUpdate {
  const left = leaveOut(localTree, originTree, upstreamTree);
  if (hasError(left.results)) return { results: left.results };
  const { local, origin, upstream } = left;
  const krm = readKrmVersions(local, origin, upstream);
  const versions = new FileVersions(local, origin, upstream, (path) => !isKrmFileName(path) || krm.plainYaml.has(path), (path) => krm.plainYaml.has(path));
  const fileChanges = localFileChanges(versions);
  const merged = mergeResources(krm, options, { fileChanges, ...(options.record ? { record: options.record } : {}) });
  if (hasError(merged.results) || !merged.report) return { results: [...left.results, ...merged.results] };
  const { strategy, packages } = merged.report;

  const files = new Map(local.files);
  for (const [path, text] of merged.files) {
    if (text === null) files.delete(path);
    else files.set(path, { bytes: encodeText(text), mode: local.files.get(path)?.mode ?? movedMode(local, merged.movedFrom?.get(path)) ?? upstream.files.get(path)?.mode ?? DEFAULT_MODE });
  }
  const nonKrm = nonKrmChanges(versions, packages, strategy);
  for (const path of nonKrm.remove) files.delete(path);
  for (const [path, file] of nonKrm.write) files.set(path, file);
  for (const [path, file] of left.untouched.files) files.set(path, file);
  const tree = assemble(versions, files, new Set([...nonKrm.createDirs, ...left.untouched.dirs]), packages, strategy);
  return { results: [...left.results, ...merged.results], report: merged.report, tree };
}

/** A file that local resources moved to keeps the mode local gave them: the narrowest of the files they came from (a 0600 file stays 0600). */
function movedMode(local: PackageTree, from: readonly string[] | undefined): number | undefined {
  const modes = (from ?? []).flatMap((path) => local.files.get(path)?.mode ?? []);
  return modes.length ? modes.reduce((a, b) => a & b) : undefined;
}

function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let dir = dirOf(path); dir !== ROOT; dir = dirOf(dir)) out.push(dir);
  return out;
}

/** The new tree's directories: local's, those new files need, those upstream added; minus those emptied. */
function assemble(v: FileVersions, files: Map<string, TreeFile>, createDirs: ReadonlySet<string>, packages: MergeReport['packages'], strategy: MergeStrategy): PackageTree {
  const dirs = new Set([...v.local.dirs, ...createDirs]);
  const occupied = new Set<string>();
  // What the update leaves out (src/merge/package/left-out.ts) keeps its directories.
  for (const path of [...files.keys(), ...v.local.links, ...v.local.ignored]) {
    for (const d of ancestors(path)) {
      dirs.add(d);
      occupied.add(d);
    }
  }
  // Deepest first: a directory that holds only emptied directories is empty in turn.
  const removed = new Set<string>();
  for (const dir of [...dirs].sort((a, b) => b.split('/').length - a.split('/').length)) {
    if (!occupied.has(dir) && removesEmptyDirectory(v, packages, strategy, dir)) removed.add(dir);
    else for (let d = dirOf(dir); d !== ROOT; d = dirOf(d)) occupied.add(d);
  }
  return new PackageTree(files, new Set([...dirs].filter((d) => !removed.has(d))), v.local.links, v.local.ignored);
}
