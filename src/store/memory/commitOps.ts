// A worker's commit on MemoryStore, as lua/commit-12.lua on Redis: its fenced writes, then the
// promotion of due delayed jobs and a claim of new work (claimJobs.ts), in one synchronous step.
// Each op names its target; the move itself is MemoryLifecycle.move's (THE FENCE is its guard).

import { MachinistError } from '../../errors.js';
import type { ClaimRequest, CommitOp } from '../types.js';
import type { MemoryLifecycle } from './MemoryLifecycle.js';
import { BAND } from '../storeConstants.js';
import type { MemoryJob } from './MemoryJob.js';
import type { QueueState } from './QueueState.js';
import { CODE } from '../../errorCodes.js';
import { holdKey } from './keyGate.js';

const TARGET = {
  done: 'done',
  fail: 'failed',
  broken: 'failed',
  retry: 'queued',
  cancelled: 'cancelled',
  requeue: 'queued',
  park: 'waiting',
} as const;

/** A malformed commit (what BAD_COMMIT reports on Redis): nothing was written. */
function bad(i: number, why: string): MachinistError {
  return new MachinistError(CODE.BAD_COMMIT, `BAD_COMMIT ${i} ${why}`);
}

const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * NO HALF-APPLIED CALL: every op (and the claim) is checked before the first write, as
 * commit-12.lua checks its arguments; a malformed call throws BAD_COMMIT and writes nothing.
 */
export function checkCommit(ops: readonly CommitOp[], claim: ClaimRequest | undefined): void {
  if (claim) {
    if (!isCount(claim.max)) throw bad(0, 'bad claim count');
    if (claim.max > 0 && !(claim.leaseMs > 0)) throw bad(0, 'bad lease ms');
  }
  ops.forEach((op, n) => {
    const i = n + 1;
    if (!op || typeof op.id !== 'string' || op.id === '' || typeof op.token !== 'string')
      throw bad(i, 'missing values');
    if (!(op.kind in TARGET) && op.kind !== 'checkpoint') throw bad(i, `unknown kind ${String(op.kind)}`);
    if ('version' in op && op.version !== undefined) {
      if (!Number.isInteger(op.version) || op.version < 1) throw bad(i, 'version');
    }
    if (op.kind === 'checkpoint') {
      if (op.status !== 'loading' && op.status !== 'working') throw bad(i, 'checkpoint status');
      if (op.inboxConsumed !== undefined && !isCount(op.inboxConsumed)) throw bad(i, 'inbox position');
    } else if (op.kind === 'retry') {
      if (!(Number.isFinite(op.delayMs) && op.delayMs >= 0)) throw bad(i, 'retry delay');
      if (!isCount(op.attempt) || op.attempt < 1) throw bad(i, 'retry attempt');
      if (op.retryLaters !== undefined && !isCount(op.retryLaters)) throw bad(i, 'retry-later count');
      if (op.holdMs !== undefined && !isCount(op.holdMs)) throw bad(i, 'rate-limit hold');
    } else if (op.kind === 'park') {
      if (op.wakeAt !== null && op.wakeAt !== undefined && !isCount(op.wakeAt)) throw bad(i, 'wake time');
      if (op.inboxConsumed !== undefined && !isCount(op.inboxConsumed)) throw bad(i, 'inbox position');
      if (!op.snapshot) throw bad(i, 'park without snapshot');
    }
    if (!Array.isArray(op.log)) throw bad(i, 'log');
    for (const e of op.log) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(e);
      } catch {
        throw bad(i, 'log entry is not JSON');
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
        throw bad(i, 'log entry is not an object');
    }
  });
}

/** '' or absent: not written (as `put` in commit-12.lua). */
const given = (v: string | undefined): string | undefined => (v === '' ? undefined : v);

/** Applies each op through the lifecycle; per op, whether it was written. */
export function applyOps(
  lc: MemoryLifecycle,
  q: QueueState,
  ops: readonly CommitOp[],
  now: number,
): boolean[] {
  return ops.map((op) => {
    const to = op.kind === 'checkpoint' ? op.status : TARGET[op.kind];
    const job = q.jobs.get(op.id);
    // The record's version follows its snapshot's (a migrate), in the same write.
    const set: Partial<MemoryJob> = { version: 'version' in op ? op.version : undefined };
    const base = { token: op.token, log: op.log, set };
    let r;
    switch (op.kind) {
      case 'checkpoint':
        Object.assign(set, {
          snapshot: given(op.snapshot),
          state: given(op.state),
          progress: given(op.progress),
          inboxConsumed: op.inboxConsumed,
        });
        r = lc.move(q, job, to, { ...base, kind: 'checkpoint' });
        break;
      case 'done':
        Object.assign(set, { output: op.output, state: given(op.state), snapshot: given(op.snapshot) });
        r = lc.move(q, job, 'done', { ...base, kind: 'done', output: op.output });
        break;
      case 'fail':
      case 'broken': {
        const isFail = op.kind === 'fail';
        Object.assign(set, {
          error: op.error,
          snapshot: isFail ? given(op.snapshot) : undefined,
          state: isFail ? given(op.state) : undefined,
          resume: isFail ? given(op.resume) : undefined,
        });
        r = lc.move(q, job, 'failed', {
          ...base,
          kind: 'failed',
          error: op.error,
          broken: isFail ? undefined : brokenReason(op.error),
        });
        break;
      }
      case 'cancelled':
        Object.assign(set, { snapshot: given(op.snapshot), state: given(op.state) });
        r = lc.move(q, job, 'cancelled', { ...base, kind: 'cancelled' });
        break;
      case 'retry':
        Object.assign(set, {
          error: op.error,
          attempt: op.attempt,
          snapshot: given(op.snapshot),
          retryLaters: op.retryLaters,
        });
        // Even with no delay a retry goes behind the jobs waiting in its band (fresh place).
        r = lc.move(q, job, 'queued', {
          ...base,
          kind: 'retry',
          runAt: now + Math.max(0, Math.round(op.delayMs)),
          fresh: true,
          cancelLog: '{"type":"cancelled","reason":"cancel requested; not retried"}',
        });
        // A job with a key holds back only its key (THE KEY HOLD); one without, the queue.
        if (op.holdMs !== undefined && 'moved' in r) {
          const key = job?.concurrencyKey;
          if (key !== undefined) holdKey(q.flow, key, now, op.holdMs);
          else holdStarts(q, now, op.holdMs);
        }
        break;
      case 'requeue':
        // Back to its old place in line: a shutdown must not push a job behind newer ones.
        r = lc.move(q, job, 'queued', {
          ...base,
          kind: 'requeued',
          cancelLog: '{"type":"cancelled","reason":"cancel requested; not requeued"}',
        });
        break;
      case 'park':
        Object.assign(set, {
          snapshot: op.snapshot,
          state: given(op.state),
          inboxConsumed: op.inboxConsumed,
        });
        r = lc.move(q, job, 'waiting', {
          ...base,
          kind: 'waiting',
          runAt: op.wakeAt ?? undefined,
          consumed: op.inboxConsumed ?? 0,
          cancelLog: '{"type":"cancelled","reason":"cancel requested; not parked"}',
        });
        break;
    }
    return 'moved' in r;
  });
}

/**
 * THE HOLD (a RateLimitedError, as commit-12.lua's holdStarts): no job of the queue starts for
 * `holdMs`; the GCRA's `tat` goes forward so the next start is allowed at now + holdMs, then at
 * the throttle's rate (no burst at once). With no throttle the hold is kept in `tat` alike
 * (T = tau = 0). Only ever forward.
 */
function holdStarts(q: QueueState, now: number, holdMs: number): void {
  const rate = q.flow.limits.rateLimit;
  const tau = rate ? ((rate.burst ?? 0) * rate.perMs) / rate.limit : 0;
  const until = now + holdMs + tau;
  if (until > (q.flow.tat ?? 0)) q.flow.tat = until;
}

/** A broken op's error names why (its message), as commit-12.lua reads it. */
function brokenReason(error: string): string {
  try {
    const e = JSON.parse(error) as { message?: unknown };
    return typeof e?.message === 'string' ? e.message : error;
  } catch {
    return error;
  }
}

/**
 * Moves due entries of `delayed` (backoff retries, delayed enqueues, parked jobs whose wake time
 * came) into `queued`, behind the jobs already waiting in their band: `limit` at most, the claim's
 * share, the others left for the next claim (THE DUE CLAIM, lua/include/lcClaimDue.lua, which
 * claims the first in line straight from `delayed`: the same jobs in the same order).
 */
export function promoteDue(lc: MemoryLifecycle, q: QueueState, now: number, limit: number): number {
  const due = q.index.delayed.popUpTo(now, limit);
  const seq = q.seq;
  q.seq += due.length;
  due.forEach((e, i) => {
    const j = q.jobs.get(e.member);
    if (j && (j.status === 'queued' || j.status === 'waiting'))
      lc.move(q, j, 'queued', { score: j.band * BAND + seq + i + 1 });
  });
  return due.length;
}
