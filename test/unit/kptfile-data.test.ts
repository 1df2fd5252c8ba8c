/** A Kptfile read as kpt reads it into its typed fields: scalars are their text, a plain null is none. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { kptfileData, parsedKptfileData, readUpstreamInfo } from '../../src/package/kptfile-upstream';
import { readFailsafeBlockMap } from '../../src/yaml/data-reader';
import { SHARED } from '../helpers';
import { generatedDocument } from './generated-documents';

const kptfile = (git: string) => `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: app\nupstreamLock:\n  type: git\n  git:\n${git}`;

it('keeps what YAML would take for numbers, booleans and nulls in quotes as written', () => {
  const info = readUpstreamInfo(kptfile('    repo: 0777\n    directory: true\n    ref: 1.10\n    commit: 0123456789012345678901234567890123456789\n'), 'Kptfile');
  expect(info.lock).toEqual({ repo: '0777', directory: 'true', ref: '1.10', commit: '0123456789012345678901234567890123456789' });
  expect(readUpstreamInfo(kptfile('    ref: 1e3\n    commit: "null"\n'), 'Kptfile').lock).toMatchObject({ ref: '1e3', commit: 'null' });
});

it('reads a plain null, ~ and nothing as none', () => {
  expect(readUpstreamInfo(kptfile('    repo: ~\n    directory: null\n    ref:\n    commit: NULL\n'), 'Kptfile').lock).toEqual({ repo: '', directory: '', ref: '', commit: '' });
  expect(kptfileData('a: [1, ~, "x"]\nb: {c: Null}\n')).toEqual({ a: ['1', null, 'x'], b: { c: null } });
});

it('throws the first YAML error', () => {
  expect(() => kptfileData('a: [1\n')).toThrow();
});

it('reads a block scalar at the end of a Kptfile without a final line break as YAML 1.2 does: without one', () => {
  expect(readUpstreamInfo(kptfile('    repo: r\n    directory: /d\n    commit: c\n    ref: |\n      v1'), 'Kptfile').lock?.ref).toBe('v1');
  expect(readUpstreamInfo(kptfile('    repo: r\n    directory: /d\n    commit: c\n    ref: |\n      v1\n'), 'Kptfile').lock?.ref).toBe('v1\n');
});

describe('the simple block subset, read without the parser', () => {
  const SEED = 20261129;

  it('gives what the parser gives for generated documents, with and without a final line break, and accepts most', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 60 }), fc.boolean(), (tape, trimmed) => {
        const text = trimmed ? generatedDocument(tape).replace(/\n+$/, '') : generatedDocument(tape);
        const fast = readFailsafeBlockMap(text);
        if (fast === undefined) return;
        accepted += 1;
        expect({ text, data: fast }).toEqual({ text, data: parsedKptfileData(text) });
      }),
      { seed: SEED, numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(1000);
  });

  it('gives what the parser gives for every Kptfile of the corpus, and reads all but a few of them itself', () => {
    const kptfiles = (readdirSync(join(SHARED, 'conformance'), { recursive: true }) as string[]).filter((path) => /(^|\/)Kptfile$/.test(path)).map((path) => join(SHARED, 'conformance', path));
    let accepted = 0;
    for (const path of kptfiles) {
      const text = readFileSync(path, 'utf8');
      if (readFailsafeBlockMap(text) !== undefined) accepted += 1;
      let parsed: unknown;
      try {
        parsed = parsedKptfileData(text);
      } catch {
        expect(() => kptfileData(text)).toThrow();
        continue;
      }
      expect({ path, data: kptfileData(text) }).toEqual({ path, data: parsed });
    }
    expect(kptfiles.length).toBeGreaterThan(20);
    expect(accepted / kptfiles.length).toBeGreaterThan(0.9);
  });

  it.each([
    ['a key that reads as none', 'null: a\n~: b\n'],
    ['a quoted null key', '"null": a\n'],
    ['nulls as values, plain, quoted, empty, in lists and flow collections', "a: ~\nb: 'null'\nc:\nd:\n- NULL\n-\ne: [Null, \"~\"]\n"],
    ['numbers and booleans as text', 'a: 1.10\nb: true\nc: 0777\n'],
    ['a literal at the end without a line break', 'a: |\n  v1'],
  ])('agrees with the parser on %s', (_name, text) => {
    expect(kptfileData(text)).toEqual(parsedKptfileData(text));
  });

  it('leaves a key that reads as none to the parser', () => {
    expect(readFailsafeBlockMap('null: a\n')).toBeUndefined();
    expect(readFailsafeBlockMap('"null": a\nb: ~\n')).toEqual({ null: 'a', b: null });
  });
});
