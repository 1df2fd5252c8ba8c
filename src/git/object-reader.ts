/**
 * Objects of a cache entry, read through one long-lived `git cat-file --batch-command`: a sync asks
 * a repository for its tags' messages, its Kptfiles and its package trees in many rounds, and a
 * process a round would cost more than the reading. Only object names this program makes go to git
 * (an object's hexadecimal name, or its tree: `^{tree}`), one a line: nothing read from a
 * repository is ever part of a request. Requests are answered in order; the bounds of run-git.ts
 * hold while one waits, and an answer larger than a reader may hold stops the process.
 */
import { GitError, type LongGit } from './run-git';

/** Where the objects are: a repository named `about` (for messages) whose git processes `start` starts (a cache entry). */
export interface ObjectSource {
  readonly about: string;
  start(args: readonly string[]): Promise<LongGit>;
}

export interface GitObject {
  /** The object's name (for a peeled request, the object it peels to). */
  readonly name: string;
  readonly type: string;
  readonly size: number;
  /** Its bytes, for `contents`. */
  readonly bytes?: Buffer;
}

const OBJECT_NAME = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** Whether `name` is an object's full name (SHA-1 or SHA-256, in hexadecimal). */
export const isObjectName = (name: string): boolean => OBJECT_NAME.test(name);

/** What a request may name: an object, or the tree of a commit (or of a tag of one). */
const REQUESTABLE = /^[0-9a-f]{40}(?:[0-9a-f]{24})?(?:\^\{tree\})?$/;
/** The most one batch's answer may carry, as the most one git process may print (run-git.ts). */
const MAX_BATCH_BYTES = 1 << 30;
/** `<name> <type> <size>`, `<request> missing`, `<request> ambiguous`: a longer line is not an answer. */
const MAX_HEADER = 256;

type Kind = 'info' | 'contents';

interface Batch {
  readonly kind: Kind;
  readonly names: readonly string[];
  readonly found: (GitObject | undefined)[];
  bytes: number;
  resolve(found: (GitObject | undefined)[]): void;
  reject(error: Error): void;
}

/** One object's bytes as they arrive. */
interface Body {
  readonly header: Omit<GitObject, 'bytes'>;
  readonly pieces: Buffer[];
  /** Bytes still to come, the newline after the object included. */
  left: number;
}

/** One `cat-file` process and the requests written to it, answered in order. */
class Session {
  readonly queue: Batch[] = [];
  private header: Buffer = Buffer.alloc(0);
  private body?: Body;
  private broken = false;
  ending = false;

  constructor(
    readonly git: LongGit,
    about: string,
    done: () => void,
  ) {
    git.onOutput((chunk) => {
      if (this.broken) return;
      try {
        this.read(chunk);
      } catch (error) {
        this.broken = true;
        git.stop((error as Error).message);
      }
    });
    void git.ended.then((error) => {
      done();
      const failure = error ?? new GitError(`git cat-file of ${about} ended before it answered`, false);
      for (const batch of this.queue.splice(0)) batch.reject(failure);
    });
  }

  end(): void {
    this.ending = true;
    this.git.end();
  }

  ask(kind: Kind, names: readonly string[]): Promise<(GitObject | undefined)[]> {
    return new Promise((resolve, reject) => {
      if (this.queue.length === 0) this.git.waiting();
      this.queue.push({ kind, names, found: [], bytes: 0, resolve, reject });
      this.git.write(`${names.map((name) => `${kind} ${name}\n`).join('')}flush\n`);
    });
  }

  /** Output, as it comes: headers and bodies, each answer to the oldest request still open. */
  private read(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.body) {
        const take = Math.min(this.body.left, chunk.length - at);
        this.body.pieces.push(chunk.subarray(at, at + take));
        this.body.left -= take;
        at += take;
        if (this.body.left === 0) {
          const { header, pieces } = this.body;
          this.body = undefined;
          const all = Buffer.concat(pieces);
          if (all[header.size] !== 10) throw new Error(`answered ${header.name} without the newline that ends an object`);
          this.answer({ ...header, bytes: all.subarray(0, header.size) });
        }
        continue;
      }
      const newline = chunk.indexOf(10, at);
      const end = newline < 0 ? chunk.length : newline;
      this.header = Buffer.concat([this.header, chunk.subarray(at, end)]);
      if (this.header.length > MAX_HEADER) throw new Error('answered with a line that is no object header');
      at = end;
      if (newline < 0) break;
      at += 1;
      const line = this.header.toString('latin1');
      this.header = Buffer.alloc(0);
      this.heading(line);
    }
  }

  /** An answer's first line: the object found (its body follows for `contents`), or none. */
  private heading(line: string): void {
    const batch = this.queue[0];
    if (!batch) throw new Error(`answered what was not asked: ${JSON.stringify(line)}`);
    const asked = batch.names[batch.found.length]!;
    if (line === `${asked} missing` || line === `${asked} ambiguous`) return this.answer(undefined);
    const match = /^([0-9a-f]{40}(?:[0-9a-f]{24})?) ([a-z]+) (\d{1,15})$/.exec(line);
    if (!match) throw new Error(`answered ${JSON.stringify(line)} for ${asked}`);
    const header = { name: match[1]!, type: match[2]!, size: Number(match[3]) };
    if (batch.kind === 'info') return this.answer(header);
    batch.bytes += header.size;
    if (batch.bytes > MAX_BATCH_BYTES) throw new Error(`answered with more than ${MAX_BATCH_BYTES} bytes`);
    this.body = { header, pieces: [], left: header.size + 1 };
  }

  private answer(found: GitObject | undefined): void {
    const batch = this.queue[0]!;
    batch.found.push(found);
    if (batch.found.length < batch.names.length) return;
    this.queue.shift();
    if (this.queue.length > 0) this.git.waiting();
    else this.git.answered();
    batch.resolve(batch.found);
  }
}

export class ObjectReader {
  private session?: Promise<Session>;

  constructor(private readonly entry: ObjectSource) {}

  /** Type and size of each object, or undefined where the entry has none. */
  info(names: readonly string[]): Promise<(GitObject | undefined)[]> {
    return this.ask('info', names);
  }

  /** Type, size and bytes of each object, or undefined where the entry has none. */
  contents(names: readonly string[]): Promise<(GitObject | undefined)[]> {
    return this.ask('contents', names);
  }

  /** Ends the process once it has answered what was asked; a later request starts another. */
  async close(): Promise<void> {
    const session = this.session;
    if (!session) return;
    this.session = undefined;
    let open: Session;
    try {
      open = await session;
    } catch {
      return;
    }
    open.end();
    await open.git.ended;
  }

  private async ask(kind: Kind, names: readonly string[]): Promise<(GitObject | undefined)[]> {
    if (names.length === 0) return [];
    const refused = names.find((name) => !REQUESTABLE.test(name));
    if (refused !== undefined) throw new GitError(`${this.entry.about}: ${JSON.stringify(refused)} is not an object name; refused`, false);
    for (;;) {
      const open = await (this.session ??= this.start());
      // Closed while this request waited for it: the next process answers.
      if (!open.ending) return open.ask(kind, names);
    }
  }

  private start(): Promise<Session> {
    const started: Promise<Session> = this.entry.start(['cat-file', '--batch-command', '--buffer']).then(
      (git) =>
        new Session(git, this.entry.about, () => {
          if (this.session === started) this.session = undefined;
        }),
    );
    // A process that could not start is started again by the next request.
    started.catch(() => {
      if (this.session === started) this.session = undefined;
    });
    return started;
  }
}
