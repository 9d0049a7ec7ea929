// A queue's runnable line as its readers see it (format 3): the `queued` zset and THE READY LIST
// `ready` beside it, whose stale entries `readygone` counts (lua/include/lcReady.lua says which
// job goes where). The claim merges the two by score in Lua; the counts and the listings here.

import type { ChainableCommander } from 'ioredis';
import { BAND } from '../storeConstants.js';
import type { QueueKeys } from '../keys.js';
import type { RedisContext } from './RedisContext.js';

/** The list holds the normal band (2) only: the zset's places below this end come before it. */
const READY_END = 3 * BAND;

/** Queues on `pipe` what queuedSize reads: 3 replies, in order. */
export function queueQueuedSize(pipe: ChainableCommander, k: QueueKeys): void {
  pipe.zcard(k.queued).llen(k.ready).hget(k.readyGone, '');
}

/** The runnable jobs from the 3 replies queueQueuedSize asked for: the list's stale entries left out. */
export function queuedSize(zcard: unknown, llen: unknown, stale: unknown): number {
  return Number(zcard) + Number(llen) - (Number(stale) || 0);
}

/**
 * Ids `offset` .. `offset + count - 1` of the line, in line by band: the zset's places before the
 * end of the normal band, then the list, then the zset's others (within the normal band the zset
 * holds kept places, requeued or redriven jobs, before the list's fresh ones as a rule; the claim's
 * exact merge is by score). A stale entry of the list reads as '' (no record: a listing skips it).
 */
export async function queuedIds(
  ctx: RedisContext,
  k: QueueKeys,
  offset: number,
  count: number,
): Promise<string[]> {
  const [before, size, marked] = await Promise.all([
    ctx.redis.zcount(k.queued, '-inf', `(${READY_END}`),
    ctx.redis.llen(k.ready),
    ctx.redis.exists(k.readyGone),
  ]);
  const out: string[] = [];
  let at = offset;
  const end = offset + count;
  if (at < before) {
    const stop = Math.min(before, end) - 1;
    out.push(...(await ctx.redis.zrange(k.queued, String(at), String(stop))));
    at = stop + 1;
  }
  if (at < end && at < before + size) {
    const start = at - before;
    const stop = Math.min(size, end - before) - 1;
    const ids = await ctx.redis.lrange(k.ready, start, stop);
    out.push(...(marked ? await withoutStale(ctx, k, ids) : ids));
    at = before + stop + 1;
  }
  if (at < end && at >= before + size) {
    const start = at - size;
    out.push(...(await ctx.redis.zrange(k.queued, String(start), String(end - size - 1))));
  }
  return out;
}

/** `ids` (a page of the list) with each stale entry as '': as many of an id as are marked, the first ones. */
async function withoutStale(ctx: RedisContext, k: QueueKeys, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return ids;
  const marks = await ctx.redis.hmget(k.readyGone, ...ids);
  const left = new Map<string, number>();
  ids.forEach((id, i) => {
    if (marks[i] !== null && !left.has(id)) left.set(id, Number(marks[i]));
  });
  return ids.map((id) => {
    const n = left.get(id) ?? 0;
    if (n <= 0) return id;
    left.set(id, n - 1);
    return '';
  });
}
