/** Label selectors (src/fanout/selector.ts): Kubernetes' matching and validation rules. */
import { selectorMatches, selectorProblems } from '../../src/fanout/selector';
import type { LabelSelector } from '../../src/fanout/types';

const LABELS = { env: 'prod', org: 'hr', region: 'useast1' };

describe('matching', () => {
  it.each<[string, LabelSelector, boolean]>([
    ['{} matches everything', {}, true],
    ['matchLabels, all equal', { matchLabels: { env: 'prod', org: 'hr' } }, true],
    ['matchLabels, one differs', { matchLabels: { env: 'prod', org: 'finance' } }, false],
    ['matchLabels, one missing', { matchLabels: { tier: 'gold' } }, false],
    ['In, value listed', { matchExpressions: [{ key: 'region', operator: 'In', values: ['uswest1', 'useast1'] }] }, true],
    ['In, value not listed', { matchExpressions: [{ key: 'region', operator: 'In', values: ['uswest1'] }] }, false],
    ['In, label missing', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold'] }] }, false],
    ['NotIn, value listed', { matchExpressions: [{ key: 'org', operator: 'NotIn', values: ['hr'] }] }, false],
    ['NotIn, value not listed', { matchExpressions: [{ key: 'org', operator: 'NotIn', values: ['finance'] }] }, true],
    ['NotIn, label missing', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['gold'] }] }, true],
    ['Exists', { matchExpressions: [{ key: 'env', operator: 'Exists' }] }, true],
    ['Exists, missing', { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, false],
    ['DoesNotExist', { matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, true],
    ['DoesNotExist, present', { matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] }, false],
    [
      'matchLabels and matchExpressions are ANDed',
      { matchLabels: { env: 'prod' }, matchExpressions: [{ key: 'org', operator: 'In', values: ['finance'] }] },
      false,
    ],
  ])('%s', (_name, selector, expected) => {
    expect(selectorMatches(selector, LABELS)).toBe(expected);
  });

  it('compares a label value written as a YAML number as its string', () => {
    expect(selectorMatches({ matchLabels: { replicas: '3' } }, { replicas: 3 })).toBe(true);
  });

  it('does not see inherited properties as labels', () => {
    expect(selectorMatches({ matchExpressions: [{ key: 'toString', operator: 'Exists' }] }, {})).toBe(false);
  });
});

describe('validation', () => {
  const at = 'spec.targets[0].repositorySelector';

  it('accepts valid selectors', () => {
    expect(
      selectorProblems(
        {
          matchLabels: { 'app.kubernetes.io/name': 'web', env: '', 'a_b.c-d': 'X.y_z-1' },
          matchExpressions: [
            { key: 'example.com/tier', operator: 'In', values: ['gold', ''] },
            { key: 'env', operator: 'Exists' },
          ],
        },
        at,
      ),
    ).toEqual([]);
  });

  it.each<[string, LabelSelector, { field: string; message: string }[]]>([
    [
      'a key with a space',
      { matchLabels: { 'bad key': 'x' } },
      [{ field: `${at}.matchLabels.bad key`, message: expect.stringContaining('invalid label key "bad key": name part must consist of alphanumeric characters') }],
    ],
    [
      'a key with an upper-case prefix',
      { matchLabels: { 'Example.com/x': 'y' } },
      [{ field: `${at}.matchLabels.Example.com/x`, message: 'invalid label key "Example.com/x": prefix part must be a lowercase RFC 1123 subdomain of at most 253 characters' }],
    ],
    ['a key with two slashes', { matchLabels: { 'a/b/c': 'y' } }, [{ field: `${at}.matchLabels.a/b/c`, message: expect.stringContaining('at most one') }]],
    [
      'a name part over 63 characters',
      { matchLabels: { ['k'.repeat(64)]: 'y' } },
      [{ field: `${at}.matchLabels.${'k'.repeat(64)}`, message: expect.stringContaining('name part must be no more than 63 characters') }],
    ],
    [
      'a value with a slash',
      { matchLabels: { env: 'prod/eu' } },
      [{ field: `${at}.matchLabels.env`, message: expect.stringContaining('invalid label value "prod/eu": a valid label must be an empty string or') }],
    ],
    [
      'In without values',
      { matchExpressions: [{ key: 'env', operator: 'In', values: [] }] },
      [{ field: `${at}.matchExpressions[0].values`, message: 'values must be specified when operator is "In" or "NotIn"' }],
    ],
    [
      'Exists with values',
      { matchExpressions: [{ key: 'env', operator: 'Exists', values: ['prod'] }] },
      [{ field: `${at}.matchExpressions[0].values`, message: 'values may not be specified when operator is "Exists" or "DoesNotExist"' }],
    ],
    [
      'an invalid value among In values',
      { matchExpressions: [{ key: 'env', operator: 'In', values: ['ok', '-bad'] }] },
      [{ field: `${at}.matchExpressions[0].values[1]`, message: expect.stringContaining('invalid label value "-bad"') }],
    ],
    ['an empty key', { matchExpressions: [{ key: '', operator: 'Exists' }] }, [{ field: `${at}.matchExpressions[0].key`, message: 'invalid label key "": name part must be non-empty' }]],
  ])('rejects %s', (_name, selector, problems) => {
    expect(selectorProblems(selector, at)).toEqual(problems);
  });
});
