// What git processes a run started and how long each took, from git's own trace (GIT_TRACE2_EVENT
// pointed at one file: every git process appends its events to it). Only the processes the measured
// command started count: the helpers git starts itself (a local push's receive-pack, a fetch's
// upload-pack) are inside their parent's time.
import { readFileSync } from 'node:fs';

/** The subcommand among git's own options (`-c name=value`, `-C dir`, `--git-dir DIR`). */
function subcommand(argv) {
  for (let i = 1; i < argv.length; i += 1) {
    if (['-c', '-C', '--git-dir'].includes(argv[i])) i += 1;
    else if (!argv[i].startsWith('-')) return argv[i];
  }
  return '(none)';
}

/** Where each subcommand's time is reported: the stages of a sync. */
const AREAS = {
  fetch: 'fetch',
  init: 'cache set-up',
  config: 'cache set-up',
  'cat-file': 'read objects and refs',
  'ls-tree': 'read objects and refs',
  'for-each-ref': 'read objects and refs',
  'rev-parse': 'read objects and refs',
  'rev-list': 'read objects and refs',
  'show-ref': 'read objects and refs',
  'ls-remote': 'read objects and refs',
  'fast-import': 'write objects',
  'hash-object': 'write objects',
  mktree: 'write objects',
  'commit-tree': 'write objects',
  'update-ref': 'write objects',
  var: 'identity',
  push: 'push',
};

/**
 * The top-level git processes of a trace: { processes, byArea: { area: { processes, seconds } } },
 * `seconds` the sum of their wall times (processes of several repositories overlap, so the sum can
 * exceed the run's wall time).
 */
export function gitProcesses(traceFile) {
  let text = '';
  try {
    text = readFileSync(traceFile, 'utf8');
  } catch {
    return { processes: 0, byArea: {} };
  }
  const started = new Map();
  const byArea = {};
  let processes = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    const event = JSON.parse(line);
    if (event.sid.includes('/')) continue;
    if (event.event === 'start') started.set(event.sid, subcommand(event.argv));
    else if (event.event === 'exit' && started.has(event.sid)) {
      const area = AREAS[started.get(event.sid)] ?? `other (${started.get(event.sid)})`;
      const sum = (byArea[area] ??= { processes: 0, seconds: 0 });
      sum.processes += 1;
      sum.seconds += event.t_abs;
      processes += 1;
    }
  }
  for (const sum of Object.values(byArea)) sum.seconds = Number(sum.seconds.toFixed(2));
  return { processes, byArea };
}
