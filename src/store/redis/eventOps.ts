// Reading what happened to jobs on Redis: the queue's capped event stream (what dashboards and
// the CLI follow) and a job's audit log, kept in its record (see "IMPLICIT LOG" in
// lua/include/addLog.lua).

import type { RedisClient } from './redisClient.js';
import { JobNotFoundError } from '../../errors.js';
import type { AuditEntry, QueueEvent } from '../types.js';
import type { RedisContext } from './RedisContext.js';
import { decodeLogEntry, decodeStreamEntries, implicitLog } from './decodeEvents.js';
import { F, logEntryField } from '../recordSchema.js';

/** `blocking`: a connection of its own, held while the read blocks (only used when blockMs > 0). */
export async function readEvents(
  ctx: RedisContext,
  blocking: () => RedisClient,
  queue: string,
  cursor: string,
  blockMs: number,
  count: number,
): Promise<QueueEvent[]> {
  const k = ctx.keys(queue);
  const res =
    blockMs > 0
      ? await blocking().xread('COUNT', count, 'BLOCK', String(blockMs), 'STREAMS', k.events, cursor)
      : await ctx.redis.xread('COUNT', count, 'STREAMS', k.events, cursor);
  return res ? decodeStreamEntries(res) : [];
}

export async function lastEventCursor(ctx: RedisContext, queue: string): Promise<string> {
  const last = await ctx.redis.xrevrange(ctx.keys(queue).events, '+', '-', 'COUNT', 1);
  return last[0]?.[0] ?? '0-0';
}

/** The job's audit log, the last 1,000 entries at most (`queue`: the job's, already resolved). */
export async function getLog(ctx: RedisContext, id: string, queue: string): Promise<AuditEntry[]> {
  const all = await ctx.redis.hgetall(ctx.keys(queue).job(id));
  if (!all[F.machine]) throw new JobNotFoundError(id, queue);
  // A minimal record has no implicit log (lua/include/addLog.lua): only what was written.
  if (all[F.logLength] === undefined) return all[F.minimal] ? [] : implicitLog(all);
  const n = Number(all[F.logLength]);
  const out: AuditEntry[] = [];
  for (let i = Math.max(1, n - 999); i <= n; i++) {
    const e = all[logEntryField(i)];
    if (e) out.push(...decodeLogEntry(e));
  }
  return out;
}
