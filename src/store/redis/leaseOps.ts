// Leases and retention on Redis: the heartbeat that extends a worker's leases (lua/heartbeat-1.lua),
// the reaper that requeues or fails jobs whose lease passed (lua/reap-7.lua), and the sweep that
// deletes ended records past their retention window or cap (lua/sweep-5.lua), run after each reap.

import type { LeaseState, ReapResult } from '../types.js';
import type { RedisContext } from './RedisContext.js';

/** Records one sweep-5.lua call deletes per index at most (~1-2 ms of Redis time). */
const SWEEP_LIMIT = 500;

export async function heartbeat(
  ctx: RedisContext,
  queue: string,
  leases: { id: string; token: string }[],
  leaseMs: number,
): Promise<LeaseState[]> {
  if (leases.length === 0) return [];
  const k = ctx.keys(queue);
  const args: (string | number)[] = [k.base, leaseMs];
  for (const l of leases) args.push(l.id, l.token);
  const res = (await ctx.run('heartbeat', [k.active], args)) as number[];
  return res.map((r) => (r === 0 ? 'held' : r === 2 ? 'cancel' : 'lost'));
}

export async function reap(
  ctx: RedisContext,
  queue: string,
  options: { maxLeaseRequeues: number; lockMs?: number },
): Promise<ReapResult> {
  const k = ctx.keys(queue);
  const res = (await ctx.run(
    'reap',
    [k.active, k.queued, k.failed, k.dead, k.events, k.marker, k.cancelled],
    [k.base, ctx.eventsMaxLen, options.maxLeaseRequeues, ctx.finishedTtlMs, options.lockMs ?? 100],
  )) as [string[], string[], number, number];
  const [requeued, failed, due, ran] = res;
  if (ran === 1) await sweep(ctx, queue);
  return due >= 0 ? { requeued, failed, nextDueMs: due } : { requeued, failed };
}

/**
 * Retention: deletes done and cancelled records older than `finishedTtlMs`, failed ones older
 * than `failedTtlMs` or past the `deadLetterMax` cap (sweep-5.lua),
 * SWEEP_LIMIT per index per call, again while a call comes back full, for at most ~1 s (what
 * is left waits for the next reap). Runs after each reap that held the reaper's lock.
 */
export async function sweep(ctx: RedisContext, queue: string): Promise<number> {
  const k = ctx.keys(queue);
  const t0 = performance.now();
  let total = 0;
  for (;;) {
    const n = Number(
      await ctx.run(
        'sweep',
        [k.done, k.cancelled, k.dead, k.broken, k.failed],
        [k.base, ctx.finishedTtlMs, SWEEP_LIMIT, ctx.failedTtlMs, ctx.deadLetterMax],
      ),
    );
    total += n;
    if (n < SWEEP_LIMIT || performance.now() - t0 > 1000) return total;
  }
}
