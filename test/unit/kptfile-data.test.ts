/** A Kptfile read as kpt reads it into its typed fields: scalars are their text, a plain null is none. */
import { kptfileData, readUpstreamInfo } from '../../src/package/kptfile-upstream';

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
