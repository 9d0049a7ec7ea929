// The dead-letter and broken sets: reading them, and putting a job back in line or purging them
// (lua/retryDead-6.lua, lua/purgeDead-3.lua).

import { fromScriptError, type StoredError } from '../../errors.js';
import { deadLetterOf, type BrokenEntry, type DeadLetter } from '../types.js';
import type { RedisContext } from './RedisContext.js';
import { getMany } from './listJobs.js';
import { queueOf } from './jobOps.js';
import { hasWebhook } from '../hookWrites.js';
import { listHooked } from './enqueueOps.js';
import { F } from '../recordSchema.js';

export async function deadLetters(ctx: RedisContext, queue: string, limit: number): Promise<DeadLetter[]> {
  const k = ctx.keys(queue);
  const ids = await ctx.redis.zrevrange(k.dead, 0, limit - 1, 'WITHSCORES');
  const out: DeadLetter[] = [];
  const idList = ids.filter((_, i) => i % 2 === 0);
  const recs = await getMany(ctx, queue, idList);
  for (const r of recs) out.push(deadLetterOf(r, queue));
  return out;
}

export async function broken(ctx: RedisContext, queue: string, limit: number): Promise<BrokenEntry[]> {
  const k = ctx.keys(queue);
  const flat = await ctx.redis.zrevrange(k.broken, 0, limit - 1, 'WITHSCORES');
  const out: BrokenEntry[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const id = flat[i]!;
    const [why, [err, raw]] = await Promise.all([
      ctx.redis.hget(k.brokenWhy, id),
      ctx.redis.hmget(k.job(id), F.error, F.raw),
    ]);
    const reason = why ?? (err ? ((JSON.parse(err) as StoredError).message ?? err) : 'unknown');
    const entry: BrokenEntry = { id, queue, reason, at: Number(flat[i + 1]) };
    // An ingress entry that could not be made a job keeps its text (lua/drainIngress-7.lua).
    if (raw != null) entry.raw = raw;
    out.push(entry);
  }
  return out;
}

export async function retryDeadLetter(ctx: RedisContext, id: string, queue?: string): Promise<void> {
  const q = await queueOf(ctx, id, queue);
  const k = ctx.keys(q);
  // Runs again: listed for the webhook dispatcher again (enqueueOps.listHooked).
  if (hasWebhook(await ctx.redis.hget(k.job(id), F.options))) await listHooked(ctx, q, [id]);
  try {
    await ctx.run(
      'retryDead',
      [k.dead, k.broken, k.failed, k.queued, k.events, k.marker],
      [k.base, ctx.eventsMaxLen, id],
    );
  } catch (err) {
    throw fromScriptError(err, { jobId: id, queue: q });
  }
}

/** Purges the dead-letter and broken sets, 1,000 entries per script call. */
export async function purgeDeadLetters(ctx: RedisContext, queue: string): Promise<number> {
  const k = ctx.keys(queue);
  let total = 0;
  for (;;) {
    const n = Number(
      await ctx.run('purgeDead', [k.dead, k.failed, k.broken], [k.base, ctx.finishedTtlMs, 1000]),
    );
    total += n;
    if (n < 1000) return total;
  }
}

/** Purges one dead-lettered or broken job: false when it is in neither set (JOB_NOT_FOUND when no queue holds it). */
export async function purgeDeadLetter(ctx: RedisContext, id: string, queue?: string): Promise<boolean> {
  const q = await queueOf(ctx, id, queue);
  const k = ctx.keys(q);
  const n = Number(
    await ctx.run('purgeDead', [k.dead, k.failed, k.broken], [k.base, ctx.finishedTtlMs, 1, id]),
  );
  return n === 1;
}
