// Turns the fields of a job hash into a JobRecord. Decoding is forgiving: a field that is not
// valid JSON is returned as its raw text rather than failing the whole read.

import type { StoredError } from '../errors.js';
import { reviveValue } from './valueCodec.js';
import { fullMachine, fullTimers } from './storedMachine.js';
import { F, storedMaxAttempts, storedVersion } from './recordSchema.js';
import { lifecycleView } from './lifecycleView.js';
import { BAND_PRIORITY_NAMES, type JobRecord, type JobStatus } from './types.js';

/** The fields a record read takes, in the order decodeJob destructures them (the Lua scripts get
 * this list as a constant generated from it, luaConstants.ts; test/client/waitForResult.test.ts
 * holds their replies to it). */
export const JOB_FIELDS = [
  F.machine,
  F.version,
  F.status,
  F.state,
  F.snapshot,
  F.input,
  F.output,
  F.error,
  F.attempt,
  F.maxAttempts,
  F.leaseRequeues,
  F.priority,
  F.progress,
  F.parentId,
  F.runAt,
  F.createdAt,
  F.updatedAt,
  F.finishedAt,
  F.cancelRequested,
  F.claimedAt,
] as const;

function parse(text: string | null | undefined): unknown {
  if (text === null || text === undefined || text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A job's value (input, output, progress) as it held it: the value codec's text decoded. */
function value(text: string | null | undefined): unknown {
  const v = parse(text);
  try {
    return reviveValue(v);
  } catch {
    return v; // an envelope superjson cannot read: shown as stored rather than failing the read
  }
}

type StoredSnapshot = { l?: unknown; w?: unknown; t?: unknown; h?: unknown };

/**
 * The stored snapshot with its machine snapshot, timers and held events (`w`, `t`, `h`: each
 * its own value codec text) as the job held them, so every reader (the context below, the
 * dashboard's timers and children, `client.get().snapshot`) sees a Date as a Date, and `w` and
 * `t` in full (storedMachine.ts: the defaults a compact form left out put back). The same object
 * when no part is in an envelope or compact.
 */
function revivedParts(snapshot: StoredSnapshot): StoredSnapshot {
  let out = snapshot;
  for (const part of ['w', 't', 'h'] as const) {
    const stored = snapshot[part];
    if (stored === undefined) continue;
    let revived: unknown;
    try {
      revived = reviveValue(stored);
      if (part === 'w') revived = fullMachine(revived);
      else if (part === 't') revived = fullTimers(revived);
    } catch {
      continue; // an envelope superjson cannot read: shown as stored rather than failing the read
    }
    if (revived !== stored) out = { ...out, [part]: revived };
  }
  return out;
}

const num = (s: string | null | undefined): number | null =>
  s === null || s === undefined || s === '' ? null : Number(s);

/** The scripts write only the time that an update is about: `ct` at a claim, `fa` at the end,
 * `ua` at other writes, `ca` at enqueue. The latest of them is the record's update time. */
function lastUpdate(...times: (string | null | undefined)[]): number {
  let last = 0;
  for (const t of times) {
    const n = num(t);
    if (n !== null && n > last) last = n;
  }
  return last;
}

/**
 * Whether a record's `context` (decodeJob: the machine's own, else the lifecycle's) is the
 * lifecycle machine's: a simple job's, whose `error` is Machinist's record of the last attempt.
 */
export function holdsLifecycleContext(snapshot: unknown): boolean {
  return (snapshot as { w?: { context?: unknown } } | null)?.w?.context === undefined;
}

export function decodeJob(id: string, queue: string, v: (string | null)[]): JobRecord | null {
  const [m, ver, st, s, sn, input, o, e, a, ma, lr, pr, p, par, ra, ca, ua, fa, cx, ct] = v;
  if (!m) return null;
  const status = (st ?? 'queued') as JobStatus;
  const error = parse(e) as StoredError | null;
  // Absent: the default (THE DEFAULTS LEFT OUT, recordSchema.ts BASE_DEFAULTS).
  const maxAttempts = storedMaxAttempts(ma);
  // The lifecycle is the record's (lifecycleView.ts): an `l` stored by an older version is
  // replaced, not read. A snapshot that is not an object (a corrupt field) is shown as stored.
  const l = lifecycleView(status, num(a) ?? 1, maxAttempts, error);
  const stored = parse(sn) as StoredSnapshot | string | null;
  let snapshot: StoredSnapshot | string;
  if (stored === null) snapshot = { l };
  else if (typeof stored !== 'object') snapshot = stored;
  else {
    const { l: _stored, ...parts } = revivedParts(stored);
    snapshot = { l, ...parts };
  }
  const machineContext =
    typeof snapshot === 'object' ? (snapshot.w as { context?: unknown } | undefined)?.context : undefined;
  return {
    id,
    queue,
    machine: m,
    version: storedVersion(ver),
    status,
    state: parse(s) ?? st,
    // A pipeline's context is its machine's; a simple job's (or a pipeline's before its machine
    // was stored) the lifecycle's.
    context: machineContext ?? (typeof snapshot === 'object' ? l.context : null),
    input: value(input),
    output: value(o),
    error,
    // `a` is written only from the second attempt on (absent = 1); a job never claimed (no
    // claim time `ct`, which a claim sets and nothing clears) has made no attempt yet.
    attempts: num(a) ?? (ct ? 1 : 0),
    maxAttempts,
    leaseRequeues: num(lr) ?? 0,
    priority: BAND_PRIORITY_NAMES[num(pr) ?? 2] ?? 'normal',
    progress: value(p),
    parentId: par ?? null,
    runAt: num(ra),
    createdAt: num(ca) ?? 0,
    updatedAt: lastUpdate(ca, ua, ct, fa),
    finishedAt: num(fa),
    cancelRequested: cx === '1',
    snapshot,
  };
}
