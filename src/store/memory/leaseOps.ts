// Leases and retention on MemoryStore, as lua/heartbeat-1.lua, reap-7.lua, sweep-5.lua and
// purgeDead-3.lua on Redis: extending a worker's leases, requeueing (or failing, past their
// budget) jobs whose lease passed, deleting finished records past the retention window, and
// purging dead letters.

import { MachinistError } from '../../errors.js';
import type { LeaseState, ReapResult } from '../types.js';
import type { MemoryContext } from './MemoryContext.js';
import { QueueState } from './QueueState.js';
import { CODE } from '../../errorCodes.js';
import { REAPED_CAP, REAPED_KEPT_MS } from '../storeConstants.js';
import { tokenWorker } from './tokenWorker.js';

export function heartbeat(
  ctx: MemoryContext,
  q: QueueState,
  leases: readonly { id: string; token: string }[],
  leaseMs: number,
): LeaseState[] {
  if (!(leaseMs > 0))
    throw new MachinistError(CODE.BAD_HEARTBEAT, 'BAD_HEARTBEAT lease ms or id/token pairs');
  return leases.map(({ id, token }) => {
    const j = ctx.job(q, id);
    if (!j || token === '' || j.token !== token) return 'lost';
    // Only a job still listed as running (ZADD XX).
    if (q.index.active.has(id)) q.index.active.add(id, ctx.now + leaseMs);
    return j.cancelRequested ? 'cancel' : 'held';
  });
}

/** As reap-7.lua: the worker whose lease passed, for the fleet's view of a gone supervisor. */
function remember(
  q: QueueState,
  workerId: string,
  id: string,
  outcome: 'requeued' | 'failed',
  at: number,
): void {
  q.reaped.push({ workerId, id, outcome, queue: q.name, at });
}

/** Jobs whose lease passed: requeued, or failed past `maxLeaseRequeues`; then retention. */
export function reap(ctx: MemoryContext, q: QueueState, maxLeaseRequeues: number): ReapResult {
  if (!Number.isFinite(maxLeaseRequeues)) throw new MachinistError(CODE.BAD_REAP, 'BAD_REAP bad budget');
  const requeued: string[] = [];
  const failed: string[] = [];
  const taken = q.index.active.popUpTo(ctx.now, 500);
  for (const { member: id } of taken) {
    const j = ctx.job(q, id);
    if (!j || (j.status !== 'loading' && j.status !== 'working')) continue; // a stale entry: gone now
    const worker = tokenWorker(j.token) ?? ''; // read before the move clears the lease
    const lr = (j.leaseRequeues ?? 0) + 1;
    if (lr > maxLeaseRequeues && !j.cancelRequested) {
      const error = JSON.stringify({
        name: 'LeaseExpiredError',
        message: `lease expired ${lr} times (budget ${maxLeaseRequeues})`,
        code: CODE.LEASE_EXPIRED,
      });
      ctx.lc.move(q, j, 'failed', {
        kind: 'failed',
        set: { leaseRequeues: lr, error },
        error,
        log: [`{"type":"failed","code":"LEASE_EXPIRED","leaseRequeues":${lr}}`],
      });
      failed.push(id);
      remember(q, worker, id, 'failed', ctx.now);
    } else {
      // A cancel was asked for and the worker is gone: the CANCEL GUARD ends it cancelled.
      const r = ctx.lc.move(q, j, 'queued', {
        kind: 'lease-requeued',
        set: { leaseRequeues: lr },
        log: [`{"type":"lease-requeued","leaseRequeues":${lr}}`],
        cancelLog: '{"type":"cancelled","reason":"lease expired after cancel"}',
      });
      if ('moved' in r && r.moved === 'queued') {
        requeued.push(id);
        remember(q, worker, id, 'requeued', ctx.now);
      }
    }
  }
  if (taken.length > 0) {
    const kept = q.reaped.filter((e) => e.at >= ctx.now - REAPED_KEPT_MS);
    q.reaped = kept.slice(Math.max(0, kept.length - REAPED_CAP));
  }
  // Failed records are dead letters (kept for failedTtlMs, or until purged); older than the window they drop out of
  // the status index, and stay listed in `dead` or `broken`.
  q.index.failed.popUpTo(ctx.now - ctx.finishedTtlMs, Infinity);
  sweep(ctx, q);
  return withNextDue(ctx, q, { requeued, failed }, 0);
}

/**
 * Adds `nextDueMs`: when the earliest running lease passes, or `lockedForMs` from now if later
 * (a caller the reaper's lock turned away); left out when no job runs.
 */
export function withNextDue(
  ctx: MemoryContext,
  q: QueueState,
  r: ReapResult,
  lockedForMs: number,
): ReapResult {
  const first = q.index.active.first();
  if (!first) return r;
  return { ...r, nextDueMs: Math.max(0, first.score - ctx.now, Math.ceil(lockedForMs)) };
}

/**
 * Retention, as lua/sweep-5.lua: deletes done and cancelled records that finished before now -
 * finishedTtlMs, failed ones (dead letters, broken jobs) that failed before now - failedTtlMs,
 * and the oldest dead letters and broken jobs past deadLetterMax each; then what expired: purged
 * dead letters, fan-out records and children indexes of finished parents, idempotency keys.
 * Returns the largest count removed from one index.
 */
export function sweep(ctx: MemoryContext, q: QueueState): number {
  let most = 0;
  const windows = [
    ['done', 'done', ctx.finishedTtlMs],
    ['cancelled', 'cancelled', ctx.finishedTtlMs],
    ['dead', 'failed', ctx.failedTtlMs],
    ['broken', 'failed', ctx.failedTtlMs],
  ] as const;
  for (const [index, status, ttl] of windows) {
    const old = q.index[index].popUpTo(ctx.now - ttl, Infinity);
    for (const { member } of old) retire(q, member, status);
    most = Math.max(most, old.length);
  }
  for (const index of ['dead', 'broken'] as const) {
    const over = q.index[index].size - ctx.deadLetterMax;
    if (over <= 0) continue;
    const oldest = q.index[index].range(0, over);
    for (const { member } of oldest) {
      q.index[index].delete(member);
      retire(q, member, 'failed');
    }
    most = Math.max(most, oldest.length);
  }
  for (const [id, j] of q.jobs) if (j.expiresAt !== undefined && j.expiresAt <= ctx.now) q.jobs.delete(id);
  for (const [k, f] of q.fans) if (f.expiresAt !== undefined && f.expiresAt <= ctx.now) q.fans.delete(k);
  for (const [k, c] of q.children)
    if (c.expiresAt !== undefined && c.expiresAt <= ctx.now) q.children.delete(k);
  for (const [k, i] of q.idempotency) if (i.expiresAt <= ctx.now) q.idempotency.delete(k);
  for (const [k, i] of q.dedupe) if (i.expiresAt <= ctx.now) q.dedupe.delete(k);
  return most;
}

/**
 * THE RETENTION RULE, written once: a record whose index entry is past its window (or cap) is
 * deleted only while its status is still that of the index, with what only it needs: its
 * webhook bookkeeping, and for a failed parent its fan-out records and children index (a done or
 * cancelled parent's expire by themselves: FanIn.expireFans).
 */
function retire(q: QueueState, id: string, status: 'done' | 'cancelled' | 'failed'): void {
  const j = q.jobs.get(id);
  if (j?.status !== status) return;
  q.dropRecord(id);
  if (status !== 'failed') return;
  for (const g of j.fanGroups ?? []) q.fans.delete(QueueState.fanKey(id, g.group));
  if (j.fanGroups) q.children.delete(id);
  q.brokenWhy.delete(id);
  for (const index of ['failed', 'dead', 'broken'] as const) q.index[index].delete(id);
}

/** Empties the dead-letter and broken sets; each record then expires like a finished job. */
export function purgeDead(ctx: MemoryContext, q: QueueState, only?: string): number {
  let purged = 0;
  for (const set of ['dead', 'broken'] as const) {
    for (const [id] of q.index[set].entries()) {
      if (only !== undefined && id !== only) continue;
      purgeOne(ctx, q, id, set);
      purged++;
    }
  }
  return purged;
}

/**
 * One dead or broken entry purged: its record (its webhook bookkeeping, a parent's fan-out
 * records) expire like a finished job's.
 */
function purgeOne(ctx: MemoryContext, q: QueueState, id: string, set: 'dead' | 'broken'): void {
  const expiresAt = ctx.now + ctx.finishedTtlMs;
  const j = q.jobs.get(id);
  const meta = q.hooks.meta.get(id);
  if (meta) {
    meta.expiresAt = expiresAt;
    q.hooks.metaExpiry.add(id, expiresAt);
  }
  if (j) {
    j.expiresAt = expiresAt;
    const children = q.children.get(id);
    if (j.fanGroups && children) children.expiresAt = expiresAt;
    for (const g of j.fanGroups ?? []) {
      const fan = q.fans.get(QueueState.fanKey(id, g.group));
      if (fan) fan.expiresAt = expiresAt;
    }
  }
  q.index.failed.delete(id);
  if (set === 'broken') q.brokenWhy.delete(id);
  q.index[set].delete(id);
}
