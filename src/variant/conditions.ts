/**
 * Step 3, continued: each injection point's condition in the Kptfile's `status.conditions`, and a
 * readiness gate in `info.readinessGates` for each required one, in the shapes Porch writes
 * (Porch then shows them on the PackageRevision, and approval waits for the gates). Other keys
 * under `info` and `status` stay, where Porch drops them.
 */
import type { YAMLMap } from 'yaml';
import type { KrmResource } from '../krm/resource';
import type { Result } from '../krm/results';
import type { InjectionPoint } from './injection';
import { describeItem, itemResult, type Step } from './step';
import { ensureList, ensureMap, mapListOrAbsent, mapOrAbsent, setListItems, setScalar, stringField } from './yaml-edit';

interface Condition {
  type: string;
  status: 'True' | 'False';
  message: string;
  reason: 'ConfigInjected' | 'NoResourceSelected';
}

function conditionOf(point: InjectionPoint): Condition {
  const { conditionType: type, outcome } = point;
  return outcome.injected
    ? { type, status: 'True', message: `injected resource "${outcome.candidate}" from cluster`, reason: 'ConfigInjected' }
    : { type, status: 'False', message: outcome.reason, reason: 'NoResourceSelected' };
}

/** Stable sort by a string field, in byte order, as Go's sort.SliceStable on strings. */
function sortBy(items: readonly YAMLMap[], field: string): YAMLMap[] {
  const key = (item: YAMLMap) => stringField(item, field) ?? '';
  return [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

function checkKptfile(kptfile: KrmResource): Result[] {
  const errors: Result[] = [];
  for (const [parent, list] of [['info', 'readinessGates'], ['status', 'conditions']] as const) {
    const map = mapOrAbsent(kptfile.node, parent);
    if (map === false) errors.push(itemResult(kptfile, 'error', `Kptfile ${parent} must be a map`, parent));
    else if (map && mapListOrAbsent(map, list) === false) errors.push(itemResult(kptfile, 'error', `Kptfile ${parent}.${list} must be a list of maps`, `${parent}.${list}`));
  }
  return errors;
}

export function planConditions(kptfile: KrmResource | undefined, points: readonly InjectionPoint[]): Step {
  if (points.length === 0) return { errors: [], apply: () => [] };
  if (!kptfile) {
    const listed = points.map((p) => describeItem(p.resource)).join(', ');
    return { errors: points.slice(0, 1).map((p) => itemResult(p.resource, 'error', `the package has injection points (${listed}) but no Kptfile at its root to hold their conditions`)), apply: () => [] };
  }
  return { errors: checkKptfile(kptfile), apply: () => [applyConditions(kptfile, points)] };
}

function applyConditions(kptfile: KrmResource, points: readonly InjectionPoint[]): Result {
  const { doc, node } = kptfile;
  let changed = false;

  const gateTypes = points.filter((p) => p.required).map((p) => p.conditionType);
  const info = mapOrAbsent(node, 'info') || undefined;
  const existingGates = (info && mapListOrAbsent(info, 'readinessGates')) || undefined;
  if (gateTypes.length > 0 || (existingGates && existingGates.items.length > 0)) {
    const gates = ensureList(doc, ensureMap(doc, node, 'info'), 'readinessGates');
    const have = new Set(gates.items.map((gate) => stringField(gate, 'conditionType')));
    const added = gateTypes.filter((type) => !have.has(type)).map((conditionType) => doc.createNode({ conditionType }) as YAMLMap);
    // Sorted and without duplicates, as Porch leaves them.
    const seen = new Set<string>();
    const unique = sortBy([...gates.items, ...added], 'conditionType').filter((gate) => {
      const type = stringField(gate, 'conditionType');
      if (type === undefined) return true;
      if (seen.has(type)) return false;
      seen.add(type);
      return true;
    });
    changed = setListItems(gates, unique) || changed;
  }

  const conditions = ensureList(doc, ensureMap(doc, node, 'status'), 'conditions');
  const items = [...conditions.items];
  // The first condition of each type, looked up once: a package has a condition per injection point.
  const byType = new Map<string, YAMLMap>();
  for (const item of items) {
    const type = stringField(item, 'type');
    if (type !== undefined && !byType.has(type)) byType.set(type, item);
  }
  for (const point of points) {
    const wanted = conditionOf(point);
    const existing = byType.get(wanted.type);
    if (existing) {
      for (const field of ['status', 'message', 'reason'] as const) changed = setScalar(doc, existing, field, wanted[field]) || changed;
    } else {
      const created = doc.createNode(wanted) as YAMLMap;
      items.push(created);
      byType.set(wanted.type, created);
    }
  }
  changed = setListItems(conditions, sortBy(items, 'type')) || changed;
  if (changed) kptfile.markChanged();

  const summary = points.map((p) => `${p.conditionType} ${conditionOf(p).status}`).join(', ');
  const gates = gateTypes.length ? `; readiness gates ${gateTypes.join(', ')}` : '';
  return itemResult(kptfile, 'info', `Kptfile: conditions ${summary}${gates}`, 'status.conditions');
}
