/**
 * The nesting a line scan tells before anything parses (src/yaml/nesting-depth.ts): flow brackets
 * and block indentation counted, quoted scalars, comments and block scalars passed over; on every
 * document of the real packages, never fewer levels than half of those `yaml` builds, never more
 * than a few beyond them.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isMap, isPair, isSeq, parseDocument } from 'yaml';
import { MAX_NESTING_DEPTH, nestingDepth } from '../../src/yaml/nesting-depth';
import { splitYamlStream } from '../../src/yaml/yaml-stream';
import { REPO_ROOT, SHARED } from '../helpers';

const depthOf = (text: string) => nestingDepth(text).depth;

/** The depth of the collections `yaml` builds, walked without recursion. */
function builtDepth(text: string): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[parseDocument(text).contents, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (isMap(node) || isSeq(node)) {
      deepest = Math.max(deepest, depth + 1);
      for (const item of node.items) pending.push(isPair(item) ? [item.value, depth + 1] : [item, depth + 1]);
    }
  }
  return deepest;
}

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return yamlFiles(full);
    return name === 'Kptfile' || /\.ya?ml$/.test(name) ? [full] : [];
  });
}

describe('nestingDepth', () => {
  it('counts block maps and sequences by their indentation, compact entries on one line included', () => {
    expect(depthOf('a: 1\n')).toBe(1);
    expect(depthOf('a:\n  b:\n    c: 1\nd: 2\n')).toBe(3);
    // A sequence at its key's column counts with the key's map: one level fewer than yaml builds.
    expect(depthOf('a:\n- b: 1\n  c:\n  - - - x\n')).toBe(5);
  });

  it('counts flow collections by their brackets, over several lines too', () => {
    expect(depthOf('a: [[1], {b: [2]}]\n')).toBe(4);
    // The line a flow collection starts on counts as a level of its own: one more than yaml builds.
    expect(depthOf('{\n  "a": {\n    "b": [\n      1\n    ]\n  }\n}\n')).toBe(4);
  });

  it('passes over brackets and indentation in quoted scalars, comments and block scalars', () => {
    expect(depthOf('a: "[[[[" # [[[[\nb: \'it\'\'s [[\'\n')).toBe(1);
    expect(depthOf('a: |\n  [[[[\n    deeper:\n      still: text\nb: 1\n')).toBe(1);
    // What follows `- ` counts as a level, a scalar too.
    expect(depthOf('- |\n  [[[[\n- 1\n')).toBe(2);
    expect(depthOf('a: "multi\n  [[[[ line"\nb: [x, "y]"]\n')).toBe(2);
  });

  it('stops where the limit is passed, with the line', () => {
    const flow = `a: ${'['.repeat(100_000)}${']'.repeat(100_000)}\n`;
    expect(nestingDepth(flow)).toEqual({ depth: 100_001, line: 1 });
    const block = ['a:', ...Array.from({ length: 5000 }, (_, i) => `${' '.repeat(2 * (i + 1))}k:`)].join('\n');
    expect(nestingDepth(block)).toEqual({ depth: MAX_NESTING_DEPTH + 1, line: MAX_NESTING_DEPTH + 1 });
  });

  it('is within half and a few levels of what yaml builds, on every document of the real packages', () => {
    const documents = [join(SHARED, 'conformance', 'real-packages'), join(REPO_ROOT, 'test', 'corpus')].flatMap((root) => yamlFiles(root).flatMap((file) => splitYamlStream(readFileSync(file, 'utf8')).map((doc) => ({ file, text: doc.text }))));
    const parsedWell = documents.filter(({ text }) => parseDocument(text).errors.length === 0);
    expect(parsedWell.length).toBeGreaterThan(200);
    const off = parsedWell.map(({ file, text }) => ({ file, built: builtDepth(text), told: depthOf(text) })).filter(({ built, told }) => told < built / 2 || told > built + 3);
    expect(off).toEqual([]);
  });
});
