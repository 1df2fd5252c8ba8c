/**
 * The design document (../shared/reference/package-variant-design.md) and its YAML examples,
 * re-indented in test/fixtures/design-examples/. The copy in shared/ lost its indentation; each
 * fixture names the lines it comes from, and `fixtureMatchesDesign` checks that only the
 * indentation changed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, SHARED } from '../helpers';

export const DESIGN_DOC = join(SHARED, 'reference', 'package-variant-design.md');
export const FIXTURES_DIR = join(REPO_ROOT, 'test', 'fixtures', 'design-examples');

const HEADER = /^# Design example (\d+): package-variant-design\.md lines (\d+)-(\d+)\b/;

export interface DesignExample {
  /** The fixture's file name. */
  readonly file: string;
  /** Its number, in the order the examples appear in the design. */
  readonly number: number;
  /** The design's lines (1-based, inclusive) it re-indents. */
  readonly lines: readonly [number, number];
  /** The example without the fixture's leading comment. */
  readonly text: string;
}

let designLinesCache: string[] | undefined;

/** Lines `from` to `to` (1-based, inclusive) of the design document. */
export function designLines(from: number, to: number): string[] {
  designLinesCache ??= readFileSync(DESIGN_DOC, 'utf8').split('\n');
  return designLinesCache.slice(from - 1, to);
}

/** A fixture: its header says which example it is and where it comes from; the text follows. */
export function readExample(file: string): DesignExample {
  const lines = readFileSync(join(FIXTURES_DIR, file), 'utf8').split('\n');
  const match = HEADER.exec(lines[0] ?? '');
  if (!match) throw new Error(`${file}: the first line must be "# Design example N: package-variant-design.md lines A-B"`);
  const start = lines.findIndex((line) => !line.startsWith('#'));
  return { file, number: Number(match[1]), lines: [Number(match[2]), Number(match[3])], text: lines.slice(start).join('\n') };
}

/** Every fixture, in the design's order. */
export function allExamples(): DesignExample[] {
  return readdirSync(FIXTURES_DIR)
    .filter((file) => file.endsWith('.yaml'))
    .map(readExample)
    .sort((a, b) => a.number - b.number);
}

/** The example's lines and the design's, each without its indentation and blank lines dropped. */
export function comparableLines(example: DesignExample): { fixture: string[]; design: string[] } {
  const strip = (lines: readonly string[]) => lines.map((line) => line.trim()).filter((line) => line !== '');
  return { fixture: strip(example.text.split('\n')), design: strip(designLines(...example.lines)) };
}

/**
 * The rows of a design table (`a | b |` lines, the header and `---|---|` line first) between lines
 * `from` and `to`, each row a list of cells.
 */
export function designTable(from: number, to: number, header: readonly string[]): string[][] {
  const rows = designLines(from, to).map((line) =>
    line
      .split('|')
      .map((cell) => cell.trim())
      .filter((cell) => cell !== ''),
  );
  const [head, rule, ...body] = rows;
  if (JSON.stringify(head) !== JSON.stringify(header) || !rule?.every((cell) => /^-+$/.test(cell))) {
    throw new Error(`lines ${from}-${to} of the design are not a table headed ${header.join(' | ')}`);
  }
  return body;
}
