// A queue's idempotency keys handed to the partitions they route to (Registry.copyIdempotencyKeys,
// used when a populated queue is partitioned: store/partitionPopulated.ts). The keys stay where
// they are; a copy `<prefix>:{<to>}:idem:<key>` names the same job with the same remaining TTL,
// so an enqueue repeated after the switch, routed by its key to partition `to`, meets the job
// made before it (enqueue-5.lua returns the id a key names) instead of making a second one.

import { scanPrefix } from './copyStore.js';
import type { RedisContext } from './RedisContext.js';

export async function copyIdempotencyKeys(
  ctx: RedisContext,
  from: string,
  to: (key: string) => string,
): Promise<number> {
  const base = `${ctx.keys(from).base}idem:`;
  let copied = 0;
  for await (const keys of scanPrefix(ctx.redis, `${ctx.keys(from).base}idem`)) {
    const read = await Promise.all(
      keys.map(async (k) => [k, await ctx.redis.get(k), await ctx.redis.pttl(k)] as const),
    );
    await Promise.all(
      read.map(async ([k, id, pttl]) => {
        // Gone since the SCAN (expired), or kept without a TTL (never written so): skipped.
        if (id === null || pttl <= 0) return;
        const key = k.slice(base.length);
        // NX: a key the partition holds already (set there after the switch) is its own.
        const set = await ctx.redis.set(`${ctx.keys(to(key)).base}idem:${key}`, id, 'PX', pttl, 'NX');
        if (set === 'OK') copied++;
      }),
    );
  }
  return copied;
}
