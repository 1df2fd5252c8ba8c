/**
 * `package-variant rpkg VERB`: porchctl's `rpkg` commands over the git repositories a fleet's
 * Repository objects name. `get` lists their package revisions; `propose`, `approve`, `reject` and
 * `propose-delete` move the revisions named (or with --all, every one a variant owns) as Porch
 * does, planned whole, then pushed one repository at a time, atomically.
 */
import type { GitTimeouts } from '../git/run-git';
import { withoutCredentials } from '../git/remote-url';
import { InputError, readSyncInputs } from '../sync/inputs';
import { Repositories } from '../sync/opened';
import { planOutcome } from '../sync/plan';
import { gitRemotes } from '../sync/remotes';
import { readRepositories, RepositoryObjectError } from '../sync/repositories';
import { listRevisions, planVerb, VerbError, type RevisionRow, type Verb } from '../sync/revisions';
import { writePlan } from '../sync/run';
import { gitTimeouts } from './git-options';
import { Report } from './report';
import { printPlan, SYNC_EXIT } from './sync';

export interface RpkgArguments {
  verb: string;
  /** PackageRevision names, as `rpkg get` shows them. */
  names: string[];
  /** The fleet: files or directories holding its Repository objects (`-f`). */
  paths: string[];
  all?: boolean;
  dryRun?: boolean;
  diff?: boolean;
  gitTimeout?: string;
  gitStallTimeout?: string;
}

const VERBS: readonly string[] = ['get', 'propose', 'approve', 'reject', 'propose-delete'];

export function checkRpkgArguments(args: RpkgArguments): string | undefined {
  if (!VERBS.includes(args.verb)) return args.verb ? `unknown rpkg command "${args.verb}": one of ${VERBS.join(', ')}` : `a command: one of ${VERBS.join(', ')}`;
  if (args.paths.length === 0) return '-f PATH: the files or directories that hold the fleet\'s Repository objects';
  if (args.verb === 'get') {
    if (args.all || args.dryRun || args.diff) return '--all, --dry-run and --diff go with the commands that write; get only lists';
  } else if ((args.all === true) === (args.names.length > 0)) return `${args.verb} takes package revision names (as rpkg get lists them) or --all, one of the two`;
  const timeouts = gitTimeouts(args, process.env);
  return typeof timeouts === 'string' ? timeouts : undefined;
}

/** porchctl's columns, and the upstream revision each records. */
function table(rows: readonly RevisionRow[]): string[] {
  const header = ['NAME', 'PACKAGE', 'WORKSPACENAME', 'REVISION', 'LATEST', 'LIFECYCLE', 'REPOSITORY', 'UPSTREAM'];
  const cells = rows.map((row) => [row.name, row.pkg, row.workspace, String(row.revision), String(row.latest), row.lifecycle, row.repository.name, row.at.kptfile?.lock?.ref ?? '']);
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((cell) => cell[i]!.length)));
  return [header, ...cells].map((cell) => cell.map((text, i) => text.padEnd(widths[i]!)).join('   ').trimEnd());
}

export async function runRpkgCommand(args: RpkgArguments): Promise<number> {
  const report = new Report(`package-variant rpkg ${args.verb}`);
  let code: number;
  try {
    const repositories = [...readRepositories(readSyncInputs(args.paths).repositories).values()];
    const opened = new Repositories({ lifecycle: 'draft', diff: args.diff === true, open: gitRemotes({ env: process.env, timeouts: gitTimeouts(args, process.env) as GitTimeouts, notify: report.say }) });
    const listing = await listRevisions(repositories, opened);
    for (const problem of listing.problems) report.say(problem);
    if (args.verb === 'get') {
      for (const line of table(listing.rows)) report.line(1, line);
      code = listing.problems.length ? SYNC_EXIT.error : SYNC_EXIT.nothingToDo;
    } else {
      const plan = await planVerb(args.verb as Verb, listing, args.all ? 'all' : args.names, args.diff === true);
      printPlan(report, plan, new Map(repositories.map((r) => [r.name, withoutCredentials(r.url)])), args);
      code = planOutcome(plan) === 'changes' ? SYNC_EXIT.changes : SYNC_EXIT.nothingToDo;
      if (args.dryRun || args.diff) report.say('dry run: nothing was pushed');
      else if (plan.writes.length) {
        const failures = await writePlan(plan, await opened.all());
        for (const failure of failures) report.say(failure.message);
        report.say(`pushed ${plan.writes.length - failures.length} of ${plan.writes.length} ${plan.writes.length === 1 ? 'repository' : 'repositories'}`);
        if (failures.length) code = SYNC_EXIT.error;
      }
      if (listing.problems.length) code = SYNC_EXIT.error;
    }
  } catch (error) {
    if (error instanceof InputError || error instanceof RepositoryObjectError || error instanceof VerbError) {
      report.say(error.message);
      if (args.verb !== 'get') report.say('nothing was pushed');
      return SYNC_EXIT.error;
    }
    const message = error instanceof Error ? error.message : String(error);
    if (process.env.PACKAGE_VARIANT_DEBUG && error instanceof Error && error.stack) report.text(2, `${error.stack}\n`);
    report.say(`internal error: ${message} (set PACKAGE_VARIANT_DEBUG=1 for details)`);
    return SYNC_EXIT.error;
  }
  return report.failed.size === 0 ? code : SYNC_EXIT.unreported;
}
