// What a client does to one job on MemoryStore, as lua/cancel-8.lua, send-5.lua and
// retryDead-6.lua on Redis: cancel it, send it an event, put a dead letter back in line.

import { hasWebhook } from '../hookWrites.js';
import { JobFinishedError, JobNotFoundError, MachinistError } from '../../errors.js';
import type { CancelOutcome } from '../types.js';
import { FINAL } from '../lifecycleTable.js';
import { appendLog } from './MemoryJob.js';
import { tokenWorker } from './tokenWorker.js';
import type { MemoryContext } from './MemoryContext.js';
import { QueueState } from './QueueState.js';
import { CODE } from '../../errorCodes.js';

/**
 * Ends a job that is not running at once; asks a running job's worker to stop it (its `cancel
 * requested` makes whatever its attempt writes next but a finish end it cancelled: the CANCEL
 * GUARD, so a lost message cannot lose the cancel).
 */
export function cancel(ctx: MemoryContext, q: QueueState, id: string, reason: string): CancelOutcome {
  const j = ctx.job(q, id);
  if (!j) throw new JobNotFoundError(id, q.name);
  const hasChildren = j.fanGroups !== undefined;
  const out = (result: CancelOutcome['result'], status = j.status) => ({
    result,
    status,
    hasChildren,
    queue: q.name,
  });
  if (FINAL.has(j.status)) return out('finished');
  const worker = tokenWorker(j.token);
  if ((j.status === 'loading' || j.status === 'working') && worker) {
    ctx.lc.requestCancel(q, j, worker, reason);
    return out('requested');
  }
  ctx.lc.move(q, j, 'cancelled', {
    kind: 'cancelled',
    set: { cancelRequested: true },
    log: [JSON.stringify({ type: 'cancelled', reason })],
  });
  return out('cancelled', 'cancelled');
}

/** Delivers an event to a job's inbox, in order, once per `eventId`; a parked job wakes to take it. */
export function send(
  ctx: MemoryContext,
  q: QueueState,
  id: string,
  event: string,
  eventType: string,
  eventId: string,
): boolean {
  if (!event || typeof eventType !== 'string' || !eventId)
    throw new MachinistError(CODE.BAD_SEND, 'BAD_SEND event, type and event id are required', { jobId: id });
  const j = ctx.job(q, id);
  if (!j) throw new JobNotFoundError(id, q.name);
  // An id delivered already is answered so, also once the job has ended (a repeat whose first
  // answer was lost: a finished job keeps its ids, MemoryLifecycle.finish).
  if (j.inboxIds?.has(eventId)) return false;
  if (FINAL.has(j.status)) throw new JobFinishedError(id, j.status);
  (j.inboxIds ??= new Set()).add(eventId);
  (j.inbox ??= []).push(event);
  const log = [JSON.stringify({ type: 'event-received', event: eventType })];
  if (j.status === 'waiting') {
    ctx.lc.move(q, j, 'queued', { kind: 'event-received', log });
    return true;
  }
  j.updatedAt = ctx.now;
  appendLog(j, ctx.now, log);
  ctx.emit(q, id, 'event-received', j.status);
  const w = tokenWorker(j.token);
  if ((j.status === 'working' || j.status === 'loading') && w) ctx.publish(q, w, `event ${id}`);
  return true;
}

/**
 * REDRIVE: a dead-lettered (or broken) job back in line with fresh attempts. Clears what a fresh
 * attempt must not see (error, finish time, output, cancel request, attempt and lease-requeue
 * counts) and keeps what it resumes from: a pipeline's resume snapshot, a broken job's last
 * checkpoint; a parent's fan-out records drop the outcomes of children that did not end done
 * (revive), so its re-run fan-out makes those children anew.
 */
export function retryDead(ctx: MemoryContext, q: QueueState, id: string): void {
  const inDead = q.index.dead.has(id);
  const inBroken = q.index.broken.has(id);
  const j = ctx.job(q, id);
  if (!(inDead || inBroken) || !j) throw new JobNotFoundError(id, q.name);
  if (j.status !== 'failed') {
    // Listed but not failed: only the listing goes.
    q.index.dead.delete(id);
    q.index.broken.delete(id);
    throw new JobNotFoundError(id, q.name);
  }
  // Runs again: listed for the webhook dispatcher again (hookWrites.hasWebhook).
  if (hasWebhook(j.options)) q.hooks.list(id, ctx.now);
  delete j.error;
  delete j.finishedAt;
  delete j.output;
  delete j.cancelRequested;
  delete j.runAt;
  delete j.expiresAt;
  if (j.resume !== undefined) j.snapshot = j.resume;
  else if (!inBroken) {
    delete j.snapshot;
    delete j.state;
  }
  delete j.resume;
  if (j.fanGroups) {
    const children = q.children.get(id);
    if (children) delete children.expiresAt;
    for (const g of j.fanGroups) {
      const fan = q.fans.get(QueueState.fanKey(id, g.group));
      if (!fan) continue;
      delete fan.expiresAt;
      let dropped = 0;
      for (const [i, outcome] of fan.results)
        if (!outcome.startsWith('{"s":"done"')) {
          fan.results.delete(i);
          dropped++;
        }
      if (dropped > 0) {
        fan.woken = false;
        fan.finished -= dropped;
        fan.failed = 0;
        fan.revive = true;
      }
    }
  }
  ctx.lc.move(q, j, 'queued', {
    kind: 'redriven',
    set: { attempt: 1, leaseRequeues: 0, retryLaters: 0 },
    log: ['{"type":"redriven"}'],
  });
}
