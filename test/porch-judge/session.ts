/**
 * A scenario under the judge: its repositories registered with Porch's code, each sync planned and
 * written as the sync tests do, then Porch's listing of every repository compared with the plan,
 * the status `--status-out` would write, and the project's own reading. Steps that change the
 * repositories another way (a person's edit, a new upstream revision) are checked against the
 * reading alone. Differences are gathered, not thrown: a scenario reports all of them at its end.
 */
import { join } from 'node:path';
import type { SyncInputs } from '../../src/sync/inputs';
import { planSync, writePlan, type PlanOutcome } from '../../src/sync/run';
import type { SyncSettings } from '../../src/sync/settings';
import { statusText } from '../../src/sync/status';
import { againstDiscovery, againstPlan, againstStatus, differenceText, type Difference } from './compare';
import { porchList, writeRepositories, type JudgedRepository, type PorchListing } from './judge';

export class JudgeSession {
  readonly differences: string[] = [];
  private readonly file: string;
  private readonly cache: string;
  private readonly readOnlyChecked = new Set<string>();

  constructor(
    dir: string,
    readonly repositories: readonly JudgedRepository[],
  ) {
    this.file = writeRepositories(dir, repositories);
    this.cache = join(dir, 'porch-cache');
  }

  /** The file of Porch's Repository objects, and the judge's cache, for writes through Porch. */
  get porch(): { readonly file: string; readonly cache: string } {
    return { file: this.file, cache: this.cache };
  }

  /** Porch's listing now, each repository compared with the project's reading (one only read, the first time). */
  check(step: string): PorchListing {
    const looked = this.repositories.filter((r) => !r.readOnly || !this.readOnlyChecked.has(r.name));
    for (const r of looked) if (r.readOnly) this.readOnlyChecked.add(r.name);
    const listing = porchList(this.file, this.cache, false, looked.map((r) => r.name));
    this.record(step, looked.flatMap((repository) => againstDiscovery(listing, repository)));
    return listing;
  }

  /**
   * One sync, planned and written; then what Porch lists against what it says it wrote. `meddle`
   * runs between the push and the listing: a difference planted behind sync's back.
   */
  async sync(step: string, inputs: SyncInputs, settings: SyncSettings, meddle?: () => void): Promise<PlanOutcome> {
    const outcome = await planSync(inputs, settings);
    const failures = await writePlan(outcome.plan, outcome.remotes);
    meddle?.();
    const refused = new Set(failures.map((f) => f.repository));
    const status = statusText(outcome.variants, outcome.sets, outcome.plan.downstreams, new Map(failures.map((f) => [f.repository, `not pushed: ${f.message}`])));
    const listing = this.check(step);
    const pushed = { ...outcome.plan, writes: outcome.plan.writes.filter((w) => !refused.has(w.repository)), downstreams: outcome.plan.downstreams.filter((d) => ![...refused].some((r) => r.endsWith(`/${d.repository}`))) };
    this.record(step, [...againstPlan(listing, this.repositories, pushed), ...againstStatus(listing, status)]);
    return outcome;
  }

  private record(step: string, differences: readonly Difference[]): void {
    for (const d of differences) this.differences.push(`${step}: ${differenceText(d)}`);
  }
}
