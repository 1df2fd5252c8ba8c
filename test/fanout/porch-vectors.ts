/** Reading Porch's PackageVariantSet test vectors (../shared/conformance/porch, see its README). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { SHARED } from '../helpers';

const DIR = join(SHARED, 'conformance', 'porch');

export interface Vector<Inputs, Expected> {
  name: string;
  inputs: Inputs;
  expected: Expected;
}

/** Every vector whose file name starts with `prefix`, sorted by file name. */
export function vectors<Inputs, Expected>(prefix: string): Vector<Inputs, Expected>[] {
  return readdirSync(DIR)
    .filter((file) => file.startsWith(prefix) && file.endsWith('.yaml'))
    .sort()
    .map((file) => parse(readFileSync(join(DIR, file), 'utf8')) as Vector<Inputs, Expected>);
}
