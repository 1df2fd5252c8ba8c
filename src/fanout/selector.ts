/**
 * Kubernetes label selectors (metav1.LabelSelector): validation with the API machinery's rules and
 * messages, and matching. Porch converts a selector only when it lists targets and stalls on a bad
 * one; the function checks it with the rest of the functionConfig, before any output.
 */
import type { LabelSelector } from './types';

export interface SelectorProblem {
  readonly field: string;
  readonly message: string;
}

const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const NAME_PART_RULE = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/** A label key, or (`what`) an annotation key: `[prefix/]name` (k8s.io/apimachinery IsQualifiedName). */
export function qualifiedNameProblems(key: string, what = 'label key'): string[] {
  const parts = key.split('/');
  const name = parts[parts.length - 1] ?? '';
  const problems: string[] = [];
  if (parts.length > 2) return [`invalid ${what} ${JSON.stringify(key)}: a qualified name has at most one '/'`];
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    if (prefix === '') problems.push('prefix part must be non-empty');
    else if (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)) problems.push('prefix part must be a lowercase RFC 1123 subdomain of at most 253 characters');
  }
  if (name === '') problems.push('name part must be non-empty');
  else if (name.length > 63) problems.push('name part must be no more than 63 characters');
  else if (!NAME_PART.test(name)) problems.push(`name part ${NAME_PART_RULE}`);
  return problems.map((p) => `invalid ${what} ${JSON.stringify(key)}: ${p}`);
}

/** A label value: empty, or a name part (IsValidLabelValue). */
export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > 63) return `invalid label value ${JSON.stringify(value)}: must be no more than 63 characters`;
  if (!NAME_PART.test(value)) return `invalid label value ${JSON.stringify(value)}: a valid label must be an empty string or ${NAME_PART_RULE}`;
  return undefined;
}

/** Every way `selector` (at field path `at`) is not a valid label selector. */
export function selectorProblems(selector: LabelSelector, at: string): SelectorProblem[] {
  const problems: SelectorProblem[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    const field = `${at}.matchLabels.${key}`;
    for (const message of qualifiedNameProblems(key)) problems.push({ field, message });
    const bad = labelValueProblem(value);
    if (bad) problems.push({ field, message: bad });
  }
  (selector.matchExpressions ?? []).forEach((requirement, i) => {
    const field = `${at}.matchExpressions[${i}]`;
    for (const message of qualifiedNameProblems(requirement.key)) problems.push({ field: `${field}.key`, message });
    const values = requirement.values ?? [];
    const needsValues = requirement.operator === 'In' || requirement.operator === 'NotIn';
    if (needsValues && values.length === 0) {
      problems.push({ field: `${field}.values`, message: `values must be specified when operator is "In" or "NotIn"` });
    }
    if (!needsValues && values.length > 0) {
      problems.push({ field: `${field}.values`, message: `values may not be specified when operator is "Exists" or "DoesNotExist"` });
    }
    values.forEach((value, j) => {
      const bad = labelValueProblem(value);
      if (bad) problems.push({ field: `${field}.values[${j}]`, message: bad });
    });
  });
  return problems;
}

/**
 * Whether labels satisfy a (valid) selector; `{}` matches everything. Label values are compared as
 * strings, since an unvalidated package item may spell a value as a YAML number.
 */
export function selectorMatches(selector: LabelSelector, labels: Readonly<Record<string, unknown>>): boolean {
  const has = (key: string) => Object.prototype.hasOwnProperty.call(labels, key);
  const valueOf = (key: string) => String(labels[key]);
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (!has(key) || valueOf(key) !== value) return false;
  }
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    switch (operator) {
      case 'In':
        if (!has(key) || !values.includes(valueOf(key))) return false;
        break;
      case 'NotIn':
        if (has(key) && values.includes(valueOf(key))) return false;
        break;
      case 'Exists':
        if (!has(key)) return false;
        break;
      case 'DoesNotExist':
        if (has(key)) return false;
        break;
    }
  }
  return true;
}
