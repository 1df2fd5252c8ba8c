/**
 * Non-KRM files (every file that is not a Kptfile, `*.yaml` or `*.yml`, and YAML files without a KRM
 * object), by kpt's rule (ReplaceNonKRMFiles), per package:
 * - a local file that is new or differs from origin stays;
 * - a file unchanged locally is replaced by upstream's, or removed when upstream removed it;
 * - upstream's new files and directories are created.
 * Byte for byte; the executable bit merges like a value (upstream's change arrives unless local
 * changed it). A package replaced whole (fast-forward, force-delete-replace) takes upstream's files;
 * one added upstream takes them all; one removed loses them all.
 */
import type { MergeStrategy } from '../../config/function-config';
import type { PackageOutcome } from '../resources/packages';
import { packageDirsOf, scopeOf } from '../../package/scopes';
import { EXECUTABLE, sameFile, type PackageTree, type TreeFile } from '../../package/tree';
import { fetchedAsWritten } from './fetched-yaml';

/** The three versions with their package boundaries: every directory with a Kptfile in any of them. */
export class FileVersions {
  readonly bounds: ReadonlySet<string>;

  constructor(
    readonly local: PackageTree,
    readonly origin: PackageTree,
    readonly upstream: PackageTree,
    /** Whether a path is a non-KRM file. */
    readonly isNonKrm: (path: string) => boolean,
    /** Whether a non-KRM file is one of the YAML files kpt reads (and `kpt pkg get` writes). */
    readonly isYaml: (path: string) => boolean = () => false,
  ) {
    this.bounds = new Set([...packageDirsOf(local.files.keys()), ...packageDirsOf(origin.files.keys()), ...packageDirsOf(upstream.files.keys())]);
  }

  /** Local's file holds origin's content: byte for byte, or, for a YAML file, as `kpt pkg get` wrote it (fetched-yaml.ts). */
  localUnchanged(path: string): boolean {
    const [local, origin] = [this.local.files.get(path), this.origin.files.get(path)];
    if (!local || !origin || sameFile(local, origin)) return sameFile(local, origin);
    return this.isYaml(path) && fetchedAsWritten(this.local.text(path)!, this.origin.text(path)!);
  }

  /** The package that holds a file. */
  scopeOf(path: string): string {
    return scopeOf(path, this.bounds);
  }

  /** The package whose content a directory is (a package's own directory is its content). */
  contentScopeOf(dir: string): string {
    return scopeOf(`${dir}/-`, this.bounds);
  }
}

function nonKrmPaths(tree: PackageTree, isNonKrm: (path: string) => boolean): string[] {
  return [...tree.files.keys()].filter(isNonKrm);
}

/** Per package, the non-KRM files local added, deleted or changed since origin (what fast-forward and a deleted package look at). */
export function localFileChanges(v: FileVersions): Map<string, string[]> {
  const changes = new Map<string, string[]>();
  const paths = new Set([...nonKrmPaths(v.local, v.isNonKrm), ...nonKrmPaths(v.origin, v.isNonKrm)]);
  for (const path of [...paths].sort()) {
    if (v.localUnchanged(path)) continue;
    const scope = v.scopeOf(path);
    if (!changes.has(scope)) changes.set(scope, []);
    changes.get(scope)!.push(path);
  }
  return changes;
}

/** Upstream's executable bit, unless local changed it since origin. */
function mergedMode(local: TreeFile, origin: TreeFile | undefined, upstream: TreeFile): number {
  const localExec = local.mode & EXECUTABLE;
  if (origin && localExec !== (origin.mode & EXECUTABLE)) return local.mode;
  const upstreamExec = upstream.mode & EXECUTABLE;
  if (localExec === upstreamExec) return local.mode;
  return upstreamExec ? local.mode | ((local.mode & 0o444) >> 2) : local.mode & ~EXECUTABLE;
}

export interface FileChanges {
  /** Files to write: path -> content and mode. */
  readonly write: Map<string, TreeFile>;
  readonly remove: Set<string>;
  /** Directories upstream added, to create even when empty. */
  readonly createDirs: Set<string>;
}

type Handling = 'three-way' | 'replace' | 'add' | 'remove' | 'leave';

function handlingOf(outcome: PackageOutcome | undefined, strategy: MergeStrategy): Handling {
  switch (outcome) {
    case undefined:
    case 'merge':
      return strategy === 'resource-merge' ? 'three-way' : 'replace';
    case 'added-upstream':
      return 'add';
    case 'removed':
      return 'remove';
    default:
      return 'leave';
  }
}

/** What the update does to non-KRM files and directories, given what became of each package. */
export function nonKrmChanges(v: FileVersions, packages: ReadonlyMap<string, PackageOutcome>, strategy: MergeStrategy): FileChanges {
  const changes: FileChanges = { write: new Map(), remove: new Set(), createDirs: new Set() };
  const handling = (path: string) => handlingOf(packages.get(v.scopeOf(path)), strategy);
  const paths = new Set([...nonKrmPaths(v.local, v.isNonKrm), ...nonKrmPaths(v.origin, v.isNonKrm), ...nonKrmPaths(v.upstream, v.isNonKrm)]);
  for (const path of [...paths].sort()) {
    const local = v.local.files.get(path);
    const origin = v.origin.files.get(path);
    const upstream = v.upstream.files.get(path);
    switch (handling(path)) {
      case 'three-way': {
        if (local) {
          if (!origin || !v.localUnchanged(path)) break;
          if (!upstream) {
            changes.remove.add(path);
            break;
          }
          // Where upstream left origin's content, local's stays, as kpt's writer wrote it or not.
          const content = sameFile(origin, upstream) ? local : upstream;
          if (!sameFile(local, content) || mergedMode(local, origin, upstream) !== local.mode) changes.write.set(path, { bytes: content.bytes, mode: mergedMode(local, origin, upstream) });
        } else if (upstream && !origin) changes.write.set(path, upstream);
        break;
      }
      case 'replace':
      case 'add':
        if (upstream) {
          if (!local || !sameFile(local, upstream) || local.mode !== upstream.mode) changes.write.set(path, upstream);
        } else if (local) changes.remove.add(path);
        break;
      case 'remove':
        if (local) changes.remove.add(path);
        break;
      case 'leave':
        break;
    }
  }
  for (const dir of v.upstream.dirs) {
    if (v.local.dirs.has(dir)) continue;
    const kind = handlingOf(packages.get(v.contentScopeOf(dir)), strategy);
    if (kind === 'add' || kind === 'replace' || (kind === 'three-way' && !v.origin.dirs.has(dir))) changes.createDirs.add(dir);
  }
  return changes;
}

/**
 * Whether an update removes a local directory it left empty: one that origin had and upstream does
 * not (kpt's rule), any in a package replaced whole, and every one of a package removed.
 */
export function removesEmptyDirectory(v: FileVersions, packages: ReadonlyMap<string, PackageOutcome>, strategy: MergeStrategy, dir: string): boolean {
  if (!v.local.dirs.has(dir)) return false;
  const kind = handlingOf(packages.get(v.contentScopeOf(dir)), strategy);
  if (kind === 'remove' || kind === 'replace') return true;
  return kind === 'three-way' && v.origin.dirs.has(dir) && !v.upstream.dirs.has(dir);
}
