/**
 * YAML the merge cannot carry from one version of a resource into another, found before it runs:
 *
 * - values of tags beyond the data Kubernetes has: `!!binary` and `!!timestamp` (outside `%YAML 1.1`,
 *   whose schema has timestamps), which the merge cannot compare and the output could not write
 *   back, and `!!set`, whose members the merge would read as null fields;
 * - aliases between items: an alias in a merged item to another item's anchor, or another item's
 *   alias to a merged item's anchor. Rewriting the merged item would cut the tie or leave the other
 *   item's alias dangling.
 *
 * Each is an error result naming the item and the field. An alias within one item is expanded in place
 * (the merge then sees its data); the item's text stays as it was unless the merge changes the item.
 */
import { appendAll } from '../yaml/append';
import { isAlias, isMap, isScalar, isSeq, type Alias, type Node, type Pair } from 'yaml';
import type { KrmResource } from './resource';
import { errorResult, FunctionError, type Result } from './results';
import { isSimpleDocument } from '../yaml/tree-builder';
import { yamlVersionOf } from '../yaml/yaml-format';

/** A set's members are keys with null values, and an upstream null removes a field. */
const SET_TAG = 'tag:yaml.org,2002:set';

function fieldPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : /^[A-Za-z0-9_-]+$/.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`;
  }
  return out;
}

interface Visit {
  readonly node: Node;
  readonly path: readonly (string | number)[];
  /** Puts another node where this one is. */
  readonly replace: (node: Node) => void;
}

/** Every node below `root` (keys excluded), parents first; `replace` may be called on the node visited. */
function walkTree(root: Node, visit: (at: Visit) => void, path: readonly (string | number)[] = []): void {
  const step = (node: unknown, at: readonly (string | number)[], replace: (n: Node) => void) => {
    if (node === null || node === undefined || typeof node !== 'object') return;
    let current = node as Node;
    const replaceCurrent = (n: Node) => {
      current = n;
      replace(n);
    };
    visit({ node: current, path: at, replace: replaceCurrent });
    walkTree(current, visit, at);
  };
  if (isMap(root)) {
    for (const pair of root.items as Pair[]) {
      const key = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
      step(pair.value, [...path, key], (n) => (pair.value = n));
    }
  } else if (isSeq(root)) {
    root.items.forEach((item, i) => step(item, [...path, i], (n) => (root.items[i] = n)));
  }
}

function uncarriedTag(node: Node, version: '1.1' | '1.2'): string | undefined {
  if (isScalar(node)) {
    if (node.value instanceof Uint8Array) return '!!binary';
    if (node.value instanceof Date && version !== '1.1') return '!!timestamp';
    return undefined;
  }
  return isMap(node) && node.tag === SET_TAG ? '!!set' : undefined;
}

function problem(resource: KrmResource, path: readonly (string | number)[], message: string): Result {
  const file = resource.fileRef();
  const field = fieldPath(path);
  return errorResult(`cannot merge ${resource.kind} ${resource.name}${resource.path ? ` (${resource.path})` : ''}: ${field || 'the resource'}: ${message}`, {
    resourceRef: resource.ref(),
    ...(field ? { field: { path: field } } : {}),
    ...(file ? { file } : {}),
  });
}

/** The nodes of a tree, the root included. */
function nodesOf(root: Node): Set<Node> {
  const nodes = new Set<Node>([root]);
  walkTree(root, ({ node }) => nodes.add(node));
  return nodes;
}

/** A copy of an anchored node to stand where an alias was: no anchors of its own, inner aliases expanded. */
function expansion(target: Node, resolve: (alias: Alias) => Node | undefined): Node {
  const copy = target.clone() as Node;
  delete (copy as { anchor?: string }).anchor;
  walkTree(copy, ({ node, replace }) => {
    if (isAlias(node)) {
      const inner = resolve(node);
      if (inner) replace(expansion(inner, resolve));
    } else {
      delete (node as { anchor?: string }).anchor;
    }
  });
  return copy;
}

/** Whether anything below `root` is an alias, an anchor or an uncarried tag: most trees have none. */
function hasSpecialNodes(root: Node, version: '1.1' | '1.2'): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (isAlias(node) || (node as Node | null)?.anchor) return true;
    if (isMap(node)) for (const pair of node.items as Pair[]) stack.push(pair.value);
    else if (isSeq(node)) appendAll(stack, node.items);
    if ((isScalar(node) || isMap(node)) && uncarriedTag(node, version)) return true;
  }
  return false;
}

/**
 * Checks the items the merge reads (every version of each resource it merges or adds) and expands
 * their aliases within an item; throws FunctionError naming each item and field it cannot carry.
 * `others` are the remaining items, checked only for aliases to merged items. Items known by plain
 * data alone, or by a tree built from simple text (tree-builder.ts), have no tags or aliases
 * (the fast readers refuse them) and are skipped.
 */
export function checkCarriable(merged: readonly KrmResource[], others: readonly KrmResource[]): void {
  const problems: Result[] = [];
  const withTrees = merged.filter((resource) => resource.hasTree && !isSimpleDocument(resource.doc) && hasSpecialNodes(resource.node, yamlVersionOf(resource.doc)));
  if (withTrees.length === 0) return;
  const ownNodes = new Map(withTrees.map((resource) => [resource, nodesOf(resource.node)]));
  const anchors = new Map<Node, { resource: KrmResource; path: readonly (string | number)[] }>();
  for (const resource of withTrees) {
    const version = yamlVersionOf(resource.doc);
    const resolve = (alias: Alias) => (alias.resolve(resource.doc) as Node | undefined) ?? undefined;
    walkTree(resource.node, ({ node, path, replace }) => {
      if (node.anchor) anchors.set(node, { resource, path });
      if (isAlias(node)) {
        const target = resolve(node);
        if (target && ownNodes.get(resource)!.has(target)) replace(expansion(target, resolve));
        else problems.push(problem(resource, path, `it is an alias (*${node.source}) to another item's anchor, which the merge cannot carry; write the value out in this item`));
        return;
      }
      const tag = uncarriedTag(node, version);
      if (tag) problems.push(problem(resource, path, `the merge cannot carry a ${tag} value; write it as a plain string`));
    });
  }
  if (anchors.size > 0) {
    for (const other of others.filter((resource) => resource.hasTree)) {
      walkTree(other.node, ({ node, path }) => {
        if (!isAlias(node)) return;
        const anchored = anchors.get(node.resolve(other.doc) as Node);
        if (!anchored) return;
        const where = fieldPath(path) || 'the resource';
        problems.push(problem(anchored.resource, anchored.path, `its anchor &${node.source} is used by ${other.kind} ${other.name} at ${where}, and the merge cannot carry an anchor shared between items; write the value out in both`));
      });
    }
  }
  if (problems.length > 0) throw new FunctionError(problems);
}
