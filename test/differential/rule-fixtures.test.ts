/**
 * The rule fixtures (scripts/gen-rule-fixtures.mjs) beyond data, which kpt-differential.test.ts
 * compares: comments as kpt writes them where its result is right (rule 5), the results we give
 * (no conflict where both sides deleted, the warning naming a duplicate, the conflict naming two
 * ports with one name), and the blueprint attribution kpt writes (rule 6). The real blueprint
 * upgrades are rebuilt from the blueprints mirror; without it their checks are skipped, with one line
 * saying so.
 */
import { isMap, isPair, isScalar, isSeq, parse, parseAllDocuments, parseDocument, type Node } from 'yaml';
import { runFunction } from '../helpers';
import { fixtureResourceList, loadFixtureSet, PATH_ANNOTATION, noteUnbuilt, type Fixture } from './fixtures';

const { fixtures, unbuilt } = loadFixtureSet();
const RULE_FIXTURES = new Map(fixtures.filter((f) => f.rule !== undefined).map((f) => [f.file, f]));
noteUnbuilt(unbuilt);
/** `it`, skipped for a real-upgrade fixture whose mirror is absent (the line above names it). */
const itWith = (file: string): jest.It => (unbuilt.some((u) => u.file === file) ? it['skip'] : it);

type Doc = { kind?: string; metadata?: { name?: string; namespace?: string; annotations?: Record<string, string> }; spec?: Record<string, any>; data?: Record<string, any> };

function merged(file: string) {
  const f = RULE_FIXTURES.get(file) as Fixture;
  const outcome = runFunction(fixtureResourceList(f));
  const items = (parse(outcome.output) as { items: Doc[] }).items;
  return { f, outcome, items, messages: outcome.results.map((r) => String(r.message)) };
}

const conflicts = (messages: string[]) => messages.filter((m) => m.startsWith('merge conflict'));

/**
 * Every comment in a resource, by where it is (`.data.size >` after a value, `.data.size: <` above a
 * key), trimmed; kpt's own `kpt-merge` comment left out. `yaml` files the lines above a map's first
 * key on the key or on the map, depending on the text around it: both are the key's.
 */
function comments(node: unknown, at = '', out: string[] = [], above?: string | null): string[] {
  if (!node || typeof node !== 'object') return out;
  const n = node as { comment?: string | null; commentBefore?: string | null };
  const add = (where: string, text: string | null | undefined) => {
    const lines = (text ?? '').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('kpt-merge:'));
    if (lines.length) out.push(`${where} ${lines.join(' / ')}`);
  };
  if (isMap(node)) {
    node.items.forEach((pair, i) => {
      if (!isPair(pair)) return;
      const key = isScalar(pair.key) ? String(pair.key.value) : '?';
      const keyNode = pair.key as { comment?: string | null; commentBefore?: string | null } | null;
      add(`${at}.${key}: <`, [i === 0 ? n.commentBefore : undefined, keyNode?.commentBefore].filter(Boolean).join('\n'));
      add(`${at}.${key}: >`, keyNode?.comment);
      comments(pair.value, `${at}.${key}`, out);
    });
    add(`${at} >`, n.comment);
    return out;
  }
  add(`${at} <`, above ?? n.commentBefore);
  add(`${at} >`, n.comment);
  if (isSeq(node)) node.items.forEach((item, i) => comments(item, `${at}[${i}]`, out));
  return out;
}

const identity = (doc: Doc, path: string) => `${doc.kind} ${doc.metadata?.namespace ?? ''}/${doc.metadata?.name} ${path}`;

function kptComments(f: Fixture): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [path, text] of Object.entries(f.kpt.files ?? {})) {
    if (path === 'Kptfile') continue;
    for (const doc of parseAllDocuments(text)) out.set(identity(doc.toJS() as Doc, path), comments(doc.contents));
  }
  return out;
}

function ourComments(output: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const items = parseDocument(output).get('items') as { items: Node[] };
  for (const item of items.items) {
    const doc = (item as { toJSON(): Doc }).toJSON();
    out.set(identity(doc, doc.metadata?.annotations?.[PATH_ANNOTATION] ?? ''), comments(item));
  }
  return out;
}

describe('rule fixtures: what kpt-differential does not compare', () => {
  for (const file of ['rule-5-comments.yaml', 'rule-5-acm-blueprint-v0.1.1-v0.1.2.yaml']) {
    itWith(file)(`${file}: every comment is where kpt has it`, () => {
      const { f, outcome } = merged(file);
      expect(outcome.exitCode).toBe(0);
      const ours = ourComments(outcome.output);
      for (const [id, expected] of kptComments(f)) expect({ id, comments: ours.get(id) }).toEqual({ id, comments: expected });
    });
  }

  it('rule-5-comments.yaml: upstream dropped the setter comment on metadata.namespace, rewrote two, added a head and a foot', () => {
    const ours = [...ourComments(merged('rule-5-comments.yaml').outcome.output).values()][0];
    expect(ours).toEqual(['.metadata.labels > end of labels', '.data.class: < the storage class', '.data.class > kpt-set: ${storage-class}', '.data.size > kpt-set: ${size}']);
  });

  it('rule-1-both-null.yaml and rule-2-deleted-lists.yaml: deletions on both sides are no conflicts', () => {
    expect(conflicts(merged('rule-1-both-null.yaml').messages)).toEqual([]);
    const { items, messages } = merged('rule-2-deleted-lists.yaml');
    expect(conflicts(messages)).toEqual([]);
    expect(items.filter((i) => i.kind === 'Service').map((i) => i.spec!.ports)).toEqual([undefined, undefined]);
  });

  it('rule-3-keyless-element.yaml: upstream\'s list, keyless element included, and the rest of the package merged', () => {
    const { items, outcome } = merged('rule-3-keyless-element.yaml');
    expect(outcome.exitCode).toBe(0);
    expect(items.find((i) => i.kind === 'Service')!.spec!.ports).toEqual([{ name: 'http', port: 80 }, { name: 'metrics', targetPort: 9090 }]);
    expect(items.find((i) => i.kind === 'ConfigMap')!.data).toEqual({ mode: 'safe' });
  });

  it('rule-3-keyless-element.yaml: the kept element without its key is a warning naming the resource, the list, the element and the field (issue 19)', () => {
    const { outcome } = merged('rule-3-keyless-element.yaml');
    expect(outcome.results.filter((r) => r.severity === 'warning')).toEqual([
      expect.objectContaining({
        message: 'Service web: spec.ports[1] has no port, which Kubernetes requires of every element of a list keyed by port, protocol; kept as upstream has it',
        resourceRef: { apiVersion: 'v1', kind: 'Service', name: 'web' },
        field: { path: 'spec.ports[1].port' },
      }),
    ]);
  });

  it('rule-6-blueprint-attribution.yaml: upstream\'s value where upstream changed it, the fetched one where not', () => {
    const attribution = (items: Doc[]) => Object.fromEntries(items.map((i) => [i.metadata!.name, i.metadata!.annotations?.['cnrm.cloud.google.com/blueprint']]));
    expect(attribution(merged('rule-6-blueprint-attribution.yaml').items)).toEqual({ bumped: 'cnrm/net/v0.1.1', kept: 'cnrm/net/v0.1.0,kpt-pkg', subnet: 'cnrm/net/v0.1.1' });
  });

  itWith('rule-7-anthos-cluster-acm-v0.1.1-v0.1.2.yaml')('rule-7-anthos-cluster-acm-v0.1.1-v0.1.2.yaml: each duplicated Service merged at its path, with a warning naming it', () => {
    const { items, outcome, messages } = merged('rule-7-anthos-cluster-acm-v0.1.1-v0.1.2.yaml');
    expect(outcome.exitCode).toBe(0);
    const gkehub = items.filter((i) => i.metadata!.name === 'project-id-cluster-name-gkehub');
    expect(gkehub.map((i) => [i.metadata!.annotations![PATH_ANNOTATION], i.metadata!.annotations!['cnrm.cloud.google.com/deletion-policy'], i.metadata!.annotations!['cnrm.cloud.google.com/blueprint']])).toEqual([
      ['acm-membership-api.yaml', 'abandon', 'cnrm/acm/v0.1.2'],
      ['services.yaml', 'delete', 'cnrm/acm/v0.1.2'],
    ]);
    expect(messages.filter((m) => /is declared more than once/.test(m))).toEqual([
      expect.stringMatching(/^Service platform-namespace\/project-id-cluster-name-gkehub is declared more than once .*acm-membership-api\.yaml, services\.yaml/),
      expect.stringMatching(/^Service platform-namespace\/project-id-cluster-name-acm is declared more than once/),
    ]);
  });

  it('rule-8-port-names.yaml: a conflict naming both ports; upstream\'s stays', () => {
    const { items, messages } = merged('rule-8-port-names.yaml');
    expect(items[0]!.spec!.ports).toEqual([{ name: 'http', port: 80 }, { name: 'grpc', port: 9090 }]);
    expect(conflicts(messages)).toEqual([expect.stringMatching(/spec\.ports would hold two elements with name grpc: \[port=8081,protocol=TCP\] from local and \[port=9090,protocol=TCP\] from upstream/)]);
  });
});
