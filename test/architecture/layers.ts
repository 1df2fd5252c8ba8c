/**
 * The floors of `src/`, lowest first, and the rule that holds them: a module imports only from its
 * own part or from a lower floor, and no two modules reach each other through imports (a cycle).
 * Parts on one floor are independent of each other. The README's Architecture section draws the same
 * table.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export const FLOORS: readonly (readonly string[])[] = [
  ['yaml'],
  ['krm'],
  ['config'],
  ['package'],
  ['merge', 'variant', 'fanout'],
  ['disk', 'git'],
  ['update', 'function.ts'],
  ['sync'],
  ['cli'],
];

/** The part a module belongs to: its first directory below `src/`, or the file itself at the top. */
export function partOf(path: string): string {
  return path.split('/')[0]!;
}

function floorOf(part: string): number {
  const floor = FLOORS.findIndex((parts) => parts.includes(part));
  if (floor < 0) throw new Error(`src/${part} is on no floor: add it to FLOORS in test/architecture/layers.ts and to the README`);
  return floor;
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'";]*?\bfrom\s+'(\.{1,2}\/[^']+)'|\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)|\brequire\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;

/** Every module below `srcDir` (paths relative to it) with the modules it imports. */
export function importGraph(srcDir: string): Map<string, string[]> {
  const modules: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(join(srcDir, dir)).sort()) {
      const path = dir ? `${dir}/${name}` : name;
      if (statSync(join(srcDir, path)).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) modules.push(path);
    }
  };
  walk('');
  const exists = (path: string): boolean => {
    try {
      return statSync(join(srcDir, path)).isFile();
    } catch {
      return false;
    }
  };
  const graph = new Map<string, string[]>();
  for (const module of modules) {
    const text = readFileSync(join(srcDir, module), 'utf8');
    const targets: string[] = [];
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2] ?? match[3]!;
      const base = relative(srcDir, resolve(srcDir, dirname(module), spec));
      const target = [base, `${base}.ts`, `${base}/index.ts`, `${base}.js`].find(exists);
      if (target && target.endsWith('.ts')) targets.push(target);
    }
    graph.set(module, targets);
  }
  return graph;
}

/** Imports that break the floors, as `src/a.ts imports src/b.ts: why`. */
export function floorViolations(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [module, targets] of graph) {
    const from = partOf(module);
    for (const target of targets) {
      const to = partOf(target);
      if (from === to) continue;
      const [a, b] = [floorOf(from), floorOf(target.includes('/') ? to : target)];
      if (b > a) found.push(`src/${module} imports src/${target}: ${from} may not import from ${to}, a floor above it`);
      else if (b === a) found.push(`src/${module} imports src/${target}: ${from} and ${to} are parts of one floor and independent`);
    }
  }
  return found;
}

/** Groups of modules that import each other, directly or around a cycle (Tarjan's strongly connected components). */
export function importCycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (module: string): void => {
    index.set(module, counter);
    low.set(module, counter);
    counter += 1;
    stack.push(module);
    onStack.add(module);
    for (const target of graph.get(module) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(module, Math.min(low.get(module)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(module, Math.min(low.get(module)!, index.get(target)!));
    }
    if (low.get(module) !== index.get(module)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== module);
    if (component.length > 1 || (graph.get(module) ?? []).includes(module)) cycles.push(component.sort());
  };
  for (const module of graph.keys()) if (!index.has(module)) visit(module);
  return cycles;
}
