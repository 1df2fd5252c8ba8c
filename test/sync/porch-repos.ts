/**
 * Repositories in Porch's layout for sync's tests, built with plain git: a catalog whose packages
 * are published as Porch publishes them (a commit on main holding the package, annotated with the
 * approval's `kpt:` line, and the tag `<package>/v<N>`), and empty deployment repositories. Fixed
 * identities and dates: the same test makes the same objects.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, GIT_ENV } from '../pkg/git-repos';
import { writeFiles, type Files } from '../pkg/trees';

/** A bare repository whose main holds one commit with README.md. */
export function emptyRepository(path: string): string {
  const work = mkdtempSync(join(tmpdir(), 'pv-porch-src-'));
  try {
    git(['init', '-q', work]);
    writeFiles(work, { 'README.md': 'Created by a test\n' });
    git(['add', '-A'], work);
    git(['commit', '-q', '-m', 'Initial commit'], work);
    git(['clone', '-q', '--bare', work, path]);
    return git(['rev-parse', 'HEAD'], work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Publishes `files` as revision `revision` of `pkgpath` on main of the bare repository `repo`, as Porch's approval does; the commit. */
export function publish(repo: string, pkgpath: string, revision: number, files: Files, workspace = `v${revision}`): string {
  const work = mkdtempSync(join(tmpdir(), 'pv-porch-pub-'));
  try {
    git(['clone', '-q', repo, work]);
    git(['rm', '-rq', '--ignore-unmatch', pkgpath], work);
    writeFiles(join(work, pkgpath), files);
    git(['add', '-A'], work);
    const annotation = JSON.stringify({ package: pkgpath, workspaceName: workspace, revision: String(revision) });
    git(['commit', '-q', '-m', `Approving package revision ${pkgpath}/${revision}\n\nkpt:${annotation}`], work);
    git(['tag', `${pkgpath}/v${revision}`], work);
    git(['push', '-q', 'origin', 'HEAD:refs/heads/main', `refs/tags/${pkgpath}/v${revision}`], work);
    return git(['rev-parse', 'HEAD'], work);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Every ref of a bare repository with what it names, one `name commit` line each. */
export function refsOf(repo: string): string {
  return git(['--git-dir', repo, 'for-each-ref', '--format=%(refname) %(objectname)']);
}

export const show = (repo: string, spec: string): string => git(['--git-dir', repo, 'show', spec]);
export const messageOf = (repo: string, commit: string): string => git(['--git-dir', repo, 'log', '-1', '--format=%B', commit]);
export const parentsOf = (repo: string, commit: string): string[] => git(['--git-dir', repo, 'log', '-1', '--format=%P', commit]).split(' ').filter(Boolean);

export { GIT_ENV };
