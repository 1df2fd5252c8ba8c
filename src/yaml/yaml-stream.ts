/**
 * A YAML file as a stream of documents with the exact text around them, so that rewriting one
 * document leaves every other byte of the file as it was: `---` lines and their comments, comments
 * between documents, `%YAML` directives, line endings.
 *
 * Documents are separated as kpt separates them: a `---` line at column 0 (block content is always
 * indented, so such a line is a marker); `...` and directive lines are markers too. Text between
 * markers that holds only comments and blank lines is not a document; it stays where it is.
 */
import type { YamlVersion } from './yaml-format';

export interface StreamDocument {
  /** The document's own text, from the line after its marker to the next marker line. */
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /** The YAML version a `%YAML` directive before it gives. */
  readonly version?: YamlVersion;
  /** Where the marker lines that open it (`%YAML 1.1`, `---`) start; `start` when there are none. */
  readonly headerStart: number;
}

const MARKER = /^(?:---|\.\.\.)[ \t]*(?:#.*)?$|^%/;
const YAML_DIRECTIVE = /^%YAML[ \t]+(1\.\d+)/;

interface Line {
  readonly start: number;
  /** Without its line break. */
  readonly text: string;
  readonly end: number;
}

function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline + 1;
    lines.push({ start, text: text.slice(start, newline === -1 ? end : newline).replace(/\r$/, ''), end });
    start = end;
  }
  return lines;
}

const isQuiet = (line: Line) => line.text.trim() === '' || line.text.trimStart().startsWith('#');

/** A line that may be a marker, and line breaks other than `\n`: where the line walk below is needed. */
const NEEDS_WALK = /^(?:---|\.\.\.|%)|[\r\u2028\u2029]/m;
/** A line with something on it besides white space and a comment. */
const CONTENT_LINE = /^[^\S\n]*[^\s#]/m;

export function splitYamlStream(text: string): StreamDocument[] {
  // Most files are one document without markers: the whole text, when it holds anything.
  if (!NEEDS_WALK.test(text)) return CONTENT_LINE.test(text) ? [{ text, start: 0, end: text.length, headerStart: 0 }] : [];
  return walkYamlStream(text);
}

/** The documents of any text, line by line. */
export function walkYamlStream(text: string): StreamDocument[] {
  const documents: StreamDocument[] = [];
  let part: Line[] = [];
  let header: Line[] = [];
  let version: YamlVersion | undefined;
  const close = () => {
    if (part.some((line) => !isQuiet(line))) {
      const start = part[0]!.start;
      const end = part[part.length - 1]!.end;
      documents.push({ text: text.slice(start, end), start, end, headerStart: header[0]?.start ?? start, ...(version ? { version } : {}) });
      version = undefined;
      header = [];
    }
    part = [];
  };
  for (const line of linesOf(text)) {
    if (!MARKER.test(line.text)) {
      part.push(line);
      continue;
    }
    close();
    // The markers right before a document open it; comments between them and earlier markers do not.
    if (header.length > 0 && header[header.length - 1]!.end !== line.start) header = [];
    header.push(line);
    const directive = YAML_DIRECTIVE.exec(line.text);
    if (directive) version = directive[1] === '1.1' ? '1.1' : '1.2';
  }
  close();
  return documents;
}

/** What becomes of one document: kept (undefined), rewritten (its new text, with `\n`), or removed (null). */
export type DocumentFate = string | null | undefined;

function lineEndingOf(text: string): '\n' | '\r\n' {
  const newline = text.indexOf('\n');
  return newline > 0 && text[newline - 1] === '\r' ? '\r\n' : '\n';
}

function withLineEnding(text: string, eol: string): string {
  return eol === '\n' ? text : text.replace(/\r?\n/g, eol);
}

const NOTHING_BEFORE: ReadonlyMap<number, readonly string[]> = new Map();

/**
 * The file with its documents' fates applied, `appended` documents (texts with `\n`) added after the
 * last one and `before` ones (by the index of the document they go before) in their places;
 * undefined when no document is left. Rewritten documents keep the line ending they had, new ones
 * take the file's. A document that opened the file without a marker gets one when others now come
 * first; one whose directives follow a new document, the end marker `...` before them.
 */
export function joinYamlStream(
  text: string,
  documents: readonly StreamDocument[],
  fates: ReadonlyMap<StreamDocument, DocumentFate>,
  appended: readonly string[],
  before: ReadonlyMap<number, readonly string[]> = NOTHING_BEFORE,
): string | undefined {
  const fileEol = lineEndingOf(text);
  let out = '';
  let at = 0;
  let kept = 0;
  const add = (added: string) => {
    if (out !== '' && !out.endsWith('\n')) out += fileEol;
    if (kept > 0) out += `---${fileEol}`;
    out += withLineEnding(added, fileEol);
    kept += 1;
  };
  documents.forEach((doc, i) => {
    const fate = fates.get(doc);
    out += text.slice(at, doc.headerStart);
    const inserted = before.get(i) ?? [];
    inserted.forEach(add);
    if (fate !== null) {
      const header = text.slice(doc.headerStart, doc.start);
      if (kept > 0 && header === '') out += `---${fileEol}`;
      else if (inserted.length > 0 && header.startsWith('%')) out += `...${fileEol}`;
      out += fate === undefined ? text.slice(doc.headerStart, doc.end) : header + withLineEnding(fate, doc.text.includes('\n') ? lineEndingOf(doc.text) : fileEol);
      kept += 1;
    }
    at = doc.end;
  });
  if (kept === 0 && appended.length === 0) return undefined;
  // A file of no document (comments only) keeps its text before what is added.
  if (documents.length === 0) {
    out = text;
    at = text.length;
  }
  appended.forEach(add);
  return out + text.slice(at);
}
