/** The time bounds of git, from the command line (--git-timeout, --git-stall-timeout) or the environment, for update and sync alike. */
import { DEFAULT_TIMEOUTS, type GitTimeouts } from '../git/run-git';

/** A number of seconds, from the command line or the environment, as milliseconds; undefined when it is not one. */
function milliseconds(text: string): number | undefined {
  const value = /^\d+(?:\.\d+)?$/.test(text.trim()) ? Number(text) : NaN;
  return value > 0 && value <= 86_400 ? Math.round(value * 1000) : undefined;
}

/** The time bounds of git: the command line's, else the environment's, else the defaults; or what is wrong with one. */
export function gitTimeouts(args: { readonly gitTimeout?: string; readonly gitStallTimeout?: string }, env: NodeJS.ProcessEnv): GitTimeouts | string {
  const pick = (flag: string, given: string | undefined, variable: string, fallback: number): number | string => {
    const [text, from] = given !== undefined ? [given, flag] : [env[variable], variable];
    if (text === undefined || text === '') return fallback;
    return milliseconds(text) ?? `${from} must be a number of seconds (more than 0, at most a day), not ${JSON.stringify(text)}`;
  };
  const totalMs = pick('--git-timeout', args.gitTimeout, 'PACKAGE_VARIANT_GIT_TIMEOUT', DEFAULT_TIMEOUTS.totalMs);
  const stallMs = pick('--git-stall-timeout', args.gitStallTimeout, 'PACKAGE_VARIANT_GIT_STALL_TIMEOUT', DEFAULT_TIMEOUTS.stallMs);
  if (typeof totalMs === 'string') return totalMs;
  if (typeof stallMs === 'string') return stallMs;
  return { totalMs, stallMs };
}

