/**
 * An update reads each text once (issue 29): origin, upstream and local share most files, so a file
 * with the same bytes in several versions is decoded once, and a document with the same text at the
 * same place is scanned for its identity once.
 */
import { readKrmVersions } from '../../src/merge/package/krm-merge';
import { configMap, kptfile, tree } from '../pkg/trees';

jest.mock('../../src/krm/identity-scan', () => {
  const actual = jest.requireActual('../../src/krm/identity-scan');
  return { ...actual, scanIdentity: jest.fn(actual.scanIdentity) };
});
jest.mock('../../src/yaml/utf8', () => {
  const actual = jest.requireActual('../../src/yaml/utf8');
  return { ...actual, decodeUtf8: jest.fn(actual.decodeUtf8) };
});

const { scanIdentity } = jest.requireMock('../../src/krm/identity-scan') as { scanIdentity: jest.Mock };
const { decodeUtf8 } = jest.requireMock('../../src/yaml/utf8') as { decodeUtf8: jest.Mock };

const two = (a: string, b: string) => `${configMap(a, { v: '1' })}---\n${configMap(b, { v: '1' })}`;
const origin = { Kptfile: kptfile('pkg'), 'same.yaml': configMap('same', { v: '1' }), 'pair.yaml': two('a', 'b'), 'up.yaml': configMap('up', { v: '1' }) };
// Upstream changes up.yaml and the second document of pair.yaml; local changes nothing.
const upstream = { ...origin, 'pair.yaml': `${configMap('a', { v: '1' })}---\n${configMap('b', { v: '2' })}`, 'up.yaml': configMap('up', { v: '2' }) };

beforeEach(() => {
  scanIdentity.mockClear();
  decodeUtf8.mockClear();
});

describe('the versions of a package read once', () => {
  it('decodes each distinct file once: 4 files of local, 2 more of upstream', () => {
    readKrmVersions(tree(origin), tree(origin), tree(upstream));
    expect(decodeUtf8).toHaveBeenCalledTimes(6);
  });

  it('scans each distinct text at a place once, whichever version asks first', () => {
    const versions = readKrmVersions(tree(origin), tree(origin), tree(upstream));
    const scanned = [versions.local, versions.origin, versions.upstream].flatMap((files) => files.documents.map((doc) => versions.scan(doc)));
    // Local's 5 documents, and upstream's changed document of pair.yaml and its up.yaml.
    expect(scanIdentity).toHaveBeenCalledTimes(7);
    expect(scanned.filter((outcome) => outcome?.krm).map((outcome) => outcome!.krm && outcome!.name)).toEqual(['pkg', 'a', 'b', 'same', 'up', 'pkg', 'a', 'b', 'same', 'up', 'pkg', 'a', 'b', 'same', 'up']);
  });

  it('still tells apart a document whose text differs from the one at its place in an earlier version', () => {
    const versions = readKrmVersions(tree(origin), tree(origin), tree({ ...upstream, 'up.yaml': configMap('renamed', { v: '2' }) }));
    const up = versions.upstream.documents.find((doc) => doc.path === 'up.yaml')!;
    expect(versions.scan(up)).toMatchObject({ krm: true, name: 'renamed' });
  });
});
