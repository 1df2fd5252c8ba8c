import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers';

interface LockEntry {
  optionalDependencies?: Record<string, string>;
}

it('records every optional dependency, so `npm ci` accepts the lock (scripts/complete-lockfile.mjs)', () => {
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const missing = Object.entries(lock.packages).flatMap(([path, entry]) =>
    Object.keys(entry.optionalDependencies ?? {}).filter((dep) => !lock.packages[`node_modules/${dep}`] && !lock.packages[`${path}/node_modules/${dep}`]),
  );
  expect(missing).toEqual([]);
});
