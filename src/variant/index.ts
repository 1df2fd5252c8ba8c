/**
 * A PackageVariant's mutations of the package, in Porch's order: package context, pipeline
 * editing, config injection with its conditions and readiness gates. Every step is checked before
 * any of them changes anything, so bad input leaves the package exactly as it came.
 */
import { appendAll } from '../yaml/append';
import type { ConfigObject } from '../config/function-config';
import type { ResourceList } from '../krm/resource-list';
import { FunctionError } from '../krm/results';
import { planConditions } from './conditions';
import { planInjection } from './injection';
import { planPackageContext } from './package-context';
import { rootKptfiles } from './package-items';
import { planPipeline } from './pipeline';
import { checkControllerFields } from './spec';
import { describeItem, itemResult, type Step } from './step';

export function applyPackageVariant(list: ResourceList, variant: ConfigObject, candidates: readonly ConfigObject[]): void {
  const items = list.items;
  const kptfiles = rootKptfiles(items);
  if (kptfiles.length > 1) {
    throw new FunctionError(itemResult(kptfiles[1]!, 'error', `the package has ${kptfiles.length} root Kptfiles: ${kptfiles.map(describeItem).join(', ')}`));
  }
  const kptfile = kptfiles[0];
  const injection = planInjection(variant, items, candidates);
  const steps: Step[] = [planPackageContext(variant, items), planPipeline(variant, kptfile), injection, planConditions(kptfile, injection.points)];
  const errors = [...checkControllerFields(variant), ...steps.flatMap((step) => step.errors)];
  if (errors.length > 0) throw new FunctionError(errors);
  for (const step of steps) appendAll(list.results, step.apply());
}
