import fc from 'fast-check';
import { decodeUtf8, encodeText, firstInvalidByte } from '../../src/yaml/utf8';

describe('text from bytes that may not be UTF-8', () => {
  it('valid UTF-8 decodes as usual and has no invalid byte', () => {
    const text = 'name: café 🚀\n';
    expect(decodeUtf8(Buffer.from(text))).toBe(text);
    expect(firstInvalidByte(text)).toBe(-1);
  });

  it('an invalid byte is found where it is, and the bytes come back exactly', () => {
    const bytes = Buffer.concat([Buffer.from('k: "caf'), Buffer.of(0xe9), Buffer.from('"\n')]);
    const text = decodeUtf8(bytes);
    expect(firstInvalidByte(text)).toBe(7);
    expect(encodeText(text).equals(bytes)).toBe(true);
  });

  it('overlong forms, surrogates and cut sequences are invalid, byte by byte', () => {
    for (const bad of [[0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80], [0xff]]) {
      const bytes = Buffer.from([0x61, ...bad, 0x62]);
      const text = decodeUtf8(bytes);
      expect(text.startsWith('a') && text.endsWith('b')).toBe(true);
      expect(firstInvalidByte(text)).toBe(1);
      expect(encodeText(text).equals(bytes)).toBe(true);
    }
  });

  it('any bytes round-trip, and valid UTF-8 decodes as Node decodes it', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (raw) => {
        const bytes = Buffer.from(raw);
        const text = decodeUtf8(bytes);
        expect(encodeText(text).equals(bytes)).toBe(true);
        const valid = Buffer.from(bytes.toString('utf8')).equals(bytes);
        expect(firstInvalidByte(text) === -1).toBe(valid);
        if (valid) expect(text).toBe(bytes.toString('utf8'));
      }),
      { numRuns: 3000 },
    );
  });
});
