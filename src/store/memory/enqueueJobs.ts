// Adding jobs on MemoryStore, as lua/enqueue-5.lua on Redis: a batch for one queue in one step,
// checked whole before the first write. An id that exists is never overwritten (a resent enqueue
// gets the job it made; a parent re-running its fan-out does not fan out twice), except a
// revived child (a redriven parent's fan-out) that ended failed or cancelled; an idempotency key
// that names a job returns that job's id.

import { LeaseLostError, MachinistError } from '../../errors.js';
import type { EnqueueResult, NewJob } from '../types.js';
import { BAND } from '../storeConstants.js';
import type { MemoryContext } from './MemoryContext.js';
import type { MemoryJob } from './MemoryJob.js';
import { ZSet } from './ZSet.js';
import { CODE } from '../../errorCodes.js';

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
    if (existing) {
      const undone = existing.status === 'failed' || existing.status === 'cancelled';
      if (!(nj.parentId && nj.revive && undone)) return { id, created: false };
      ctx.lc.forget(q, existing);
    } else if (nj.idempotencyKey) {
      const prev = q.idempotency.get(nj.idempotencyKey);
      if (prev && prev.expiresAt > now) return { id: prev.id, created: false };
      q.idempotency.set(nj.idempotencyKey, { id, expiresAt: now + ctx.idempotencyTtlMs });
    }
    const delayed = nj.delayMs > 0;
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
      log: [delayed ? { at: now, type: 'enqueued', delayMs: nj.delayMs } : { at: now, type: 'enqueued' }],
    };
    if (delayed) job.runAt = now + nj.delayMs;
    if (nj.idempotencyKey) job.idempotencyKey = nj.idempotencyKey;
    if (nj.concurrencyKey) job.concurrencyKey = nj.concurrencyKey;
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
    return { id, created: true };
  });
}
