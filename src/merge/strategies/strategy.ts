import type { MergeStrategy } from '../../config/function-config';
import type { Result } from '../../krm/results';
import type { ResourceTuple } from '../resources/identity';
import { fastForward } from './fast-forward';
import { forceDeleteReplace } from './force-delete-replace';
import type { MergeRun } from './merge-run';
import { resourceMerge } from './resource-merge';

/** `outside`: local changes outside the items (only fast-forward looks at them). */
export type Strategy = (tuples: readonly ResourceTuple[], run: MergeRun, outside?: readonly Result[]) => void;

export const STRATEGIES: Record<MergeStrategy, Strategy> = {
  'resource-merge': resourceMerge,
  'fast-forward': fastForward,
  'force-delete-replace': forceDeleteReplace,
};

export function isStrategy(name: unknown): name is MergeStrategy {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(STRATEGIES, name);
}
