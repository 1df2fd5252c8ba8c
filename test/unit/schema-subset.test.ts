/**
 * The schema walk for CRD schemas (src/variant/schema-subset.ts) must give exactly what ajv gives,
 * configured as crd-schema.ts configures it: the same errors in the same order, for every schema it
 * takes; and it must take the structural schemas CRDs are made of.
 */
import fc from 'fast-check';
import { newCrdAjv } from '../../src/variant/crd-schema';
import { compileSubset, type SchemaError } from '../../src/variant/schema-subset';

const SEED = 20261124;

const ajv = newCrdAjv();

function ajvErrors(schema: Record<string, unknown>, value: unknown): SchemaError[] | 'does not compile' {
  let validate;
  try {
    validate = ajv.compile(schema);
  } catch {
    return 'does not compile';
  }
  return validate(value) ? [] : validate.errors!.map(({ keyword, instancePath, params, message }) => ({ keyword, instancePath, params, message: message! }));
}

const names = fc.constantFrom('a', 'b', 'size', 'chargeCode', 'x/y', 'm~n', 'constructor');
const types = fc.constantFrom('string', 'number', 'integer', 'boolean', 'object', 'array', 'null');
/** `arbitrary` one time in `odds`, else null. */
const rarely = <T>(arbitrary: fc.Arbitrary<T>, odds: number) => fc.oneof({ arbitrary: fc.constant(null), weight: odds - 1 }, { arbitrary, weight: 1 });
/** Each keyword now and then, most with arguments ajv takes, some with ones it refuses. */
const sometimes = (arbitraries: Record<string, fc.Arbitrary<unknown>>) =>
  fc.tuple(...Object.entries(arbitraries).map(([key, arbitrary]) => rarely(arbitrary.map((argument) => [key, argument] as const), 6))).map((entries) => Object.fromEntries(entries.filter((entry) => entry !== null)));
const annotations = sometimes({ description: fc.constant('d'), format: fc.constantFrom('int32', 'byte', 'date-time'), default: fc.constant(1), 'x-kubernetes-int-or-string': fc.constant(true), 'x-kubernetes-preserve-unknown-fields': fc.constant(true) });
const limits = sometimes({
  minimum: fc.integer({ min: -3, max: 3 }),
  maximum: fc.oneof(fc.integer({ min: -3, max: 5 }), fc.constant(2.5)),
  exclusiveMinimum: fc.integer({ min: -3, max: 3 }),
  exclusiveMaximum: fc.integer({ min: -3, max: 3 }),
  multipleOf: fc.constantFrom(1, 2, 0.5, 0.5, 0, -1),
  minLength: fc.constantFrom(0, 1, 3, 1, -1),
  maxLength: fc.constantFrom(0, 2, 5, 2, 1.5),
  pattern: fc.constantFrom('^[a-z]+-[0-9]+$', '^a', '[0-9]', '^$', '\\p{L}', 'é', '('),
  minItems: fc.constantFrom(0, 1, 2),
  maxItems: fc.constantFrom(0, 1, 3),
  minProperties: fc.constantFrom(0, 1, 2),
  maxProperties: fc.constantFrom(0, 1, 3),
  enum: fc.constantFrom(['a', 'b'], [1, 2.5, null], [{ a: 1 }, [1]], [0], []),
  required: fc.array(names, { maxLength: 3 }),
  nullable: fc.boolean(),
});
/** Schemas mostly inside the subset, and now and then beyond it (which the walk must leave to ajv). */
const { schema } = fc.letrec((tie) => ({
  schema: fc
    .tuple(
      fc.oneof(fc.constant(undefined), types, fc.constantFrom(['string', 'null'], ['object', 'array'], ['number', 'string'], 'int')),
      limits,
      annotations,
      rarely(fc.dictionary(names, tie('schema') as fc.Arbitrary<Record<string, unknown>>, { maxKeys: 3 }), 2),
      rarely(fc.oneof(fc.boolean(), tie('schema')), 4),
      rarely(tie('schema'), 4),
      rarely(fc.constantFrom({ anyOf: [{ type: 'string' }] }, { readOnly: true }, { unknownKeyword: 1 }, { patternProperties: { '^a': {} } }), 10),
    )
    .map(([type, limit, annotation, properties, additional, items, beyond]) => ({
      ...(type !== undefined ? { type } : {}),
      ...limit,
      ...annotation,
      ...(properties ? { properties } : {}),
      ...(additional !== null ? { additionalProperties: additional } : {}),
      ...(items ? { items } : {}),
      ...(beyond ?? {}),
    })),
}));
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('a', 'abc', 'shop-1', 'none-0', '', 'é', '😀x', 'a-1'),
    fc.constantFrom(0, -0, 1, 2, 3, 2.5, -1, 1e21, 0.1),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(names, tie('value'), { maxKeys: 3 }),
  ),
}));

describe('the schema walk for CRD schemas', () => {
  it('gives ajv\'s errors, in ajv\'s order, for every schema it takes', () => {
    let taken = 0;
    let invalid = 0;
    fc.assert(
      fc.property(schema, fc.array(value, { minLength: 1, maxLength: 4 }), (written, values) => {
        const check = compileSubset(written);
        if (!check) return;
        taken += 1;
        for (const data of values) {
          const walked = check(data);
          if (walked.length > 0) invalid += 1;
          expect({ written, data, errors: walked }).toEqual({ written, data, errors: ajvErrors(written, data) });
        }
      }),
      { seed: SEED, numRuns: 3000 },
    );
    expect(taken).toBeGreaterThan(500);
    expect(invalid).toBeGreaterThan(500);
  });

  it('takes a structural schema as CRDs write it, and leaves composition and unknown keywords to ajv', () => {
    const structural = {
      type: 'object',
      required: ['chargeCode'],
      properties: {
        chargeCode: { type: 'string', pattern: '^[a-z]+-[0-9]+$' },
        size: { type: 'integer', exclusiveMinimum: 1, format: 'int32' },
        members: { type: 'array', items: { type: 'string' } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        port: { 'x-kubernetes-int-or-string': true },
      },
    };
    expect(compileSubset(structural)!({ chargeCode: 'payments', size: 1, members: 'x', labels: { a: 1 } })).toEqual(ajvErrors(structural, { chargeCode: 'payments', size: 1, members: 'x', labels: { a: 1 } }));
    expect(compileSubset({ anyOf: [{ type: 'string' }] })).toBeUndefined();
    expect(compileSubset({ type: 'object', 'x-custom': true })).toBeUndefined();
  });
});
