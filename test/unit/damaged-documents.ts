/** Real documents with one small edit somewhere: what a fast reader must refuse or read as `yaml` does. */
import fc from 'fast-check';

const EDITS = [' ', '  ', '\n', '\n\n', '- ', ': ', '#', ' #', '\n# c\n', '\n  # c\n', "'", '"', '{', '[', '}', ']', ',', ', ', '|', '|-', '>', '&', '*', '!', ':', '-', '?', 'x', '', '\\', '\\n', '\\u00', '\u00a0', '\u2003', '\u2028'];

/** A document of `sample` with an edit inserted at some offset, replacing up to three characters. */
export function damagedDocument(sample: readonly string[]): fc.Arbitrary<string> {
  return fc.record({ document: fc.constantFrom(...sample), at: fc.nat(), edit: fc.constantFrom(...EDITS), cut: fc.nat({ max: 3 }) }).map(({ document, at, edit, cut }) => {
    const position = at % document.length;
    return document.slice(0, position) + edit + document.slice(position + cut);
  });
}
