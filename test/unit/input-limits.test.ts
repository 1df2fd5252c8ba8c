/** The bound on single strings (src/krm/input-limits.ts), with a small limit to keep inputs small. */
import { oversizedScalars } from '../../src/krm/input-limits';
import { parseResourceList } from '../../src/krm/resource-list';
import { resourceList } from '../helpers';

const LIMIT = 10;
const LONG = 'x'.repeat(LIMIT + 1);

function check(items: string[], functionConfig?: string) {
  const text = resourceList(items, functionConfig);
  const list = parseResourceList(text);
  return oversizedScalars(list.items, list.functionConfig, text.length, LIMIT).map((r) => [r.message, r.field?.path]);
}

describe('a string over the limit', () => {
  it('is found anywhere in an item read as plain data, and its path is spelt out', () => {
    const pod = `apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: app\n    args: [a, ${LONG}]\n`;
    expect(check([pod])).toEqual([[`items[0] (Pod p): the string at spec.containers[0].args[1] is 11 characters; the function works on strings of at most 10 (see "Safety" in the README)`, 'spec.containers[0].args[1]']]);
  });

  it('and in an item only the YAML parser reads (anchors), with keys that are not plain words quoted', () => {
    const anchored = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a.b: &x ${LONG}\n  c: *x\n`;
    expect(check([anchored])).toEqual([[expect.stringContaining('the string at data["a.b"] is 11 characters'), 'data["a.b"]']]);
  });

  it('as a key, names the map that holds it', () => {
    expect(check([`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  ${LONG}: v\n`])).toEqual([[expect.stringContaining('items[0] (ConfigMap c): a key in data is 11 characters'), 'data']]);
  });

  it('in the functionConfig, and in a plain YAML file that is not a KRM object', () => {
    const config = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: options\ndata:\n  note: ${LONG}\n`;
    expect(check([`plain: ${LONG}\n`], config).map(([message]) => message)).toEqual([
      expect.stringMatching(/^items\[0\]: the string at plain is 11/),
      expect.stringMatching(/^functionConfig \(ConfigMap options\): the string at data\.note is 11/),
    ]);
  });

  it('cannot be in an input no longer than the limit, which is not walked', () => {
    const list = parseResourceList(resourceList([`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: ${LONG}\n`]));
    expect(oversizedScalars(list.items, list.functionConfig, LIMIT, LIMIT)).toEqual([]);
  });
});
