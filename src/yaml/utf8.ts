/**
 * Bytes as text without losing any. Valid UTF-8 decodes as usual. In invalid input each byte that is
 * not part of a well-formed sequence becomes a lone low surrogate, U+DC80 to U+DCFF (Python's
 * "surrogateescape"), which no valid UTF-8 decodes to: `encodeText` then gives back the very bytes,
 * and `firstInvalidByte` finds where the input stopped being UTF-8. Text that reaches the parser
 * this way is read like any other; only re-rendering it would be lossy, and callers refuse that.
 */
import { isUtf8 } from 'node:buffer';

const ESCAPED = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;
const ESCAPED_ALL = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/g;

/** The length of the well-formed UTF-8 sequence at `at` (Unicode table 3-7), or 0. */
function sequenceLength(bytes: Uint8Array, at: number): number {
  const first = bytes[at]!;
  if (first < 0x80) return 1;
  const continuation = (offset: number, low = 0x80, high = 0xbf) => {
    const byte = bytes[at + offset];
    return byte !== undefined && byte >= low && byte <= high;
  };
  if (first >= 0xc2 && first <= 0xdf) return continuation(1) ? 2 : 0;
  if (first >= 0xe0 && first <= 0xef) {
    const low = first === 0xe0 ? 0xa0 : 0x80;
    const high = first === 0xed ? 0x9f : 0xbf;
    return continuation(1, low, high) && continuation(2) ? 3 : 0;
  }
  if (first >= 0xf0 && first <= 0xf4) {
    const low = first === 0xf0 ? 0x90 : 0x80;
    const high = first === 0xf4 ? 0x8f : 0xbf;
    return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}

export function decodeUtf8(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isUtf8(buffer)) return buffer.toString('utf8');
  const parts: string[] = [];
  let runStart = 0;
  let at = 0;
  while (at < buffer.length) {
    const length = sequenceLength(buffer, at);
    if (length > 0) {
      at += length;
      continue;
    }
    parts.push(buffer.toString('utf8', runStart, at), String.fromCharCode(0xdc00 + buffer[at]!));
    at += 1;
    runStart = at;
  }
  parts.push(buffer.toString('utf8', runStart));
  return parts.join('');
}

/** The text's bytes, escaped bytes restored. */
export function encodeText(text: string): Buffer {
  if (!ESCAPED.test(text)) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  let from = 0;
  for (const match of text.matchAll(ESCAPED_ALL)) {
    parts.push(Buffer.from(text.slice(from, match.index), 'utf8'), Buffer.of(match[0].charCodeAt(0) - 0xdc00));
    from = match.index! + 1;
  }
  parts.push(Buffer.from(text.slice(from), 'utf8'));
  return Buffer.concat(parts);
}

/** The offset in `text` of the first byte that was not UTF-8, or -1. */
export function firstInvalidByte(text: string): number {
  return text.search(ESCAPED);
}
