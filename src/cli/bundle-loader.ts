/**
 * Loads the function bundle (dist/function.js) as `require` would, with the V8 code cache the build
 * wrote beside it (function.js.cache, scripts/code-cache.mjs): its functions arrive compiled,
 * the ones a run uses included, instead of being parsed and compiled in every process (about 25 ms
 * of an update's start, and more as its functions are first called). V8 checks that a cache was
 * made by the same V8, with the same flags, for the same source, and compiles as usual when it was
 * not (or when there is none): the cache only ever saves time.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Script } from 'node:vm';

/** The code cache's name beside a bundle. */
export const cacheFileOf = (bundle: string) => `${bundle}.cache`;

/** A CommonJS module's wrapper, as Node's own loader wraps a file. */
const wrap = (source: string) => `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;

export interface CompiledBundle {
  readonly script: Script;
  /** Runs the bundle's top level; its exports. */
  run(): unknown;
}

/** Compiles `bundle` with `cachedData` (its code cache, when there is one). */
export function compileBundle(bundle: string, cachedData?: Buffer): CompiledBundle {
  const script = new Script(wrap(readFileSync(bundle, 'utf8')), { filename: bundle, ...(cachedData ? { cachedData } : {}) });
  return {
    script,
    run() {
      const module = { exports: {} as unknown };
      const init = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: { exports: unknown }, filename: string, dirname: string) => void;
      init.call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
      return module.exports;
    },
  };
}

function readCache(bundle: string): Buffer | undefined {
  try {
    return readFileSync(cacheFileOf(bundle));
  } catch {
    return undefined;
  }
}

/** The bundle's exports, compiled with its code cache where V8 takes it. */
export function loadBundle(bundle: string): unknown {
  return compileBundle(bundle, readCache(bundle)).run();
}
