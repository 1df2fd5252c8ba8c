// The bounds on a run's whole input, apart from the checks that use them (input-limits.ts): the
// entry reads stdin within them, and must not load `yaml` to know them (a no-op run never does).

/**
 * The largest ResourceList the function reads: 64 MiB in at most 2,500,000 lines and flow entries
 * (yaml/text-units.ts), room for a fleet of 100,000 Repositories as kpt sends them. Memory grows
 * with both (a few hundred bytes a line or item, read by the fast reader); what it costs beyond that
 * is bounded where it is spent: the full YAML parser's share (yaml/parse-budget.ts), objects
 * (below), PackageVariants (fanout/targets.ts). The worst inputs measured at these limits are in the
 * README ("Safety"). Input beyond them is counted, not kept, and refused. sync's input files share
 * them (sync/input-documents.ts).
 */
export const MAX_INPUT_BYTES = 64 * 1024 * 1024;
export const MAX_INPUT_UNITS = 2_500_000;

/**
 * The most objects a run reads: items and the objects of a functionConfig List together. Each costs
 * a few hundred bytes however short its text (README "Safety"), which the bound on lines alone
 * would let grow past a function runner's memory.
 */
export const MAX_INPUT_OBJECTS = 1_000_000;
