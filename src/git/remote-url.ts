/**
 * Which repositories git may be asked to fetch from. A repository comes from a Kptfile (or a Porch
 * Repository object): data, not the user's command line. git itself would run a program for some of
 * them: `ext::CMD` runs CMD, `fd::` talks to open descriptors, any `NAME::` or `NAME://` runs the
 * remote helper git-remote-NAME, and a string that begins with `-` is an option. So only git's own
 * transports pass: https, http, ssh (`ssh://`, `git+ssh://`, `user@host:path`), git, and local
 * repositories (a path, or `file://`). The same list goes to git as GIT_ALLOW_PROTOCOL (repo-cache.ts),
 * so a redirect or a configured rewrite cannot leave it either.
 */
import { isAbsolute, normalize, resolve } from 'node:path';

/** git's names for the transports allowed, for GIT_ALLOW_PROTOCOL. */
export const ALLOWED_PROTOCOLS = ['file', 'git', 'http', 'https', 'ssh'] as const;

export type RepositoryLocation =
  /** On another machine: what git is given, as written. */
  | { readonly kind: 'remote'; readonly url: string }
  /** On this machine: what git is given, and the directory it names. */
  | { readonly kind: 'local'; readonly url: string; readonly path: string };

export class RepositoryError extends Error {}

const SCHEMES: Readonly<Record<string, 'remote' | 'local'>> = { https: 'remote', http: 'remote', ssh: 'remote', 'git+ssh': 'remote', 'ssh+git': 'remote', git: 'remote', file: 'local' };

const TRANSPORTS = 'https://, http://, ssh:// (and user@host:path), git:// and local repositories (a path or file://)';

const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Where `repo` is and what git is given for it; a relative path is taken from `base` (the directory
 * of the Kptfile that records it). Throws a RepositoryError saying why git may not fetch from it.
 */
export function locateRepository(repo: string, base: string): RepositoryLocation {
  const refuse = (why: string) => new RepositoryError(`${JSON.stringify(repo)} is not a repository package-variant fetches from: ${why}`);
  if (repo === '') throw refuse('it is empty');
  if (CONTROL.test(repo)) throw refuse('it holds a control character');
  if (repo.startsWith('-')) throw refuse('it begins with "-", which git would take for an option');
  const helper = /^([A-Za-z][A-Za-z0-9+.-]*)::/.exec(repo);
  if (helper) throw refuse(`"${helper[1]}::" makes git run a program (a remote helper); only ${TRANSPORTS} are fetched from`);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(repo);
  if (scheme) {
    const kind = SCHEMES[scheme[1]!.toLowerCase()];
    if (!kind) throw refuse(`"${scheme[1]}://" needs the remote helper git-remote-${scheme[1]}, a program git would run; only ${TRANSPORTS} are fetched from`);
    const rest = repo.slice(scheme[0].length);
    if (kind === 'remote') {
      if (rest.replace(/^[^@/]*@/, '').startsWith('-')) throw refuse('its host begins with "-", which ssh would take for an option');
      return { kind: 'remote', url: repo };
    }
    if (!rest.startsWith('/')) throw refuse('a file:// URL names a directory of this machine from its root (file:///path)');
    return { kind: 'local', url: repo, path: normalize(rest) };
  }
  // git's rule: a colon before the first slash makes `[user@]host:path`, an ssh address.
  const colon = repo.indexOf(':');
  const slash = repo.indexOf('/');
  if (colon > 0 && (slash === -1 || colon < slash)) {
    if (repo.slice(0, colon).replace(/^[^@]*@/, '').startsWith('-')) throw refuse('its host begins with "-", which ssh would take for an option');
    return { kind: 'remote', url: repo };
  }
  const path = isAbsolute(repo) ? normalize(repo) : resolve(base, repo);
  return { kind: 'local', url: path, path };
}

/** URL credentials (`https://user:token@host`), wherever they stand in a text, hidden: messages and plans are read and logged. */
export function withoutCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/@\s'"]+@/gi, '$1***@');
}
