/**
 * Our side of a real-history case: the one place that says how `package-variant update` is run.
 *
 * Git mode, in-process, as a kpt user runs it: `package-variant update pkg@<newer ref>` on the
 * package as `kpt pkg get` fetched it and the seeded edits changed it. Under `dir.gitEnv` the
 * `https://github.com/...` upstreams the Kptfiles record resolve to the local mirrors and nothing
 * else is reachable; independent subpackages then come from their own upstreams, as in kpt's run.
 * The repository cache is shared by the cases of one suite (beside their directories), as a user's
 * cache is shared by their updates.
 */
import { dirname, join } from 'node:path';
import { UpdateError, updateFromGit } from '../../src/update/git-update';
import type { CaseDir } from './corpus';

export interface OurOutcome {
  /** The command's exit code: 0 written, 1 refused (nothing written). */
  exitCode: number;
  /** Results and error messages, as the command prints them. */
  messages: { severity: string; message: string }[];
}

export async function runOurs(dir: CaseDir): Promise<OurOutcome> {
  const { fixture } = dir;
  try {
    const outcome = await updateFromGit({
      pkg: dir.pkg,
      ref: fixture.to.ref,
      // kpt ran with --strategy only where it is not the default; the Kptfile records resource-merge
      ...(fixture.strategy === 'resource-merge' ? {} : { strategy: fixture.strategy }),
      // The case's downstream is no git work tree: kpt's run committed it, ours reads it as it is.
      allowDirty: true,
      env: { ...dir.gitEnv, PACKAGE_VARIANT_CACHE_DIR: join(dirname(dir.root), 'package-variant-cache') },
    });
    const messages = outcome.results.map((r) => ({ severity: r.severity, message: r.message }));
    return { exitCode: messages.some((m) => m.severity === 'error') ? 1 : 0, messages };
  } catch (error) {
    if (!(error instanceof UpdateError)) throw error;
    return { exitCode: 1, messages: [{ severity: 'error', message: error.message }] };
  }
}
