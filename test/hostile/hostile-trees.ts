/** Trees of entries whose names come from a hostile alphabet, for the property tests of what reads trees from git. */
import fc from 'fast-check';
import { PLANTED_JOURNAL, type Entry } from './hostile-repos';
import { configMap } from '../pkg/trees';

const HOSTILE_NAMES = [
  '..',
  '.',
  '.git',
  '.GIT',
  '.gIt',
  '.git.',
  'git~1',
  '.package-variant.journal',
  '.package-variant.lock',
  '.Package-Variant-x-1.new',
  '-rf',
  '--upload-pack=touch pwned',
  'a\nremoved Kptfile',
  'e\x1b[2J',
  'cr\r',
  '../..',
  'x/../..',
  'n'.repeat(300),
  'Kptfile',
  'cm.yaml',
  'docs',
  'notes.txt',
];

const name = fc.constantFrom(...HOSTILE_NAMES);
const content = fc.constantFrom('x\n', configMap('cm', { v: 'evil' }), PLANTED_JOURNAL, '{"pid":1,"host":"elsewhere","started":"then"}\n');
const target = fc.constantFrom('../../..', '../../.ssh/authorized_keys', '/etc', 'cm.yaml');

const { node } = fc.letrec<{ node: Entry }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.record({ name, file: content }),
    fc.record({ name, link: target }),
    fc.record({ name, dir: fc.array(tie('node'), { maxLength: 3 }) }),
  ),
}));
export const hostileTree = fc.array(node, { minLength: 1, maxLength: 5 });
