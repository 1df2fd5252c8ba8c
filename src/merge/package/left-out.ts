/**
 * What an update leaves out, before anything is merged: every path that is a symbolic link in the
 * local package, origin or upstream (never followed), and every path a `.krmignore` of any of them
 * names (never written or removed; in the local package never read, in origin and upstream read only
 * to tell whether upstream changed it). Whatever lies at or below such a path is taken out of all
 * three versions, so the local one stays as it is. Each is reported where it matters:
 * - a symbolic link: an info result, and a warning when upstream changed what lies there;
 * - an ignored path: a warning when upstream changed what lies there, else nothing;
 * - a local symbolic link at or above a file upstream adds or changes: an error, since the update
 *   would have to write through it.
 */
import type { Result } from '../../krm/results';
import { applyKrmignore } from '../../package/package-walk';
import { dirOf, isWithin, relativeTo, ROOT } from '../../package/scopes';
import { PackageTree, sameFile } from '../../package/tree';

type Version = 'local' | 'origin' | 'upstream';

interface Opaque {
  readonly path: string;
  readonly version: Version;
  readonly why: 'link' | 'ignored';
}

export interface LeftOut {
  /** The three versions without anything at or below a left-out path (links and ignored paths still listed). */
  readonly local: PackageTree;
  readonly origin: PackageTree;
  readonly upstream: PackageTree;
  /** The local files and directories at or below a left-out path: they stay as they are. */
  readonly untouched: PackageTree;
  readonly results: Result[];
}

const PHRASES: Record<Opaque['why'], Record<Version, string>> = {
  link: { local: 'a symbolic link in the local package', origin: 'a symbolic link in origin', upstream: 'a symbolic link in upstream' },
  ignored: { local: "ignored by the local package's .krmignore", origin: "ignored by origin's .krmignore", upstream: "ignored by upstream's .krmignore" },
};

const IN_EVERY_VERSION: Record<Opaque['why'], string> = { link: 'a symbolic link in every version', ignored: 'ignored by .krmignore in every version' };

/** Why one path is left out: what it is in each version, said once where it is the same in all three. */
function why(entries: readonly Opaque[]): string {
  const reasons = new Set(entries.map((o) => o.why));
  if (entries.length === 3 && reasons.size === 1) return IN_EVERY_VERSION[entries[0]!.why];
  return entries.map((o) => PHRASES[o.why][o.version]).join(', and ');
}

/** Whether `path` or one of its directories is in `set`. */
function coveredBy(path: string, set: ReadonlySet<string>): boolean {
  for (let at = path; ; at = dirOf(at)) {
    if (set.has(at)) return true;
    if (at === ROOT) return false;
  }
}

function without(tree: PackageTree, top: ReadonlySet<string>): PackageTree {
  return new PackageTree(
    new Map([...tree.files].filter(([path]) => !coveredBy(path, top))),
    new Set([...tree.dirs].filter((dir) => !coveredBy(dir, top))),
    tree.links,
    tree.ignored,
  );
}

/** What a version holds at or below `path`: its files and links, ignored files included. */
function view(tree: PackageTree, version: Version, path: string, opaque: readonly Opaque[]): Map<string, Buffer | string> {
  const out = new Map<string, Buffer | string>();
  for (const o of opaque) if (o.version === version && o.why === 'link') out.set(relativeTo(o.path, path), o.why);
  for (const [file, content] of tree.files) if (isWithin(file, path) && !out.has(relativeTo(file, path))) out.set(relativeTo(file, path), content.bytes);
  return out;
}

function sameView(a: Map<string, Buffer | string>, b: Map<string, Buffer | string>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) {
    const other = b.get(key);
    const same = typeof value === 'string' || typeof other === 'string' ? value === other : other !== undefined && value.equals(other);
    if (!same) return false;
  }
  return true;
}

/** Whether upstream adds or changes a file at or below `path`: what an update there would write. */
function writesBelow(origin: PackageTree, upstream: PackageTree, path: string): boolean {
  return [...upstream.files].some(([file, content]) => isWithin(file, path) && !sameFile(content, origin.files.get(file)));
}

export function leaveOut(localTree: PackageTree, originTree: PackageTree, upstreamTree: PackageTree): LeftOut {
  const trees: Record<Version, PackageTree> = { local: applyKrmignore(localTree), origin: applyKrmignore(originTree), upstream: applyKrmignore(upstreamTree) };
  const all: Opaque[] = [];
  for (const version of ['local', 'origin', 'upstream'] as const) {
    for (const path of trees[version].links) all.push({ path, version, why: 'link' });
    for (const path of trees[version].ignored) all.push({ path, version, why: 'ignored' });
  }
  if (all.length === 0) return { ...trees, untouched: PackageTree.empty(), results: [] };
  all.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const top = new Set<string>();
  for (const { path } of all) if (!coveredBy(path, top)) top.add(path);

  const results: Result[] = [];
  for (const path of [...top].sort()) {
    const here = all.filter((o) => isWithin(o.path, path));
    const reasons = [...new Set(here.map((o) => o.path))].map((p) => `${p} is ${why(here.filter((o) => o.path === p))}`).join('; ');
    // What a .krmignore names is compared as the version holds it, before it is left out.
    const origin = view(originTree, 'origin', path, here);
    const upstream = view(upstreamTree, 'upstream', path, here);
    if (sameView(origin, upstream)) {
      if (here.some((o) => o.why === 'link')) results.push({ severity: 'info', message: `${reasons}; the update leaves it as it is` });
      continue;
    }
    const throughLink = here.find((o) => o.version === 'local' && o.why === 'link' && writesBelow(trees.origin, trees.upstream, o.path));
    if (throughLink) {
      results.push({
        severity: 'error',
        message: `${throughLink.path} is a symbolic link in the local package, and upstream changes what lies there; the update never writes through a symbolic link: replace the link with a copy of what it points to, or delete it, and update again`,
      });
      continue;
    }
    results.push({ severity: 'warning', message: `${reasons}; the update leaves ${path} as it is, and upstream's change there is not applied` });
  }
  const untouched = new PackageTree(
    new Map([...trees.local.files].filter(([file]) => coveredBy(file, top))),
    new Set([...trees.local.dirs].filter((dir) => coveredBy(dir, top))),
  );
  return { local: without(trees.local, top), origin: without(trees.origin, top), upstream: without(trees.upstream, top), untouched, results };
}
