/** Which schema describes a resource: a CRD among the items, then the built-in table, then none. */
import { builtinRoot } from './builtin';
import { KPTFILE_SCHEMA } from './kptfile';
import type { ObjectSchema } from './types';

export class SchemaRegistry {
  constructor(private readonly crds: ReadonlyMap<string, ObjectSchema>) {}

  rootFor(group: string, kind: string): ObjectSchema | undefined {
    if (group === 'kpt.dev' && kind === 'Kptfile') return KPTFILE_SCHEMA;
    return this.crds.get(`${group}/${kind}`) ?? builtinRoot(group, kind);
  }
}
