// Fan-out bookkeeping on Redis: a parent's fan-out records (lua/fanOpen-2.lua), its children
// index, and the relay of finished children to parents on other queues (lua/fanIn-2.lua).

import type { QueueKeys } from '../keys.js';
import type { FanState } from '../types.js';
import type { RedisContext } from './RedisContext.js';

export async function fanOpen(
  ctx: RedisContext,
  queue: string,
  parentId: string,
  group: string,
  total: number,
  policy: 'failFast' | 'collect',
): Promise<FanState> {
  const k = ctx.keys(queue);
  const flat = (await ctx.run(
    'fanOpen',
    [k.fan(parentId, group), k.job(parentId)],
    [total, policy, group],
  )) as string[];
  const state: FanState = { total, policy, finished: 0, failed: 0, results: new Map(), revive: false };
  for (let i = 0; i < flat.length; i += 2) {
    const f = flat[i]!;
    const v = flat[i + 1]!;
    if (f === 'n') state.total = Number(v);
    else if (f === 'p') state.policy = v as FanState['policy'];
    else if (f === 'd') state.finished = Number(v);
    else if (f === 'f') state.failed = Number(v);
    else if (f === 'rv') state.revive = true;
    else if (f[0] === 'r') state.results.set(Number(f.slice(1)), v);
  }
  return state;
}

export async function fanGroups(
  ctx: RedisContext,
  queue: string,
  parentId: string,
): Promise<{ group: string; total: number; finished: number }[]> {
  const k = ctx.keys(queue);
  const text = await ctx.redis.hget(k.job(parentId), 'fg');
  if (!text) return [];
  const groups = text.split('\n').map((line) => {
    const [group = '', total = '0'] = line.split('\t');
    return { group, total: Number(total), finished: 0 };
  });
  const pipe = ctx.redis.pipeline();
  for (const g of groups) pipe.hget(k.fan(parentId, g.group), 'd');
  const res = (await pipe.exec()) ?? [];
  res.forEach(([, d], i) => (groups[i]!.finished = Number(d ?? 0)));
  return groups;
}

export async function childIds(
  ctx: RedisContext,
  queue: string,
  parentId: string,
  offset: number,
  limit: number,
): Promise<string[]> {
  return ctx.redis.zrange(ctx.keys(queue).children(parentId), String(offset), String(offset + limit - 1));
}

export async function relayOutbox(ctx: RedisContext, queue: string): Promise<number> {
  const k = ctx.keys(queue);
  const ids = await ctx.redis.zrange(k.base + 'outbox', '0', '99');
  let relayed = 0;
  for (const id of ids) {
    const [par, pq, pg, pi, st, o, e] = await ctx.redis.hmget(
      k.job(id),
      'par',
      'pq',
      'pg',
      'pi',
      'st',
      'o',
      'e',
    );
    if (par && pq && pg && st) {
      let pk: QueueKeys;
      try {
        pk = ctx.keys(pq);
      } catch {
        // A parent queue name that cannot be a queue: nothing to deliver to; drop the entry.
        await ctx.redis.zrem(k.base + 'outbox', id);
        continue;
      }
      const result =
        st === 'done'
          ? `{"s":"done","o":${o ?? 'null'}}`
          : st === 'failed'
            ? `{"s":"failed","e":${e ?? 'null'}}`
            : '{"s":"cancelled"}';
      await ctx.run(
        'fanIn',
        [pk.fan(par, pg), pk.job(par)],
        [pk.base, par, pg, pi ?? '0', st, result, ctx.eventsMaxLen, ctx.finishedTtlMs],
      );
      relayed++;
    }
    await ctx.redis.zrem(k.base + 'outbox', id);
  }
  return relayed;
}
