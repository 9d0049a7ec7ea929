// A queue's minute tallies on Redis (written by lua/include/lcTally.lua as jobs end): one hash
// `series:<minute>` per minute, read in one pipeline (24 h: 1,440 HGETALLs of small hashes).

import type { MinuteTally } from '../queueSeries.js';
import type { RedisContext } from './RedisContext.js';

export async function minuteTallies(
  ctx: RedisContext,
  queue: string,
  first: number,
  count: number,
): Promise<MinuteTally[]> {
  const base = ctx.keys(queue).base;
  const pipe = ctx.redis.pipeline();
  for (let m = first; m < first + count; m++) pipe.hgetall(`${base}series:${m}`);
  const replies = (await pipe.exec()) ?? [];
  return replies.map(([err, hash]) => {
    if (err) throw err;
    const t: MinuteTally = {};
    for (const [k, v] of Object.entries(hash as Record<string, string>)) t[k] = Number(v);
    return t;
  });
}
