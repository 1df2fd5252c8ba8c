/**
 * Where `yaml`'s composer files the comment and blank lines around a document's content, from the
 * lines alone: before a node (its resolveProps), before the document's first content (its
 * prelude) and after the last (the document's comment). The tree builder (block-reader.ts) places
 * comments by these rules; test/unit/tree-builder.test.ts holds them to the parser.
 */
import { COMMENT, type Line } from './lines';

/** A comment line's text as `yaml` keeps it: without the `#`, a bare `#` as one space. */
export const commentText = (source: string): string => source.slice(1) || ' ';

/**
 * What `yaml` makes of the comments and line breaks before a node (its resolveProps): blank lines
 * before the first comment mark the node `spaceBefore`, comments are joined by the line breaks
 * between them, and blank lines after a comment add line breaks to it.
 */
export class Props {
  spaceBefore = false;
  comment = '';
  private sep = '';

  constructor(
    private atNewline: boolean,
    /** After a sequence's `-`, blank lines no longer count as space before the node. */
    private afterDash = false,
  ) {}

  /** A comment, `#` and all. */
  addComment(source: string): void {
    const text = commentText(source);
    this.comment = this.comment ? this.comment + this.sep + text : text;
    this.sep = '';
    this.atNewline = false;
  }

  addNewline(): void {
    if (!this.atNewline) this.sep += '\n';
    else if (this.comment) this.comment += '\n';
    else if (!this.afterDash) this.spaceBefore = true;
    this.atNewline = true;
  }

  /** A blank or comment line, with its line break. */
  addLine(line: Line): void {
    if (line.kind === COMMENT) this.addComment(line.content);
    if (line.broken) this.addNewline();
  }

  addLines(lines: readonly Line[]): void {
    for (const line of lines) this.addLine(line);
  }

  dash(): void {
    this.afterDash = true;
    this.atNewline = true;
  }
}

/** What the lines before a node, at the start of a line, make of it. */
export function propsOf(lines: readonly Line[]): Props {
  const props = new Props(true);
  props.addLines(lines);
  return props;
}

/** The comment lines before the document's first content, as `yaml`'s composer reads its prelude. */
export function preludeComment(lines: readonly Line[]): { comment: string; afterEmptyLine: boolean } {
  let comment = '';
  let atComment = false;
  let afterEmptyLine = false;
  // Each line is its tokens: perhaps a comment, and a line break.
  for (const line of lines) {
    if (line.kind === COMMENT) {
      comment += (comment === '' ? '' : afterEmptyLine ? '\n\n' : '\n') + commentText(line.content);
      atComment = true;
      afterEmptyLine = false;
    }
    if (!atComment) afterEmptyLine = true;
    atComment = false;
  }
  return { comment, afterEmptyLine };
}

/** The comments after the document's content, as `yaml` reads the end of a document. */
export function endComment(lines: readonly Line[]): string {
  let comment = '';
  let sep = '';
  for (const line of lines) {
    if (line.kind === COMMENT) {
      const text = commentText(line.content);
      comment = comment ? comment + sep + text : text;
      sep = '';
    }
    if (comment && line.broken) sep += '\n';
  }
  return comment;
}
