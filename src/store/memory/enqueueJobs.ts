// Adding jobs on MemoryStore, as lua/enqueue-5.lua on Redis: a batch for one queue in one step,
// checked whole before the first write. An id that exists is never overwritten (a resent enqueue
// gets the job it made; a parent re-running its fan-out does not fan out twice), except a
// revived child (a redriven parent's fan-out) that ended failed or cancelled; an idempotency key
// that names a job returns that job's id. A job with a watcher is made watched; one kept instead
// is watched when it is unfinished (as watchJob would), all in this one step.

import { LeaseLostError, MachinistError } from '../../errors.js';
import { FINISHED, type EnqueueResult, type NewJob } from '../types.js';
import { BAND } from '../storeConstants.js';
import type { MemoryContext } from './MemoryContext.js';
import type { MemoryJob } from './MemoryJob.js';
import type { QueueState } from './QueueState.js';
import { ZSet } from './ZSet.js';
import { CODE } from '../../errorCodes.js';
import { dedupeEnqueue, type DedupeCall } from './dedupe.js';

const DEDUPE_MODES = new Set(['untilDone', 'ttl', 'debounce']);
const positive = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v > 0;

function bad(i: number, why: string): MachinistError {
  return new MachinistError(CODE.BAD_ENQUEUE, `BAD_ENQUEUE ${i} ${why}`);
}

export function checkEnqueue(jobs: readonly NewJob[]): void {
  if (!Array.isArray(jobs) || jobs.length < 1) throw bad(0, 'bad count');
  jobs.forEach((j, i) => {
    if (!j || typeof j.id !== 'string' || j.id === '' || typeof j.machine !== 'string' || j.machine === '')
      throw bad(i, 'id or machine missing');
    if (![0, 1, 2, 3].includes(j.band)) throw bad(i, 'band');
    if (!(Number.isFinite(j.delayMs) && j.delayMs >= 0)) throw bad(i, 'delay');
    if (!Number.isInteger(j.maxAttempts) || j.maxAttempts < 1) throw bad(i, 'max attempts');
    if (typeof j.input !== 'string') throw bad(i, 'input');
    const d = j.dedupe;
    if (
      d &&
      (typeof d.key !== 'string' ||
        d.key === '' ||
        !DEDUPE_MODES.has(d.mode) ||
        j.idempotencyKey ||
        j.parentId ||
        (d.mode !== 'untilDone' && !positive(d.ttlMs)) ||
        (d.maxDelayMs !== undefined && !positive(d.maxDelayMs)))
    )
      throw bad(i, 'dedupe');
  });
}

export function enqueueJobs(ctx: MemoryContext, queue: string, jobs: readonly NewJob[]): EnqueueResult[] {
  checkEnqueue(jobs);
  const q = ctx.queue(queue);
  // THE FENCE for children on their parent's queue: the fan-out of a worker whose lease passed
  // makes nothing (as enqueue-5.lua; one on another queue is fenced by its parent's fanOpen).
  for (const nj of jobs)
    if (nj.parentId && nj.parentToken && !nj.parentQueue && ctx.job(q, nj.parentId)?.token !== nj.parentToken)
      throw new LeaseLostError(nj.parentId);
  const { now } = ctx;
  const seq = q.seq;
  q.seq += jobs.length;
  return jobs.map((nj, i): EnqueueResult => {
    const id = nj.id;
    const existing = ctx.job(q, id);
    let delayMs = nj.delayMs;
    const dd = dedupeOf(ctx, q, nj);
    if (existing) {
      const undone = existing.status === 'failed' || existing.status === 'cancelled';
      if (!(nj.parentId && nj.revive && undone)) return kept(ctx, q, nj, { id, created: false });
      ctx.lc.forget(q, existing);
    } else if (dd) {
      const r = dedupeEnqueue(ctx, q, dd, id, nj.input, delayMs);
      if ('kept' in r) return kept(ctx, q, nj, { id: r.kept, created: false, deduplicated: true });
      delayMs = r.delay;
    }
    const delayed = delayMs > 0;
    const job: MemoryJob = {
      id,
      machine: nj.machine,
      version: nj.version,
      status: 'queued',
      input: nj.input,
      maxAttempts: nj.maxAttempts,
      band: nj.band,
      queueScore: nj.band * BAND + seq + i + 1,
      createdAt: now,
      log: [delayed ? { at: now, type: 'enqueued', delayMs } : { at: now, type: 'enqueued' }],
    };
    // A minimal record (enqueue-5.lua's `rm`): never for a child or a job with a dedupe key, whose
    // parent's fan-in and key release read it as it ends.
    if (nj.minimal && !nj.parentId && !nj.dedupe) {
      job.minimal = true;
      job.log = [];
    }
    if (delayed) job.runAt = now + delayMs;
    if (nj.idempotencyKey) job.idempotencyKey = nj.idempotencyKey;
    if (dd?.recTtl !== undefined) {
      // Released as it ends (MemoryLifecycle.releaseDedupe); its "enqueued" entry names the key.
      job.dedupeKey = dd.key;
      job.log[0]!.dedupe = { key: dd.key, mode: dd.mode };
    }
    if (nj.concurrencyKey) job.concurrencyKey = nj.concurrencyKey;
    if (nj.watcher) job.watchers = [nj.watcher];
    if (nj.options) job.options = nj.options;
    if (nj.parentId) {
      job.parentId = nj.parentId;
      job.parentQueue = nj.parentQueue ?? '';
      job.group = nj.group ?? '';
      job.index = nj.index ?? 0;
      let children = q.children.get(nj.parentId);
      // An index past its expiry is gone: a new child starts a new one (ZADD on an expired key).
      if (!children || (children.expiresAt !== undefined && children.expiresAt <= now))
        q.children.set(nj.parentId, (children = { ids: new ZSet() }));
      children.ids.add(id, job.index);
    }
    // Listed in the same step that makes the job, so the dispatcher knows of its hooks by its
    // first event; a job not made here (it exists, or its idempotency key names another) is not.
    if (nj.hooked) q.hooks.list(id, now);
    ctx.lc.create(q, job);
    return nj.watcher ? { id, created: true, watched: true } : { id, created: true };
  });
}

/** A job the enqueue kept: the new job's watcher is put on it when it is unfinished. */
function kept(ctx: MemoryContext, q: QueueState, nj: NewJob, r: EnqueueResult): EnqueueResult {
  const j = nj.watcher ? ctx.job(q, r.id) : undefined;
  if (!j || FINISHED.has(j.status)) return r;
  j.watchers ??= [];
  if (!j.watchers.includes(nj.watcher!)) j.watchers.push(nj.watcher!);
  return { ...r, watched: true };
}

/** The job's dedupe as dedupe.ts reads it: its dedupe key, or its idempotency key (`ttl`). */
function dedupeOf(ctx: MemoryContext, q: QueueState, nj: NewJob): DedupeCall | undefined {
  const d = nj.dedupe;
  if (d) {
    const ttl = d.ttlMs ?? 0;
    return {
      records: q.dedupe,
      key: d.key,
      mode: d.mode,
      ttl,
      maxDelay: d.maxDelayMs,
      keepLast: d.keepLast === true,
      recTtl:
        d.mode === 'ttl'
          ? undefined
          : d.mode === 'untilDone' && d.ttlMs !== undefined
            ? ttl
            : Math.max(ctx.idempotencyTtlMs, ttl + (d.maxDelayMs ?? 0)),
    };
  }
  if (nj.idempotencyKey)
    return {
      records: q.idempotency,
      key: nj.idempotencyKey,
      mode: 'ttl',
      ttl: ctx.idempotencyTtlMs,
      keepLast: false,
    };
  return undefined;
}
