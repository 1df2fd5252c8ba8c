// Run after `npm install`. The registry these machines reach serves only the Linux builds of some
// native packages (@swc/core-*, @unrs/resolver-binding-*); npm then leaves the other platforms'
// optional packages out of package-lock.json, and `npm ci` rejects the lock as out of sync.
// Recording them with their os/cpu (read from the package name) lets `npm ci` skip them as
// platform-incompatible, here and on any other machine.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const lockPath = join(dirname(fileURLToPath(import.meta.url)), '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const OS = ['darwin', 'linux', 'win32', 'freebsd', 'android', 'openharmony', 'sunos', 'aix', 'netbsd', 'openbsd'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el', 'wasm32'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  return os && cpu ? { os: [os], cpu: [cpu] } : undefined;
}

let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const depPath = `node_modules/${dep}`;
    if (lock.packages[depPath] || lock.packages[`${path}/${depPath}`]) continue;
    const platform = platformOf(dep);
    if (!platform) throw new Error(`${dep} (optional dependency of ${path || 'the project'}) is missing from the lock and names no platform`);
    lock.packages[depPath] = { version, ...platform, ...(entry.dev ? { dev: true } : {}), optional: true };
    added += 1;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: recorded ${added} platform-specific optional packages`);
