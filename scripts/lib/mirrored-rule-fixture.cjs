'use strict';
/**
 * Rule fixtures that are real upgrades (test/fixtures/differential/rule-N-*.yaml with a `mirrored`
 * recipe, recorded by scripts/gen-rule-fixtures.mjs) hold no copy of the package: origin and
 * upstream are some files of a package directory at two commits of a mirrored repository, license
 * header dropped; local is what `kpt pkg get` wrote of origin (the kpt-get model plus a residue
 * patch) with the recorded edits applied; kpt's output is a tree patch against local or the newer
 * files as fetched. Both are pinned by the sha256 of their manifest. Shared by the generator, which
 * checks every case it records rebuilds, and the jest suites. Format: the README next to the fixtures.
 */
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { git, hermeticGitEnv, mirrorGitDir, readFiles, repositoryOf, writeFiles } = require('./git-trees.cjs');
const { fetchedText } = require('./kpt-get-model.cjs');
const { missingMirrors, treeDigest } = require('./real-history-fixture.cjs');
const { applyTreePatch } = require('./tree-patch.cjs');

/** The license header the catalog's files start with: left out, it is not part of what the cases show. */
const LICENSE_HEADER = /^# Copyright[^\n]*\n(#[^\n]*\n)*?# limitations under the License\.\n/;

/** The recipe's files at `side` (`origin` or `upstream`) as the mirror holds them, without their license header. */
function mirroredFiles(recipe, side, mirrors, env) {
  const gitDir = mirrorGitDir(mirrors, repositoryOf(recipe.repo));
  const files = {};
  for (const name of recipe.files) files[name] = git(['--git-dir', gitDir, 'show', `${recipe[side].commit}:${recipe.directory}/${name}`], { env }).replace(LICENSE_HEADER, '');
  return files;
}

/** The files as the kpt-get model says `kpt pkg get` writes them. */
function fetchedFiles(files) {
  return Object.fromEntries(Object.entries(files).map(([path, text]) => [path, fetchedText(text)]));
}

/** Each edit replaces the first `replace` in `file` by `with`; an edit whose text is not there fails, so none silently does nothing. */
function applyEdits(files, edits) {
  const out = { ...files };
  for (const e of edits) {
    if (!out[e.file]?.includes(e.replace)) throw new Error(`local edit: ${JSON.stringify(e.replace)} is not in ${e.file}`);
    out[e.file] = out[e.file].replace(e.replace, () => e.with);
  }
  return out;
}

/** Applies a tree patch to files in memory (through `dir`, which must not exist). */
function patchFiles(files, patch, dir) {
  writeFiles(dir, files);
  applyTreePatch(dir, patch);
  return readFiles(dir);
}

/** The mirror a mirrored case reads, when it is missing under `mirrors`. */
function missingMirror(fixture, mirrors) {
  return missingMirrors({ repo: fixture.mirrored.repo }, mirrors)[0];
}

/**
 * A mirrored case's three packages and kpt's outcome (file path -> text), rebuilt from the mirror
 * under `mirrors`; throws when local or kpt's output is not the one recorded.
 */
function rebuildMirroredCase(fixture, mirrors) {
  const scratch = mkdtempSync(join(tmpdir(), 'pv-mirrored-rule-'));
  try {
    const env = hermeticGitEnv(join(scratch, 'git'), mirrors);
    const origin = mirroredFiles(fixture.mirrored, 'origin', mirrors, env);
    const upstream = mirroredFiles(fixture.mirrored, 'upstream', mirrors, env);
    const local = applyEdits(patchFiles(fetchedFiles(origin), fixture.local.residue, join(scratch, 'fetched')), fixture.local.edits);
    writeFiles(join(scratch, 'local'), local);
    if (treeDigest(join(scratch, 'local')) !== fixture.local.manifest) throw new Error(`${fixture.mirrored.directory}: the rebuilt local package is not the one recorded`);
    if (fixture.kpt.exitCode !== 0) return { origin, upstream, local, kpt: { exitCode: fixture.kpt.exitCode, error: fixture.kpt.error } };
    const base = fixture.kpt.base === 'local' ? local : fetchedFiles(upstream);
    const files = patchFiles(base, fixture.kpt.patch, join(scratch, 'kpt'));
    if (treeDigest(join(scratch, 'kpt')) !== fixture.kpt.manifest) throw new Error(`${fixture.mirrored.directory}: the rebuilt kpt output is not the one recorded`);
    return { origin, upstream, local, kpt: { exitCode: 0, files } };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

module.exports = { mirroredFiles, fetchedFiles, applyEdits, missingMirror, rebuildMirroredCase };
