'use strict';
/**
 * Rebuilds a real-history case (test/fixtures/real-history/cases/*.yaml) from the mirrors: the two
 * versions as the mirror holds them, the locally edited package, and kpt's output. Shared by the
 * generator, which checks every case it records this way, and the jest suite. Format: the README
 * next to the fixtures.
 */
const { createHash } = require('node:crypto');
const { cpSync, existsSync, readFileSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const { extractTree, manifest, mirrorGitDir, readTree, repositoryOf } = require('./git-trees.cjs');
const { applyKptGetModel } = require('./kpt-get-model.cjs');
const { applyTreePatch } = require('./tree-patch.cjs');

/**
 * Builds the tree named `key` into `target` with `build`; with a cache directory, each key is built
 * once and copied from there (cases share versions and fetched trees).
 */
function cached(cache, key, target, build) {
  if (!cache) return build(target);
  const kept = join(cache, key);
  if (!existsSync(kept)) build(kept);
  cpSync(kept, target, { recursive: true });
}

function mirrorTree(tree, mirrors, target, env, cache) {
  cached(cache, `${tree.tree}.raw`, target, (dir) => extractTree(mirrorGitDir(mirrors, repositoryOf(tree.repo)), tree.commit, tree.directory, dir, env));
}

/**
 * A package tree as `kpt pkg get` writes it, but with the mirror's own root Kptfile: the mirror's
 * tree, the model of kpt's bookkeeping, then the recorded residue patch (`tree.residue`) if any.
 */
function fetchedTree(tree, fixtureDir, mirrors, target, env, cache) {
  cached(cache, `${tree.tree}.fetched`, target, (dir) => {
    mirrorTree(tree, mirrors, dir, env, cache);
    applyKptGetModel(dir);
    if (tree.residue) applyTreePatch(dir, readFileSync(join(fixtureDir, tree.residue), 'utf8'));
  });
}

/**
 * What a clean update brings: the newer version as fetched, and each independent subpackage whose
 * `base` is `upstream` replaced by its own upstream at the commit kpt's output records (shallower
 * first, so deeper ones win). `bases` overrides the recorded choice (the generator tries both).
 */
function updatedTree(fixture, fixtureDir, mirrors, target, env, bases = {}, cache = undefined) {
  fetchedTree({ repo: fixture.repo, directory: fixture.directory, ...fixture.to }, fixtureDir, mirrors, target, env, cache);
  const replaced = (fixture.independent ?? []).filter((sub) => (bases[sub.path] ?? sub.base) === 'upstream');
  for (const sub of replaced.sort((a, b) => a.path.split('/').length - b.path.split('/').length)) {
    rmSync(join(target, sub.path), { recursive: true, force: true });
    fetchedTree(sub, fixtureDir, mirrors, join(target, sub.path), env, cache);
  }
}

/**
 * Writes the case's trees to the paths given (each optional): `origin` and `upstream` (the older and
 * newer version as the mirror holds them), `local` (fetched and edited), `kpt` (kpt's output).
 * `cache`: a directory where trees are kept between calls.
 */
function rebuildCase(fixture, fixtureDir, mirrors, paths, env, cache = undefined) {
  const version = (v) => ({ repo: fixture.repo, directory: fixture.directory, ...v });
  if (paths.origin) mirrorTree(version(fixture.from), mirrors, paths.origin, env, cache);
  if (paths.upstream) mirrorTree(version(fixture.to), mirrors, paths.upstream, env, cache);
  const local = paths.local ?? (paths.kpt && fixture.kpt.base === 'local' ? `${paths.kpt}.local` : undefined);
  if (local) {
    fetchedTree(version(fixture.from), fixtureDir, mirrors, local, env, cache);
    applyTreePatch(local, fixture.local.patch);
    if (treeDigest(local) !== fixture.local.manifest) throw new Error(`${fixture.id}: the rebuilt local package is not the one recorded`);
  }
  if (paths.kpt) {
    if (fixture.kpt.base === 'local') cpSync(local, paths.kpt, { recursive: true });
    else updatedTree(fixture, fixtureDir, mirrors, paths.kpt, env, {}, cache);
    applyTreePatch(paths.kpt, fixture.kpt.patch);
    if (local !== paths.local) rmSync(local, { recursive: true, force: true });
  }
}

/** The sha256 of a tree's manifest: what a case records of the edited package. */
function treeDigest(dir) {
  return createHash('sha256').update(manifest(readTree(dir))).digest('hex');
}

/** The mirrors a case reads that are missing under `mirrors`. */
function missingMirrors(fixture, mirrors) {
  const urls = [fixture.repo, ...(fixture.independent ?? []).map((s) => s.repo)];
  return [...new Set(urls.map((u) => repositoryOf(u)))].filter((r) => !existsSync(mirrorGitDir(mirrors, r))).map((r) => r.mirror);
}

module.exports = { rebuildCase, fetchedTree, updatedTree, treeDigest, missingMirrors };
