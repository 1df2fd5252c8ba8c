import type { MergeStrategy } from '../../config/function-config';
import type { ResourceTuple } from '../resources/tuples';
import { fastForward } from './fast-forward';
import { forceDeleteReplace } from './force-delete-replace';
import type { MergeRun } from './merge-run';
import { resourceMerge } from './resource-merge';

export const STRATEGIES: Record<MergeStrategy, (tuples: readonly ResourceTuple[], run: MergeRun) => void> = {
  'resource-merge': resourceMerge,
  'fast-forward': fastForward,
  'force-delete-replace': forceDeleteReplace,
};

export function isStrategy(name: unknown): name is MergeStrategy {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(STRATEGIES, name);
}
