// The flow gate on Redis (lua/flow-3.lua writes it; lua/commit-12.lua's claim obeys it; the
// layout and its invariants are in lua/include/lcFlow.lua).

import { fromScriptError } from '../../errors.js';
import type { KeyStrategy, KeyUse, QueueFlow, QueueFlowChange } from '../types.js';
import { nextStartAt } from '../roles/FlowControl.js';
import type { RedisContext } from './RedisContext.js';

const limitArg = (v: number | null | undefined): string =>
  v === undefined ? '' : v === null ? '-' : String(v);

export async function setQueueFlow(ctx: RedisContext, queue: string, change: QueueFlowChange): Promise<void> {
  const k = ctx.keys(queue);
  const paused = change.paused === undefined ? '' : change.paused ? '1' : '0';
  try {
    await ctx.run(
      'flow',
      [k.base + 'flow', k.queued, k.marker],
      [
        k.base,
        paused,
        limitArg(change.total),
        limitArg(change.perKey),
        ...(change.rateLimit === undefined
          ? ['', '', '']
          : change.rateLimit === null
            ? ['-', '', '']
            : [change.rateLimit.limit, change.rateLimit.perMs, change.rateLimit.burst ?? 0]),
        change.strategy ?? '',
        change.fromDefinition ? 'def' : '',
      ],
    );
  } catch (err) {
    throw fromScriptError(err, { queue });
  }
}

/** The gate and its use: a read of a few keys, not atomic as a whole (a view, not a decision). */
export async function queueFlow(ctx: RedisContext, queue: string): Promise<QueueFlow> {
  const k = ctx.keys(queue);
  const [flow, running, keys, time] = await Promise.all([
    ctx.redis.hgetall(k.base + 'flow'),
    ctx.redis.zcard(k.active),
    ctx.redis.smembers(k.base + 'ckkeys'),
    ctx.redis.time(),
  ]);
  const now = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
  keys.sort();
  const pipe = ctx.redis.pipeline();
  for (const key of keys) pipe.scard(k.base + 'ck:' + key).zcard(k.base + 'ckwait:' + key);
  const res = keys.length > 0 ? ((await pipe.exec()) ?? []) : [];
  const use: KeyUse[] = keys.map((key, i) => ({
    key,
    running: Number(res[i * 2]?.[1] ?? 0),
    waiting: Number(res[i * 2 + 1]?.[1] ?? 0),
  }));
  const rateLimit = flow.rate
    ? { limit: Number(flow.rate), perMs: Number(flow.ratePer), burst: Number(flow.rateBurst ?? 0) }
    : undefined;
  const throttledUntil = nextStartAt(rateLimit, flow.tat === undefined ? undefined : Number(flow.tat), now);
  return {
    paused: flow.paused === '1',
    limits: {
      ...(flow.total ? { total: Number(flow.total) } : {}),
      ...(flow.perKey ? { perKey: Number(flow.perKey) } : {}),
      ...(rateLimit ? { rateLimit } : {}),
      ...(flow.strategy ? { strategy: flow.strategy as KeyStrategy } : {}),
    },
    running,
    keys: use,
    ...(throttledUntil !== undefined ? { throttledUntil } : {}),
  };
}
