/**
 * The resource comparison of the differential suites: kpt's output and ours for one package, as data
 * after removing kpt's bookkeeping, keyed lists compared by key, resources matched by identity (a
 * locally renamed one by its `# kpt-merge` comment). A difference must be a row of the README's
 * "Deviations from kpt 1.0.0-beta.56" whose documented result our output holds; anything else is a
 * problem, described with the three inputs.
 */
import { isDeepStrictEqual } from 'node:util';
import { normalise } from '../conformance/merge3-cases';
import { at, canonical, differences, formatPath, ListSchema, show, type Json, type Seg } from './compare';
import { attributeField, attributeMove, attributeResource, movedKeepsLocalChange, isMismatch, type Claim, type ResourceCase } from './deviations';
import { mergeComment, packageDocs, type Doc, type Files } from './fixtures';

export interface ResourceInputs {
  origin: Files;
  upstream: Files;
  local: Files;
  /** kpt's output package. */
  kpt: Files;
  /** Our output's resources, each with its file. */
  ours: { path: string; doc: Doc }[];
  /** Our results' messages. */
  messages: string[];
}

export interface ResourceVerdict {
  /** README rows the differences were attributed to (our output holding the documented result). */
  deviations: Set<string>;
  problems: string[];
}

const groupOf = (doc: Doc) => {
  const apiVersion = String(doc.apiVersion ?? '');
  return apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
};
const idOf = (doc: Doc, namespace = doc.metadata?.namespace ?? '', name = doc.metadata?.name ?? '') => `${groupOf(doc)}|${doc.kind}|${namespace}|${name}`;
const describe_ = (id: string) => {
  const [, kind, namespace, name, path] = id.split('|');
  return `${kind} ${namespace ? `${namespace}/` : ''}${name}${path ? ` (${path})` : ''}`;
};

function byId<T extends { doc: Doc }>(entries: T[], key: (e: T) => string, problems: string[], what: string): Map<string, T> {
  const out = new Map<string, T>();
  for (const e of entries) {
    const id = key(e);
    if (out.has(id)) problems.push(`${what} holds ${describe_(id)} twice`);
    out.set(id, e);
  }
  return out;
}

/** Compares kpt's and our resources of one package; `listed` holds the README table's kpt column. */
export function compareResources(input: ResourceInputs, listed: ReadonlySet<string>, onClaim?: (claim: Claim) => void): ResourceVerdict {
  const problems: string[] = [];
  const deviations = new Set<string>();
  const origin = packageDocs(input.origin);
  const upstream = packageDocs(input.upstream);
  const localDocs = packageDocs(input.local);
  // An identity one version declares in several files is told apart by path (README), as kpt does.
  const duplicated = new Set<string>();
  for (const docs of [origin, upstream, localDocs]) {
    const seen = new Set<string>();
    for (const e of docs) (seen.has(idOf(e.doc)) ? duplicated : seen).add(idOf(e.doc));
  }
  const atPath = (id: string, path: string) => (duplicated.has(id) ? `${id}|${path}` : id);
  const keyOf = (e: { doc: Doc; path: string }) => atPath(idOf(e.doc), e.path);
  const local = localDocs.map((e) => {
    const comment = mergeComment(e.text);
    return { ...e, id: keyOf(e), originId: atPath(comment ? idOf(e.doc, comment.namespace, comment.name) : idOf(e.doc), e.path) };
  });
  const kpt = packageDocs(input.kpt);
  const { ours, messages } = input;

  const localById = byId(local, (e) => e.id, problems, 'local');
  const originById = byId(origin, keyOf, problems, 'origin');
  const upstreamById = byId(upstream, keyOf, problems, 'upstream');
  // kpt may hold one identity twice: a resource upstream moved to another file, kept (changed) at the old path too
  const kptCopies = new Map<string, typeof kpt>();
  for (const e of kpt) kptCopies.set(keyOf(e), [...(kptCopies.get(keyOf(e)) ?? []), e]);
  const oursById = byId(ours, keyOf, problems, 'our output');

  const crds = [...origin, ...upstream, ...local, ...kpt].filter((e) => e.doc.kind === 'CustomResourceDefinition').map((e) => e.doc as Json);
  const schema = new ListSchema(crds);
  const data = (doc: Doc | undefined): Json | undefined => (doc ? canonical(normalise([doc])[0] as Json, String(doc.kind), schema) : undefined);

  const claims = new Map<string, Claim>();
  for (const id of [...new Set([...kptCopies.keys(), ...oursById.keys()])].sort()) {
    const l = localById.get(id);
    const originId = l?.originId ?? id;
    const kind = id.split('|')[1]!;
    const upstreamPath = upstreamById.get(originId)?.path;
    const copies = kptCopies.get(id) ?? [];
    const kptEntry = copies.find((e) => e.path === upstreamPath) ?? copies[0];
    const c: ResourceCase = {
      kind,
      id: describe_(id),
      origin: data(originById.get(originId)?.doc),
      upstream: data(upstreamById.get(originId)?.doc),
      local: data(l?.doc),
      kpt: data(kptEntry?.doc),
      ours: data(oursById.get(id)?.doc),
      localRaw: l?.doc as Json | undefined,
      originRaw: originById.get(originId)?.doc as Json | undefined,
      originText: originById.get(originId)?.text,
      upstreamText: upstreamById.get(originId)?.text,
      schema,
      messages,
      upstreamEmpty: upstream.length === 0,
      originPath: originById.get(originId)?.path,
      upstreamPath,
      localPath: l?.path,
      kptPaths: copies.map((e) => e.path),
      ourPath: oursById.get(id)?.path,
    };
    const moved = attributeMove(c);
    if (moved) claims.set(`${moved.deviation} ${c.id}`, { ...moved, where: `${c.id} ${moved.where}` });
    else if (copies.length > 1) problems.push(`${c.id}: kpt's output holds it ${copies.length} times (${c.kptPaths!.join(', ')})`);
    if (c.kpt === undefined || c.ours === undefined) {
      if (moved) continue;
      const claim = attributeResource(c);
      if (claim) claims.set(`${claim.deviation} ${c.id}`, claim);
      else problems.push(describeResourceDifference(c));
      continue;
    }
    if (!moved && kptEntry!.path !== c.ourPath) problems.push(`${c.id}: kpt wrote it to ${kptEntry!.path}, we to ${c.ourPath}`);
    for (const d of differences(c.kpt, c.ours, kind, schema)) {
      if (moved && movedKeepsLocalChange(c, d)) continue;
      const claim = attributeField(c, d);
      if (claim) claims.set(`${claim.deviation} ${c.id} ${claim.where}`, { ...claim, where: `${c.id} ${claim.where}` });
      else problems.push(describeDifference(c, d.path, d.kpt, d.ours, d.multiplicity));
    }
  }
  for (const claim of claims.values()) {
    let mismatch: string | undefined;
    try {
      claim.check();
    } catch (e) {
      if (!isMismatch(e)) throw e;
      mismatch = e.message;
    }
    if (!listed.has(claim.deviation)) {
      problems.push(
        `${claim.where}: kpt differs in a way the README's deviation table does not list: "${claim.deviation}"; ` +
          (mismatch ? `our output does not follow the README's rules either: ${mismatch}` : "our output follows the README's rules"),
      );
    } else if (mismatch) {
      problems.push(`${claim.where}: matches the deviation "${claim.deviation}", but our output is not the documented result: ${mismatch}`);
    } else deviations.add(claim.deviation);
    onClaim?.(claim);
  }
  return { deviations, problems };
}

function indent(text: string, by = '      '): string {
  return text
    .split('\n')
    .map((l) => by + l)
    .join('\n');
}

const KPT_IDENTIFIER = 'internal.kpt.dev/upstream-identifier';

/** Without kpt pkg get's annotation, which origin (from upstream's repository) never has. */
function withoutKptIdentifier(doc: Json | undefined): Json | undefined {
  if (!doc) return undefined;
  const copy = JSON.parse(JSON.stringify(doc)) as Doc;
  const annotations = copy.metadata?.annotations;
  if (annotations && KPT_IDENTIFIER in annotations) {
    delete annotations[KPT_IDENTIFIER];
    if (!Object.keys(annotations).length) delete copy.metadata!.annotations;
  }
  return copy as Json;
}

function describeResourceDifference(c: ResourceCase): string {
  const where = (v: Json | undefined) => (v === undefined ? 'absent' : 'present');
  const lines = [
    `${c.id}: ${c.kpt === undefined ? 'in our output, not in kpt’s' : 'in kpt’s output, not in ours'} (no deviation in the README matches)`,
    `    origin: ${where(c.origin)}${c.originPath ? ` (${c.originPath})` : ''}; upstream: ${where(c.upstream)}${c.upstreamPath ? ` (${c.upstreamPath})` : ''}; local: ${where(c.local)}${c.localPath ? ` (${c.localPath})` : ''}`,
  ];
  if (c.origin !== undefined && c.local !== undefined && c.upstream === undefined) {
    if (isDeepStrictEqual(withoutKptIdentifier(c.localRaw), withoutKptIdentifier(c.originRaw)) && !isDeepStrictEqual(c.localRaw, c.originRaw)) {
      lines.push(`    local differs from origin only by the ${KPT_IDENTIFIER} annotation kpt pkg get writes: it is unchanged locally`);
    }
  }
  const ours = c.messages.filter((m) => m.includes(` ${c.kind} `));
  if (ours.length) lines.push(`    our results: ${ours.join(' | ')}`);
  lines.push(`    ${c.kpt === undefined ? 'ours' : 'kpt'}:\n${indent(show(c.kpt ?? c.ours), '          ')}`);
  return lines.join('\n');
}

function describeDifference(c: ResourceCase, path: Seg[], kpt: Json | undefined, ours: Json | undefined, multiplicity?: { kpt: Json[]; ours: Json[] }): string {
  const get = (v: Json | undefined) => show(at(v, path, c.kind, c.schema));
  const lines = [`${c.id}: ${formatPath(path)} differs (no deviation in the README matches)`];
  if (multiplicity) lines.push(`    kpt has ${multiplicity.kpt.length} elements with this key, we have ${multiplicity.ours.length}`);
  lines.push(`    kpt:\n${indent(show(multiplicity ? multiplicity.kpt : kpt))}`, `    ours:\n${indent(show(multiplicity ? multiplicity.ours : ours))}`);
  lines.push(`    origin:\n${indent(get(c.origin))}`, `    upstream:\n${indent(get(c.upstream))}`, `    local:\n${indent(get(c.local))}`);
  return lines.join('\n');
}
