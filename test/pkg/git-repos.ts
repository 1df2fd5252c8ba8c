/** Local git repositories for git-mode tests: no network, fixed identities, nothing from the user's configuration. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFiles, type Files } from './trees';

export const GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
  GIT_AUTHOR_DATE: '2001-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2001-01-01T00:00:00Z',
};

export function git(args: string[], cwd?: string, env: NodeJS.ProcessEnv = GIT_ENV): string {
  const run = spawnSync('git', ['-c', 'init.defaultBranch=main', '-c', 'commit.gpgSign=false', '-c', 'tag.gpgSign=false', ...args], { cwd, env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}

export interface Version {
  /** The repository's files (the package under its directory). */
  files: Files;
  tags?: string[];
  /** Annotated tags. */
  annotated?: string[];
}

/** A bare repository at `path` whose main holds the versions in order; the commit of each. */
export function bareRepository(path: string, versions: Version[]): string[] {
  const work = mkdtempSync(join(tmpdir(), 'pv-repo-src-'));
  try {
    git(['init', '-q', work]);
    const commits = versions.map((version, i) => {
      git(['rm', '-rq', '--ignore-unmatch', '.'], work);
      writeFiles(work, version.files);
      git(['add', '-A'], work);
      git(['commit', '-q', '--allow-empty', '-m', `version ${i + 1}`], work);
      for (const tag of version.tags ?? []) git(['tag', tag], work);
      for (const tag of version.annotated ?? []) git(['tag', '-a', '-m', tag, tag], work);
      return git(['rev-parse', 'HEAD'], work);
    });
    git(['clone', '-q', '--bare', work, path]);
    return commits;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The Kptfile `kpt pkg get REPO/DIRECTORY@REF` writes (name, upstream, lock). */
export function fetchedKptfile(name: string, repo: string, directory: string, ref: string, commit: string, extra = ''): string {
  const git = `    repo: ${repo}\n    directory: ${directory}\n    ref: ${ref}\n`;
  return `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\nupstream:\n  type: git\n  git:\n${git}  updateStrategy: resource-merge\nupstreamLock:\n  type: git\n  git:\n${git}    commit: ${commit}\n${extra}`;
}
