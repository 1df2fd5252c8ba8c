/** Names of generated PackageVariants (src/fanout/naming.ts), against Porch's TestEnsurePackageVariants. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { isValidObjectName, ownerLabelValue, variantIdentity, variantName } from '../../src/fanout/naming';
import { SHARED } from '../helpers';

const vector = parse(readFileSync(join(SHARED, 'conformance', 'porch', 'pvs-ensure-create-update-delete-and-long-name-hash.yaml'), 'utf8')) as {
  inputs: { packageVariantSet: { metadata: { name: string } }; downstreams: { repoDefault: string; packageDefault: string }[] };
  expected: { updated: string[]; created: string[] };
};

describe('PackageVariant names', () => {
  it("are Porch's: <set>-<repo>-<package>, hashed past 63 characters (pvs-ensure vector)", () => {
    const setName = vector.inputs.packageVariantSet.metadata.name;
    const names = vector.inputs.downstreams.map((d) => variantName(variantIdentity(setName, d.repoDefault, d.packageDefault)));
    expect(names).toEqual([...vector.expected.updated, ...vector.expected.created]);
  });

  it('keep 63 characters as they are and shorten 64 to 54 + "-" + 8 hex digits of the SHA-1', () => {
    const at63 = `s-r-${'p'.repeat(59)}`;
    expect(variantName(at63)).toBe(at63);
    const at64 = `${at63}q`;
    const shortened = variantName(at64);
    expect(shortened).toHaveLength(63);
    expect(shortened).toMatch(new RegExp(`^${at64.slice(0, 54)}-[0-9a-f]{8}$`));
  });

  it('are not sanitised, as in Porch: an invalid one is detected instead', () => {
    expect(variantName(variantIdentity('set', 'Cluster-01', 'nested/pkg'))).toBe('set-Cluster-01-nested/pkg');
    expect(isValidObjectName('set-Cluster-01-nested/pkg')).toBe(false);
    expect(isValidObjectName('set-cluster-01.eu-pkg')).toBe(true);
    expect(isValidObjectName('set-r-')).toBe(false);
  });
});

describe('the owner label', () => {
  it("is the set's name, shortened like a name when longer than a label value may be", () => {
    expect(ownerLabelValue('fleet-set')).toBe('fleet-set');
    const long = 'x'.repeat(70);
    expect(ownerLabelValue(long)).toMatch(/^x{54}-[0-9a-f]{8}$/);
  });
});
