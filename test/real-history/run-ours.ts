/**
 * Our side of a real-history case: the one place that says how `package-variant update` is run.
 *
 * Today this is directory mode, in-process (as `package-variant update LOCAL --origin DIR
 * --upstream DIR --upstream-ref REF --upstream-commit SHA`): origin is the older version and upstream
 * the newer one as the mirror holds them, both of the package directory alone.
 *
 * Git mode plugs in here: `git init` and commit `dir.downstream` (kpt requires the package in a
 * committed git work tree, and so does our dirty check), then run `package-variant update
 * pkg@<dir.fixture.to.ref>` in `dir.downstream` with `dir.gitEnv`, under which the
 * `https://github.com/...` upstreams the Kptfiles record resolve to the local mirrors and nothing
 * else is reachable. Independent subpackages then come from their own upstreams, as in kpt's run.
 */
import { updatePackage } from '../../src/cli/update';
import type { CaseDir } from './corpus';

export interface OurOutcome {
  /** The command's exit code: 0 written, 1 refused (nothing written). */
  exitCode: number;
  /** Results and error messages, as the command prints them. */
  messages: { severity: string; message: string }[];
}

export function runOurs(dir: CaseDir): OurOutcome {
  const { fixture } = dir;
  try {
    const outcome = updatePackage({
      local: dir.pkg,
      origin: dir.origin,
      upstream: dir.upstream,
      // kpt ran with --strategy only where it is not the default; the Kptfile records resource-merge
      ...(fixture.strategy === 'resource-merge' ? {} : { strategy: fixture.strategy }),
      upstreamRef: fixture.to.ref,
      upstreamCommit: fixture.to.commit,
    });
    const messages = outcome.results.map((r) => ({ severity: r.severity, message: r.message }));
    return { exitCode: messages.some((m) => m.severity === 'error') ? 1 : 0, messages };
  } catch (error) {
    return { exitCode: 1, messages: [{ severity: 'error', message: (error as Error).message }] };
  }
}
