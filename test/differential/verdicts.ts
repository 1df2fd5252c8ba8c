/** One differential case's verdict, and the summary a suite prints once. */
export interface Verdict {
  outcome: 'equal' | 'both refused' | 'deviations' | 'failed';
  deviations: Set<string>;
  problems: string[];
}

/** `<label>: N cases: ... equal, ...`, then the cases per deviation, most frequent first. */
export function summaryLines(label: string, verdicts: ReadonlyMap<string, Verdict>): string[] {
  const all = [...verdicts.values()];
  const count = (o: Verdict['outcome']) => all.filter((v) => v.outcome === o).length;
  const perDeviation = new Map<string, number>();
  for (const v of all) for (const d of v.deviations) perDeviation.set(d, (perDeviation.get(d) ?? 0) + 1);
  return [
    `${label}: ${all.length} cases: ${count('equal')} equal, ${count('both refused')} refused by both, ${count('deviations')} differing only by listed deviations, ${count('failed')} failed`,
    ...[...perDeviation].sort((a, b) => b[1] - a[1]).map(([d, n]) => `  ${String(n).padStart(4)} cases: ${d}`),
  ];
}
