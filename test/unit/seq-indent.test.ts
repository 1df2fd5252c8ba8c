import { deriveSeqIndent } from '../../src/yaml/seq-indent';

const doc = (...lines: string[]) => `${lines.join('\n')}\n`;

describe('deriveSeqIndent decides as kpt does (kyaml DeriveSeqIndentStyle)', () => {
  it.each([
    ['a sequence two columns under its key is wide', doc('kind: Role', 'rules:', '  - verbs:', '      - get'), 'wide'],
    ['a sequence at its key\'s column is compact', doc('kind: Role', 'rules:', '- verbs:', '  - get'), 'compact'],
    ['the first sequence decides, wide first', doc('a:', '    b:', '      - x', 'c:', '- y'), 'wide'],
    ['the first sequence decides, compact first', doc('a:', '- x', 'c:', '  - y', '  - z'), 'compact'],
    ['comment lines between key and sequence are skipped', doc('spec:', '  ports: # the ports', '    # http first', '    - name: http'), 'wide'],
    ['a literal block that looks like a sequence is not one', doc('script: |', '  - not a list', 'items:', '  - real'), 'wide'],
    ['a line with a value above `- ` is not its parent', doc('k: v', '- x', 'list:', '  - y'), 'wide'],
    ['`- ` inside a value is not a sequence', doc('text: a - b', 'list:', '  - y'), 'wide'],
    ['a blank line between key and sequence hides it', doc('a:', '', '  - x', 'b:', '- y'), 'compact'],
    ['an offset other than 0 or 2 is skipped', doc('a:', '    - x', 'b:', '  - y'), 'wide'],
    ['a nested sequence under a sequence entry counts', doc('spec:', '  foo:', '    - - a'), 'wide'],
    ['no sequence at all is compact', doc('kind: ConfigMap', 'data:', '  a: b'), 'compact'],
    ['CRLF line endings are read as kpt reads them', 'list:\r\n  - a\r\n', 'wide'],
  ] as const)('%s', (_, text, style) => {
    expect(deriveSeqIndent(text)).toBe(style);
  });
});
